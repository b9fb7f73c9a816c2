package process

import (
	"encoding/json"
	"testing"

	"github.com/talonhq/talon/adapters/shell"
)

// FuzzArgs feeds arbitrary arguments to the decoder and the assessment:
// neither may panic, and an accepted action is one of the eight.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"action":"start","command":"ls | wc -l"}`, `{"action":"poll","id":"p1","wait_seconds":30}`,
		`{"action":"log","id":"p1","offset":5,"limit":10}`, `{"action":"write","id":"p1","input":"x","eof":true}`,
		`{"action":"send_keys","id":"p1","keys":["C-c","Up","Enter"]}`, `{"action":"paste","id":"p1","text":"a\nb"}`,
		`{"action":"start","command":"make","workdir":"sub","env":{"LANG":"C"},"pty":true}`,
		`null`, ``, `[]`, `{"action":"start","command":"$(id)"}`,
	} {
		f.Add(s)
	}
	m := shell.NewManager(shell.ManagerOptions{})
	f.Cleanup(func() { _ = m.Close() })
	t, err := New(Options{Shell: shell.Options{Workspace: f.TempDir(), Jobs: m}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(_ *testing.T, s string) {
		a, err := decode(json.RawMessage(s))
		if err == nil {
			switch a.Action {
			case "start", "list", "poll", "log", "write", "send_keys", "paste", "kill":
			default:
				panic("accepted action " + a.Action)
			}
		}
		_, _ = t.Assess(json.RawMessage(s))
	})
}
