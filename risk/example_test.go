package risk_test

import (
	"fmt"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
)

func ExampleProfile_Decide() {
	pol, _ := risk.NewPolicy(&config.Config{RiskProfiles: map[string]config.RiskProfile{
		"ci": {Level: "full", AlwaysAsk: []string{"file_write"}},
	}})
	def, _ := pol.Profile("")
	ci, _ := pol.Profile("ci")
	write := risk.Input{Tool: "file_write", Channel: tool.ChannelMCP, Assessment: tool.Assessment{Tier: tool.Medium}}
	edit := risk.Input{Tool: "file_edit", Channel: tool.ChannelMCP, Assessment: tool.Assessment{Tier: tool.Medium}}
	fmt.Println(def.Decide(write).Decision, ci.Decide(write).Decision, ci.Decide(edit).Decision)
	// Output: ask ask allow
}
