//go:build unix

package commandtool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/commandtool"
	"github.com/talonhq/talon/config"
)

func ExampleLoad() {
	cfg, _, err := config.Parse("talon.toml", []byte(`
schema_version = 1
[tools.commands.greet]
description = "Greet someone by name"
command = ["echo", "hello,", "{{ input.name }}"]
parameters = { type = "object", properties = { name = { type = "string" } }, required = ["name"] }
tier = "low"

[tools.commands.wipe]
command = ["rm", "-rf", "{{ input.path }}"]
parameters = { type = "object", properties = { path = { type = "string" } }, required = ["path"] }

[tools.tool_policy]
deny = ["tool__wipe"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	set, err := commandtool.Load(cfg, commandtool.Options{Workspace: os.TempDir()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range set.Tools {
		s := t.Spec()
		fmt.Println(s.Name, s.Attribution, s.Tier)
	}
	for _, s := range set.Skipped {
		fmt.Println("skipped", s.Qualified+":", s.Reason)
	}
	res, err := set.Tools[0].Execute(context.Background(), json.RawMessage(`{"name": "operator"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Output.Text)
	// Output:
	// tool__greet command.greet low
	// skipped tool__wipe: tool_policy.deny matches it ("tool__wipe")
	// hello, operator
}

func ExampleTool_Assess() {
	t, err := commandtool.New("grep", config.CommandTool{
		Command: []string{"grep", "-rn", "--", "{{ input.pattern }}", "."},
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"pattern": map[string]any{"type": "string"}},
			"required":   []any{"pattern"},
		},
		Env: map[string]string{"PATH": "/usr/bin:/bin"},
		Cwd: "/",
	}, commandtool.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := t.Assess(json.RawMessage(`{"pattern": "TODO: fix"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := a.Plan.Commands[0]
	fmt.Println(a.Tier, a.Plan.Summary)
	fmt.Println(c.Dir, c.Env)
	// Output:
	// high grep -rn -- 'TODO: fix' .
	// / [PATH]
}

func ExampleQualifiedName() {
	name, _ := commandtool.QualifiedName("my.tool")
	fmt.Println(name)
	_, err := commandtool.QualifiedName("a-name-that-goes-on-and-on-well-past-the-limit-of-sixty-four")
	fmt.Println(err)
	// Output:
	// tool__my_tool
	// command tool "a-name-that-goes-on-and-on-well-past-the-limit-of-sixty-four" becomes tool__a-name-that-goes-on-and-on-well-past-the-limit-of-sixty-four, 66 characters long; the limit is 64: choose a shorter name
}

func ExampleCheck() {
	for _, p := range commandtool.Check("search", config.CommandTool{
		Description: "Search the workspace",
		Command:     []string{"grep", "-rn", "{{ input.pattern }}", "{{ inputs.path }}"},
	}, commandtool.Options{}) {
		fmt.Printf("%s: %s\n", p.Severity, p.Msg)
	}
	// Output:
	// error: command tool "search": command[2] refers to parameter "pattern", which parameters.properties does not declare: declare it or fix the name
	// error: command tool "search": command[3] uses the unknown variable "inputs.path": use {{ input.NAME }}, {{ json input }}, {{ json input.NAME }} or {{ "literal text" }}
}

func ExamplePolicy_Allows() {
	pol, err := commandtool.NewPolicy(config.ToolPolicy{
		Allow: []string{"tool__git_*"},
		Deny:  []string{"tool__git_push"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"tool__git_log", "tool__git_push", "tool__rm"} {
		if ok, why := pol.Allows(name); ok {
			fmt.Println(name, "registered")
		} else {
			fmt.Println(name, "left out:", why)
		}
	}
	// Output:
	// tool__git_log registered
	// tool__git_push left out: tool_policy.deny matches it ("tool__git_push")
	// tool__rm left out: no tool_policy.allow pattern matches it
}
