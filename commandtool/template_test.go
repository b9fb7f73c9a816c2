package commandtool

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseElement(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string // String() of the element
		params  []string
		wantErr string
	}{
		{name: "plain text", src: "--json", want: "--json"},
		{name: "empty", src: "", want: ""},
		{name: "input", src: "{{ input.pattern }}", want: "{{ input.pattern }}", params: []string{"pattern"}},
		{name: "no spaces", src: "{{input.p}}", want: "{{ input.p }}", params: []string{"p"}},
		{name: "tabs and spaces", src: "{{\t input.p \t}}", want: "{{ input.p }}", params: []string{"p"}},
		{name: "text around", src: "--pattern={{ input.p }}!", want: "--pattern={{ input.p }}!", params: []string{"p"}},
		{name: "json input", src: "{{ json input }}", want: "{{ json input }}"},
		{name: "json param", src: "{{ json input.filters }}", want: "{{ json input.filters }}", params: []string{"filters"}},
		{name: "quoted literal", src: `{{ "{{" }}.Name{{ "}}" }}`, want: `{{ "{{" }}.Name{{ "}}" }}`},
		{name: "quoted literal with braces inside", src: `{{ "{{.State.Running}}" }}`, want: `{{ "{{.State.Running}}" }}`},
		{name: "closing braces alone are text", src: "a}}b", want: "a}}b"},
		{name: "dash and digits in names", src: "{{ input.max-count_2 }}", want: "{{ input.max-count_2 }}", params: []string{"max-count_2"}},
		{name: "two params", src: "{{ input.a }}:{{ input.b }}", want: "{{ input.a }}:{{ input.b }}", params: []string{"a", "b"}},
		{name: "unknown variable", src: "{{ foo }}", wantErr: `unknown variable "foo"`},
		{name: "bare input", src: "{{ input }}", wantErr: `unknown variable "input"`},
		{name: "nested path", src: "{{ input.a.b }}", wantErr: `unknown variable "input.a.b"`},
		{name: "json of something else", src: "{{ json env }}", wantErr: `unknown variable "json env"`},
		{name: "three words", src: "{{ json input x }}", wantErr: "unknown variable"},
		{name: "go template syntax", src: "{{ .Name }}", wantErr: `unknown variable ".Name"`},
		{name: "empty placeholder", src: "{{ }}", wantErr: "empty placeholder"},
		{name: "unterminated", src: "{{ input.a", wantErr: `without "}}"`},
		{name: "bad quoted literal", src: `{{ "\q" }}`, wantErr: "bad quoted literal"},
		{name: "unterminated quoted literal", src: `{{ "abc }}`, wantErr: "bad quoted literal"},
		{name: "quoted literal then junk", src: `{{ "a" b }}`, wantErr: "not followed by"},
		{name: "too long", src: strings.Repeat("x", maxTemplateBytes+1), wantErr: "the limit is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			el, err := parseElement(tt.src)
			if tt.wantErr != "" {
				var te *templateError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &te) {
					t.Fatalf("parseElement(%q) error = %v, want %q", tt.src, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseElement(%q): %v", tt.src, err)
			}
			if got := el.String(); got != tt.want {
				t.Errorf("String = %q, want %q", got, tt.want)
			}
			if got := el.params(); strings.Join(got, ",") != strings.Join(tt.params, ",") {
				t.Errorf("params = %q, want %q", got, tt.params)
			}
		})
	}
}

func TestRender(t *testing.T) {
	const argsJSON = `{"s":"a b; $(rm -rf /) {{ input.s }} ${HOME}","n":42,"f":-1.5e3,"t":true,"no":false,"z":null,"o":{"k":[1,"x"]},"a":[1,2],"e":""}`
	tests := []struct {
		name    string
		src     string
		want    string
		wantErr string
	}{
		{name: "string verbatim, never expanded", src: "{{ input.s }}", want: "a b; $(rm -rf /) {{ input.s }} ${HOME}"},
		{name: "integer as JSON text", src: "-n{{ input.n }}", want: "-n42"},
		{name: "float as JSON text", src: "{{ input.f }}", want: "-1.5e3"},
		{name: "true", src: "{{ input.t }}", want: "true"},
		{name: "false", src: "{{ input.no }}", want: "false"},
		{name: "empty string", src: "[{{ input.e }}]", want: "[]"},
		{name: "json param object", src: "{{ json input.o }}", want: `{"k":[1,"x"]}`},
		{name: "json param string", src: "{{ json input.e }}", want: `""`},
		{name: "json input", src: "{{ json input }}", want: argsJSON},
		{name: "quoted literal", src: `{{ "{{" }}x`, want: "{{x"},
		{name: "null refused", src: "{{ input.z }}", wantErr: `"z" is null`},
		{name: "object refused", src: "{{ input.o }}", wantErr: "{{ json input.o }}"},
		{name: "array refused", src: "{{ input.a }}", wantErr: "an array"},
		{name: "missing parameter", src: "x{{ input.missing }}", wantErr: `"missing" is missing from the arguments`},
		{name: "missing parameter as json", src: "{{ json input.missing }}", wantErr: "is missing"},
	}
	a, err := decodeArgs(json.RawMessage(argsJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			el, err := parseElement(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := el.render(a)
			if tt.wantErr != "" {
				var re *renderError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &re) {
					t.Fatalf("render error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("render = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr bool
	}{
		{name: "object", raw: `{ "a" : 1 }`},
		{name: "array", raw: `[1]`, wantErr: true},
		{name: "null", raw: `null`, wantErr: true},
		{name: "garbage", raw: `{`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeArgs(json.RawMessage(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("decodeArgs(%s) error = %v, want error %v", tt.raw, err, tt.wantErr)
			}
		})
	}
}

func TestExpandVars(t *testing.T) {
	env := map[string]string{"HOME": "/home/op", "EMPTY": "", "A_1": "x"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		src     string
		want    string
		missing []string
		wantErr string
	}{
		{name: "no variables", src: "plain $ text", want: "plain $ text"},
		{name: "one", src: "${HOME}/src", want: "/home/op/src"},
		{name: "several", src: "${A_1}-${HOME}", want: "x-/home/op"},
		{name: "set but empty", src: "[${EMPTY}]", want: "[]"},
		{name: "escaped", src: "$${HOME}", want: "${HOME}"},
		{name: "dollar without brace", src: "$HOME", want: "$HOME"},
		{name: "missing", src: "${NOPE}/${ALSO}", want: "/", missing: []string{"NOPE", "ALSO"}},
		{name: "unterminated", src: "${HOME", wantErr: "without"},
		{name: "bad name", src: "${1X}", wantErr: "not a variable name"},
		{name: "empty name", src: "${}", wantErr: "not a variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missing, err := expandVars(tt.src, lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || strings.Join(missing, ",") != strings.Join(tt.missing, ",") {
				t.Fatalf("expandVars(%q) = %q, %q, %v; want %q, %q", tt.src, got, missing, err, tt.want, tt.missing)
			}
		})
	}
}

func TestQuoteArgv(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{name: "plain", argv: []string{"rg", "--json", "a/b.go"}, want: "rg --json a/b.go"},
		{name: "spaces", argv: []string{"echo", "a b"}, want: "echo 'a b'"},
		{name: "single quote", argv: []string{"it's"}, want: `'it'\''s'`},
		{name: "empty", argv: []string{""}, want: "''"},
		{name: "control character", argv: []string{"a\rb"}, want: `"a\rb"`},
		{name: "invisible character", argv: []string{"a\u200bb"}, want: `"a\u200bb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quoteArgv(tt.argv); got != tt.want {
				t.Fatalf("quoteArgv = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStderrTail(t *testing.T) {
	short := "oops\n"
	if got := stderrTail(short); got != "oops" {
		t.Fatalf("stderrTail(short) = %q", got)
	}
	long := strings.Repeat("é", maxStderrText) // 2 bytes each
	got := stderrTail(long)
	if !strings.HasPrefix(got, "[") || !strings.Contains(got, "earlier bytes left out]") {
		t.Fatalf("stderrTail(long) lacks the note: %.60q", got)
	}
	body := got[strings.IndexByte(got, '\n')+1:]
	if len(body) > maxStderrText || !strings.HasPrefix(body, "é") {
		t.Fatalf("tail is %d bytes starting %.8q", len(body), body)
	}
}
