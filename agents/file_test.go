package agents_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/agents"
)

func TestParseFile(t *testing.T) {
	src := "\ufeff---\r\n" + `name: researcher
description: >
  Reads the workspace
  to answer a question.
model: local
tools: [file_read, glob_search]
subagents:
  - fact-checker
max_rounds: 6
timeout_seconds: 60
max_output_bytes: 4096
input_schema:
  type: object
  properties:
    question: {type: string, description: What to answer}
  required: [question]
---
Answer {{ input.question }}.
Literal {{ "{{" }} stays.
`
	f, err := agents.ParseFile("r.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "researcher" || f.Description != "Reads the workspace to answer a question." || f.Model != "local" ||
		!slices.Equal(f.Tools, []string{"file_read", "glob_search"}) || !slices.Equal(f.Subagents, []string{"fact-checker"}) ||
		f.MaxRounds != 6 || f.TimeoutSeconds != 60 || f.MaxOutputBytes != 4096 {
		t.Errorf("file = %+v", f)
	}
	var schema map[string]any
	if err := json.Unmarshal(f.InputSchema, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema = %s", f.InputSchema)
	}
	if f.Line("model") != 6 || f.Line("input_schema") != 13 {
		t.Errorf("lines: model %d, input_schema %d", f.Line("model"), f.Line("input_schema"))
	}
	got := f.Prompt.Render(map[string]any{"question": "why?"})
	if got != "Answer why?.\nLiteral {{ stays.\n" {
		t.Errorf("render = %q", got)
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		want      string
		noFront   bool
	}{
		{name: "no front matter", src: "# Title\n", line: 1, want: "no front matter", noFront: true},
		{name: "unclosed", src: "---\nname: x\n", line: 1, want: "no closing --- line"},
		{name: "not a mapping", src: "---\n- a\n---\nhi\n", line: 2, want: "must be a mapping"},
		{name: "key twice", src: "---\nmodel: a\nmodel: b\n---\nhi\n", line: 3, want: "model is set twice"},
		{name: "negative", src: "---\nmax_rounds: -1\n---\nhi\n", line: 2, want: "must be positive"},
		{name: "float", src: "---\ntimeout_seconds: 1.5\n---\nhi\n", line: 2, want: "whole number"},
		{name: "empty name in list", src: "---\ntools: [a, '']\n---\nhi\n", line: 2, want: "names only"},
		{name: "schema key not text", src: "---\ninput_schema:\n  type: object\n  1: x\n---\nhi\n", line: 2, want: "not text"},
		{name: "unclosed placeholder", src: "---\n---\nhello {{ input\n", line: 3, want: "no closing }}"},
		{name: "too big", src: "---\n---\n" + strings.Repeat("x", agents.MaxFileBytes), want: "at most"},
		{name: "alias bomb", src: "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n---\nhi\n", want: "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agents.ParseFile("a.md", []byte(tt.src))
			var fe *agents.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a FileError", err)
			}
			if !strings.Contains(fe.Msg, tt.want) || (tt.line != 0 && fe.Line != tt.line) {
				t.Errorf("err = %v, want line %d, %q", err, tt.line, tt.want)
			}
			if errors.Is(err, agents.ErrNoFrontMatter) != tt.noFront {
				t.Errorf("ErrNoFrontMatter = %v", errors.Is(err, agents.ErrNoFrontMatter))
			}
		})
	}
}

func TestTemplate(t *testing.T) {
	tests := []struct {
		src   string
		input any
		want  string
	}{
		{src: "{{ input }}", input: "plain text", want: "plain text"},
		{src: "{{input}}", input: map[string]any{"a": 1.0}, want: `{"a":1}`},
		{src: "[{{ input }}]", input: []any{"x", true}, want: `[["x",true]]`},
		{src: "{{ input.a.b }}/{{ input.missing }}/{{ input.a.c }}", input: map[string]any{"a": map[string]any{"b": "deep", "c": nil}}, want: "deep//"},
		{src: "{{ input.x }}", input: "not an object", want: ""},
		{src: `{{ "}}" }} and {{ "\"" }}`, input: nil, want: `}} and "`},
		{src: "no placeholders", input: "x", want: "no placeholders"},
	}
	for _, tt := range tests {
		tpl, err := agents.ParseTemplate(tt.src, 1)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if got := tpl.Render(tt.input); got != tt.want {
			t.Errorf("%q with %v = %q, want %q", tt.src, tt.input, got, tt.want)
		}
	}
	for _, bad := range []string{"{{ json input }}", "{{ input. }}", "{{ input.a b }}", "{{ other }}", `{{ "unterminated }}`} {
		if _, err := agents.ParseTemplate(bad, 1); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte(researcher))
	f.Add([]byte("---\ninput_schema:\n  type: object\n  properties:\n    q: {type: string}\n---\n{{ input.q }}\n"))
	f.Add([]byte("---\na: &a [x]\nb: [*a, *a]\n---\n{{ \"{{\" }}\n"))
	f.Add([]byte("---\n---\n{{"))
	f.Add([]byte("---\ntools: !!binary aGk=\n---\nx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := agents.ParseFile("f.md", data)
		if err != nil {
			var fe *agents.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if file.InputSchema != nil && !json.Valid(file.InputSchema) {
			t.Fatalf("input_schema is not JSON: %s", file.InputSchema)
		}
		_ = file.Prompt.Render(map[string]any{"q": "x"})
		_, _ = agents.ParseLocalized("f.ja.md", data)
	})
}
