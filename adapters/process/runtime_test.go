package process

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// TestThroughRuntime drives the registered tool through the pipeline: the
// profile's allowed_commands reach start (tool.Profiled), the session
// comes from the call, and kill ends the process.
func TestThroughRuntime(t *testing.T) {
	t.Cleanup(func() { _ = Shutdown() })
	cfg, _, err := config.Parse("talon.toml", []byte(`
[tools]
optional = ["process"]
[risk_profiles.full]
level = "full"
allowed_commands = ["sleep"]
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: t.TempDir(), DataDir: t.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	call := func(profile, session, args string) tool.Result {
		t.Helper()
		res, err := rt.Call(context.Background(), tool.Call{Name: Name, Args: json.RawMessage(args), Profile: profile, Channel: tool.ChannelMCP, SessionID: session})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// sleep is not in the default profile's allowed_commands.
	if res := call("default", "s1", `{"action":"start","command":"sleep 30"}`); res.Success || !res.Denied {
		t.Fatalf("start under default = %+v", res)
	}
	res := call("full", "s1", `{"action":"start","command":"sleep 30"}`)
	if !res.Success || !strings.HasPrefix(res.Output.Text, "started p") {
		t.Fatalf("start under full = %+v", res)
	}
	id := strings.TrimSuffix(strings.Fields(res.Output.Text)[1], ":")
	if res := call("full", "s2", `{"action":"kill","id":"`+id+`"}`); res.Success {
		t.Fatal("another session killed the process")
	}
	if res := call("full", "s1", `{"action":"poll","id":"`+id+`","wait_seconds":0}`); !res.Success || !strings.Contains(res.Output.Text, "running") {
		t.Fatalf("poll = %+v", res)
	}
	if res := call("full", "s1", `{"action":"kill","id":"`+id+`"}`); !res.Success || !strings.Contains(res.Output.Text, "killed") {
		t.Fatalf("kill = %+v", res)
	}
}
