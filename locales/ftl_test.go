package locales

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// plain drops the unexported bookkeeping so messages compare by content.
func plain(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.attrLines = nil
		out[i] = m
	}
	return out
}

func TestParseFTL(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Message
	}{
		{
			name: "empty file",
			src:  "",
			want: []Message{},
		},
		{
			name: "simple message",
			src:  "hello = Hello, world!\n",
			want: []Message{{ID: "hello", Value: "Hello, world!", Line: 1}},
		},
		{
			name: "no final newline and no spaces around =",
			src:  "a=b",
			want: []Message{{ID: "a", Value: "b", Line: 1}},
		},
		{
			name: "variables with and without spaces",
			src:  "greet = Hi { $name }, you have {$count} new {  $name  }\n",
			want: []Message{{ID: "greet", Value: "Hi {$name}, you have {$count} new {$name}", Vars: []string{"count", "name"}, Line: 1}},
		},
		{
			name: "id characters",
			src:  "tool-file_read-2 = x\n",
			want: []Message{{ID: "tool-file_read-2", Value: "x", Line: 1}},
		},
		{
			name: "inline start with continuation lines",
			src:  "multi = First line\n    second line\n      indented more\n",
			want: []Message{{ID: "multi", Value: "First line\nsecond line\n  indented more", Line: 1}},
		},
		{
			name: "block value starting on the next line",
			src:  "block =\n    one\n    two\n",
			want: []Message{{ID: "block", Value: "one\ntwo", Line: 1}},
		},
		{
			name: "blank line inside a value is kept, trailing ones are not",
			src:  "gap = a\n\n    b\n\n\nnext = c\n",
			want: []Message{{ID: "gap", Value: "a\n\nb", Line: 1}, {ID: "next", Value: "c", Line: 6}},
		},
		{
			name: "leading blank lines of a block value are dropped",
			src:  "lead =\n\n    text\n",
			want: []Message{{ID: "lead", Value: "text", Line: 1}},
		},
		{
			name: "attributes",
			src:  "login = Log in\n    .title = Sign in as { $user }\n    .aria = Login\n        button\n",
			want: []Message{{
				ID: "login", Value: "Log in", Line: 1,
				Attributes: map[string]string{"title": "Sign in as {$user}", "aria": "Login\nbutton"},
			}},
		},
		{
			name: "attributes only",
			src:  "form =\n    .label = Name\n",
			want: []Message{{ID: "form", Attributes: map[string]string{"label": "Name"}, Line: 1}},
		},
		{
			name: "blank line before an attribute",
			src:  "m = v\n\n    .a = b\n",
			want: []Message{{ID: "m", Value: "v", Attributes: map[string]string{"a": "b"}, Line: 1}},
		},
		{
			name: "comments",
			src:  "### resource\n## group\n# attached\n#\n# second line\nmsg = x\n",
			want: []Message{{ID: "msg", Value: "x", Comment: "attached\n\nsecond line", Line: 6}},
		},
		{
			name: "comment separated by a blank line is not attached",
			src:  "# standalone\n\nmsg = x\n",
			want: []Message{{ID: "msg", Value: "x", Line: 3}},
		},
		{
			name: "group comment ends a message comment",
			src:  "# dropped\n## group\nmsg = x\n",
			want: []Message{{ID: "msg", Value: "x", Line: 3}},
		},
		{
			name: "string literals",
			src:  `brace = Use {"{"} and {"}"} here{"\u00A0"}x {"\\"} {"\""} {"\U01F600"}` + "\n",
			want: []Message{{ID: "brace", Value: "Use {\"{\"} and {\"}\"} here\u00a0x \\ \" \U0001F600", Line: 1}},
		},
		{
			name: "string literal keeps leading spaces",
			src:  `sp = {"  "}indented` + "\n",
			want: []Message{{ID: "sp", Value: "  indented", Line: 1}},
		},
		{
			name: "trailing spaces are trimmed",
			src:  "trim = text   \n    more  \n",
			want: []Message{{ID: "trim", Value: "text\nmore", Line: 1}},
		},
		{
			name: "CRLF line endings and a byte order mark",
			src:  "\uFEFFa = one\r\n    two\r\nb = three\r\n",
			want: []Message{{ID: "a", Value: "one\ntwo", Line: 1}, {ID: "b", Value: "three", Line: 3}},
		},
		{
			name: "inline value may start with a dot or bracket",
			src:  "dot = .starts [with] *marks\n",
			want: []Message{{ID: "dot", Value: ".starts [with] *marks", Line: 1}},
		},
		{
			name: "indented hash is text",
			src:  "h = a\n    # not a comment\n",
			want: []Message{{ID: "h", Value: "a\n# not a comment", Line: 1}},
		},
		{
			name: "japanese text",
			src:  "ja = ファイルを読みます({ $path })\n",
			want: []Message{{ID: "ja", Value: "ファイルを読みます({$path})", Vars: []string{"path"}, Line: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseFTL("test.ftl", []byte(tt.src))
			if err != nil {
				t.Fatalf("ParseFTL: %v", err)
			}
			got := plain(res.Messages)
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseFTLErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		want string // substring of the message
	}{
		{name: "term definition", src: "-brand = Talon\n", line: 1, want: "terms"},
		{name: "term reference", src: "a = x\nb = { -brand }\n", line: 2, want: "terms"},
		{name: "message reference", src: "a = { other }\n", line: 1, want: "message references"},
		{name: "function", src: "a = { NUMBER($n) }\n", line: 1, want: "functions"},
		{name: "select expression", src: "a = { $n ->\n", line: 1, want: "select expressions"},
		{name: "number literal", src: "a = { 42 }\n", line: 1, want: "inside braces"},
		{name: "unclosed placeable", src: "a = {$x\n", line: 1, want: `expected "}"`},
		{name: "unclosed brace at end", src: "a = x {\n", line: 1, want: `unclosed "{"`},
		{name: "stray closing brace", src: "a = x\nb = y }\n", line: 2, want: `unexpected "}"`},
		{name: "missing equals", src: "hello world\n", line: 1, want: `expected "="`},
		{name: "id starting with a digit", src: "1abc = x\n", line: 1, want: "expected a message"},
		{name: "duplicate id", src: "a = x\n\na = y\n", line: 3, want: "already defined on line 1"},
		{name: "duplicate attribute", src: "a = x\n    .t = 1\n    .t = 2\n", line: 3, want: "already defined on line 2"},
		{name: "no value", src: "a =\n", line: 1, want: "has no value"},
		{name: "empty value", src: `a = {""}` + "\n", line: 1, want: "empty value"},
		{name: "indented line outside a message", src: "# c\n  stray\n", line: 2, want: "outside a message"},
		{name: "tab indentation", src: "a = x\n\tmore\n", line: 2, want: "tab"},
		{name: "variant line", src: "a = x\n    [one] y\n", line: 2, want: "cannot start with"},
		{name: "default variant line", src: "a =\n    *[other] y\n", line: 2, want: "cannot start with"},
		{name: "comment without space", src: "#bad\n", line: 1, want: "space after #"},
		{name: "too many hashes", src: "#### x\n", line: 1, want: "too many #"},
		{name: "unterminated string literal", src: `a = {"abc}` + "\n", line: 1, want: "unterminated string literal"},
		{name: "unknown escape", src: `a = {"\n"}` + "\n", line: 1, want: "unknown escape"},
		{name: "bad hex escape", src: `a = {"\uZZZZ"}` + "\n", line: 1, want: "hex digits"},
		{name: "short hex escape", src: `a = {"\u12"}`, line: 1, want: "hex digits"},
		{name: "surrogate escape", src: `a = {"\uD800"}` + "\n", line: 1, want: "not a valid Unicode character"},
		{name: "escape past the end", src: `a = {"\`, line: 1, want: "unterminated string literal"},
		{name: "invalid UTF-8", src: "a = x\nb = \xff\n", line: 2, want: "invalid UTF-8"},
		{name: "attribute without a name", src: "a = x\n    . = y\n", line: 2, want: "attribute name"},
		{name: "attribute without equals", src: "a = x\n    .t y\n", line: 2, want: `expected "=" after attribute`},
		{name: "attribute without value", src: "a = x\n    .t =\n", line: 2, want: "attribute .t has no value"},
		{name: "variable without a name", src: "a = { $ }\n", line: 1, want: "variable name"},
		{name: "error on a continuation line", src: "a = fine\n    still fine\n    broken }\n", line: 3, want: `unexpected "}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFTL("ja/tools.ftl", []byte(tt.src))
			if err == nil {
				t.Fatal("ParseFTL succeeded; want an error")
			}
			pe, ok := errors.AsType[*ParseError](err)
			if !ok {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error does not wrap ErrSyntax")
			}
			if pe.Line != tt.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tt.line, err)
			}
			if !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("message %q does not contain %q", pe.Msg, tt.want)
			}
			if prefix := "ja/tools.ftl:"; !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
		})
	}
}

func TestParseFTLTooLarge(t *testing.T) {
	data := []byte("a = " + strings.Repeat("x", MaxFileSize))
	_, err := ParseFTL("big.ftl", data)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestParseErrorWithoutFile(t *testing.T) {
	_, err := ParseFTL("", []byte("a =\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Fatalf("err = %v, want it to start with %q", err, "line 1: ")
	}
}

func TestEntries(t *testing.T) {
	src := "# untranslated\nm = Hi { $a }\n    .z = Z { $b }\n    .a = A\n\nn =\n    .only = x\n"
	res, err := ParseFTL("x.ftl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Key: "m", Pattern: "Hi {$a}", Vars: []string{"a"}, Line: 2, Untranslated: true},
		{Key: "m.a", Pattern: "A", Line: 4, Untranslated: true},
		{Key: "m.z", Pattern: "Z {$b}", Vars: []string{"b"}, Line: 3, Untranslated: true},
		{Key: "n.only", Pattern: "x", Line: 7},
	}
	if got := res.Entries(); !reflect.DeepEqual(got, want) {
		t.Errorf("Entries\n got %#v\nwant %#v", got, want)
	}
}

func TestUntranslated(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		want    bool
	}{
		{name: "no comment", comment: "", want: false},
		{name: "marker", comment: "untranslated", want: true},
		{name: "marker among other lines", comment: "context\n  Untranslated ", want: true},
		{name: "other words", comment: "translated by hand", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Message{Comment: tt.comment}).Untranslated(); got != tt.want {
				t.Errorf("Untranslated() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []element
	}{
		{name: "text", in: "abc", want: []element{{text: "abc"}}},
		{name: "variable", in: "a {$x} b", want: []element{{text: "a "}, {variable: "x"}, {text: " b"}}},
		{name: "escaped braces", in: `{"{"}x{"}"}`, want: []element{{text: "{x}"}}},
		{name: "malformed placeholders stay text", in: "{$} {$1} {$x {", want: []element{{text: "{$} {$1} {$x {"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseCanonical(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseCanonical(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{name: "letters", id: "abc", want: true},
		{name: "hyphens underscores digits", id: "tool-x_1", want: true},
		{name: "empty", id: "", want: false},
		{name: "leading digit", id: "1a", want: false},
		{name: "leading hyphen", id: "-a", want: false},
		{name: "dot", id: "a.b", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidID(tt.id); got != tt.want {
				t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}
