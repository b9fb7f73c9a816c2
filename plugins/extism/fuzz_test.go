package extism

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeResult feeds a servlet's call output to the decoder: it never
// panics, refuses with ErrBadResponse, and a result it accepts is
// consistent (a success has text, a failure has an error).
func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"x"}],"structuredContent":{"n":1}}`,
		`{"content":[],"structuredContent":[1,2]}`,
		`{"structuredContent":{"only":"data"}}`,
		`{"content":[{"type":"text","text":""}],"isError":true}`,
		`{"content":[{"text":"no type"}]}`,
		`{"content":null,"structuredContent":null}`,
		`{"foo":1}`,
		`[1,2,3]`,
		`{"content":[]} trailing`,
		`not json`,
		``,
		"{\"content\":[{\"type\":\"text\",\"text\":\"\\ud800\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(b)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("error %v does not wrap ErrBadResponse", err)
			}
			return
		}
		switch {
		case r.Success && r.Error != "":
			t.Fatalf("success with an error: %+v", r)
		case !r.Success && strings.TrimSpace(r.Error) == "":
			t.Fatalf("failure without an error: %+v", r)
		}
		if !utf8.ValidString(r.Output.Text) && utf8.Valid(b) {
			t.Fatalf("valid UTF-8 in, invalid text out: %q", r.Output.Text)
		}
		if r.Output.Data != nil {
			if _, err := json.Marshal(r.Output.Data); err != nil {
				t.Fatalf("data does not encode: %v", err)
			}
		}
	})
}

// FuzzDecodeDescribe feeds a servlet's describe output to the decoder:
// tools it accepts have valid, unique names and object schemas.
func FuzzDecodeDescribe(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"a","description":"x","inputSchema":{"type":"object"}}]}`,
		`{"tools":[{"name":"a"},{"name":"a"}]}`,
		`{"tools":[{"name":"bad name"}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`,
		`{"tools":[{"name":"a","tier":"low","annotations":{"readOnlyHint":true}}],"nextCursor":"x"}`,
		`{"tools":[]}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		specs, err := DecodeDescribe(b)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("error %v does not wrap ErrBadResponse", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range specs {
			if seen[s.Name] {
				t.Fatalf("duplicate %q accepted", s.Name)
			}
			seen[s.Name] = true
			var m map[string]any
			if err := json.Unmarshal(s.Input, &m); err != nil {
				t.Fatalf("schema %s is not an object", s.Input)
			}
		}
	})
}

// FuzzReadModule feeds bytes to the binary reader and the import
// redirection: neither panics, and a redirected module reads back with the
// same imports, the renamed ones moved.
func FuzzReadModule(f *testing.F) {
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x01\x05\x01\x60\x01\x7e\x00\x02\x1b\x01\x0fextism:host/env\x07log_info\x00\x00"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x05\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := readModule(b)
		if err != nil {
			return
		}
		out, changed, err := redirect(b, EnvModule, talonModule, ownedFunctions)
		if err != nil {
			t.Fatalf("read but not redirected: %v", err)
		}
		after, err := readModule(out)
		if err != nil {
			t.Fatalf("redirected module does not read: %v", err)
		}
		if len(after.imports) != len(info.imports) {
			t.Fatalf("%d imports became %d", len(info.imports), len(after.imports))
		}
		moved := false
		for i, im := range info.imports {
			a := after.imports[i]
			if im.name != a.name || im.kind != a.kind {
				t.Fatalf("import %d changed: %+v -> %+v", i, im, a)
			}
			if im.module != a.module {
				if im.module != EnvModule || a.module != talonModule || !ownedFunctions[im.name] || im.kind != importFunc {
					t.Fatalf("import %d moved wrongly: %+v -> %+v", i, im, a)
				}
				moved = true
			}
		}
		if moved != changed {
			t.Fatalf("changed = %v, moved = %v", changed, moved)
		}
	})
}
