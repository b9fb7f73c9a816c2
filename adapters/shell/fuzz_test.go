//go:build unix

package shell

import (
	"encoding/json"
	"errors"
	"strings"
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
		`{"command":"ls","workdir":"../x"}`, `{"command":"ls","workdir":"."}`, `{"command":"ls","env":{"TZ":"UTC"}}`,
		`{"command":"ls","env":{"PATH":"/x"}}`, `{"command":"ls","env":{"TZ":1}}`, `{"command":"ls","background":true}`,
		`{"command":"ls","yield_ms":200}`, `{"command":"ls | wc","pty":true}`, `{"command":"ls","yield_ms":-1}`,
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
			if !a.PTY || !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("Assess failed after decoding: %v", err)
			}
			return
		}
		if as.Plan == nil && !as.Denied {
			t.Fatalf("no plan but not denied: %+v", as)
		}
	})
}

// FuzzVTCleaner feeds a program's terminal output, split anywhere, to the
// cleaner: it never panics, keeps no escape or control byte but newline
// and tab, and cleans the same bytes the same way however they were
// split.
func FuzzVTCleaner(f *testing.F) {
	for _, s := range []string{"\x1b[1;32mok\x1b[0m\r\n", "\x1b]0;t\x07x", "10%\r50%\r", "\x1b(Ba\x1b[5;1Hb", "\x1b"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		var whole, split strings.Builder
		v := newVTCleaner(&whole)
		_, _ = v.Write(b)
		v.Flush()
		w := newVTCleaner(&split)
		i := int(cut) % (len(b) + 1)
		_, _ = w.Write(b[:i])
		_, _ = w.Write(b[i:])
		w.Flush()
		if whole.String() != split.String() {
			t.Fatalf("split at %d: %q, whole: %q", i, split.String(), whole.String())
		}
		for _, c := range []byte(whole.String()) {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				t.Fatalf("control byte %#x kept in %q", c, whole.String())
			}
		}
	})
}

// FuzzKeys: any key names encode or are refused with ErrUnknownKey.
func FuzzKeys(f *testing.F) {
	for _, k := range []string{"Enter", "C-c", "M-Up", "x", "Entr", "C-", "é", ""} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if _, err := encodeKeys([]string{k}, true); err != nil && !errors.Is(err, ErrUnknownKey) {
			t.Fatalf("encodeKeys(%q) = %v", k, err)
		}
	})
}
