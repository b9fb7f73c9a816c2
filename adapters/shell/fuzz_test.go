//go:build unix

package shell

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecodeArgs checks that any argument bytes decode to valid arguments
// or to an error wrapping ErrInvalidArguments, and that assessing them
// never panics.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la"}`, `{"command":"ls","timeout_seconds":30}`, `{"command":"ls","timeout_seconds":0}`,
		`{"command":""}`, `{}`, `null`, `[]`, `{"command":"ls","timeout_seconds":1e3}`,
		`{"command":"ls","timeout_seconds":"5"}`, `{"command":"ls"} {}`, `{"command":"echo $(id)"}`,
		`{"command":"ls","extra":1}`, `{"command":"a\u0000b"}`,
	} {
		f.Add([]byte(s))
	}
	s, err := New(Options{Workspace: f.TempDir(), AllowedCommands: []string{"*"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := s.decodeArgs(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("error %v does not wrap ErrInvalidArguments", err)
			}
			return
		}
		if a.Command == "" || len(a.Command) > MaxCommandBytes || a.Timeout <= 0 {
			t.Fatalf("decoded invalid arguments %+v from %q", a, raw)
		}
		as, err := s.Assess(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("Assess failed after decoding: %v", err)
		}
		if as.Plan == nil && !as.Denied {
			t.Fatalf("no plan but not denied: %+v", as)
		}
	})
}
