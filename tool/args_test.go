package tool

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{name: "empty", in: "", want: "{}"},
		{name: "spaces", in: "  \n", want: "{}"},
		{name: "null", in: "null", want: "{}"},
		{name: "null padded", in: " null ", want: "{}"},
		{name: "object", in: `{ "a" : 1 }`, want: `{"a":1}`},
		{name: "empty object", in: `{}`, want: `{}`},
		{name: "array", in: `[1,2]`, wantErr: ErrArgumentsNotObject},
		{name: "string", in: `"x"`, wantErr: ErrArgumentsNotObject},
		{name: "number", in: `12`, wantErr: ErrArgumentsNotObject},
		{name: "bool", in: `true`, wantErr: ErrArgumentsNotObject},
		{name: "garbage", in: `{"a":`, wantErr: ErrArgumentsMalformed},
		{name: "two values", in: `{} {}`, wantErr: ErrArgumentsMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeArgs(json.RawMessage(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSchemaValidateNamesField(t *testing.T) {
	s, err := CompileSchema("t", json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","maxLength":8,"pattern":"^[a-z]+$"},"offset":{"type":"integer","minimum":1,"maximum":100},"ratio":{"type":"number","exclusiveMaximum":1.5}},"required":["path"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want []string // substrings; empty = valid
	}{
		{name: "valid", args: `{"path":"a"}`},
		{name: "missing required", args: `{}`, want: []string{"path"}},
		{name: "wrong type", args: `{"path":"a","offset":"x"}`, want: []string{"/offset"}},
		{name: "below minimum", args: `{"path":"a","offset":0}`, want: []string{"/offset: must be at least 1, got 0"}},
		{name: "above maximum", args: `{"path":"a","offset":500}`, want: []string{"/offset: must be at most 100, got 500"}},
		{name: "not below an exclusive bound", args: `{"path":"a","ratio":1.5}`, want: []string{"/ratio: must be less than 1.5, got 1.5"}},
		{name: "too long, not echoed", args: `{"path":"abcdefghijklmnopsecret"}`, want: []string{"/path: must be at most 8 characters long, got 22"}},
		{name: "pattern", args: `{"path":"A1"}`, want: []string{`/path: must match the regular expression "^[a-z]+$"`}},
		{name: "unknown field", args: `{"path":"a","bogus":1}`, want: []string{"bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(json.RawMessage(tt.args))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *ArgumentError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q echoes the value", err)
			}
		})
	}
}

func TestCompileSchemaRejectsNonObject(t *testing.T) {
	for _, raw := range []string{`[]`, `{"type":"string"}`, `{`} {
		if _, err := CompileSchema("t", json.RawMessage(raw)); err == nil {
			t.Errorf("CompileSchema(%s) succeeded, want error", raw)
		}
	}
}

func FuzzNormalizeArgs(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"a":[1,{"b":null}]}`, "[]", `"x"`, "1e400", "{\"a\":\"\\ud800\"}", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := NormalizeArgs(in)
		if err != nil {
			if out != nil {
				t.Fatalf("output %q with error %v", out, err)
			}
			return
		}
		var m map[string]any
		if jerr := json.Unmarshal(out, &m); jerr != nil || m == nil {
			t.Fatalf("normalized %q to %q, which is not an object: %v", in, out, jerr)
		}
		again, err := NormalizeArgs(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
		}
	})
}
