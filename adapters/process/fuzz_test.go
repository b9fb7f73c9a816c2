package process

import (
	"encoding/json"
	"testing"
)

// FuzzArgs feeds arbitrary arguments to the decoder and the assessment:
// neither may panic, and an accepted action is one of the six.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"action":"start","command":"ls | wc -l"}`, `{"action":"poll","id":"p1","wait_seconds":30}`,
		`{"action":"log","id":"p1","offset":5,"limit":10}`, `{"action":"write","id":"p1","input":"x","eof":true}`,
		`null`, ``, `[]`, `{"action":"start","command":"$(id)"}`,
	} {
		f.Add(s)
	}
	t, err := New(Options{Workspace: f.TempDir(), Manager: NewManager(ManagerOptions{})})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(_ *testing.T, s string) {
		a, err := decode(json.RawMessage(s))
		if err == nil {
			switch a.Action {
			case "start", "list", "poll", "log", "write", "kill":
			default:
				panic("accepted action " + a.Action)
			}
		}
		_, _ = t.Assess(json.RawMessage(s))
	})
}
