package locales

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

func TestFormatGolden(t *testing.T) {
	in := filepath.Join("testdata", "format", "input.ftl")
	golden := filepath.Join("testdata", "format", "output.golden")
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseFTL(in, src)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Format()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./locales -run TestFormatGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Format() differs from %s (rerun with -update if the change is intended)\n got:\n%s\nwant:\n%s", golden, got, want)
	}
	again, err := ParseFTL(golden, got)
	if err != nil {
		t.Fatalf("formatted output does not parse: %v", err)
	}
	if !sameMessages(res.Messages, again.Messages) {
		t.Errorf("formatted output parses to other messages\n got %#v\nwant %#v", plain(again.Messages), plain(res.Messages))
	}
}

func TestFormatMessageRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string // expected source; empty to check only the round trip
	}{
		{name: "plain", msg: Message{ID: "a", Value: "text"}, want: "a = text\n"},
		{name: "variable", msg: Message{ID: "a", Value: "Hi {$name}"}, want: "a = Hi { $name }\n"},
		{name: "braces", msg: Message{ID: "a", Value: `{"{"}x{"}"}`}, want: "a = {\"{\"}x{\"}\"}\n"},
		{name: "leading and trailing spaces", msg: Message{ID: "a", Value: "  x  "}, want: "a = {\"  \"}x{\"  \"}\n"},
		{name: "only spaces", msg: Message{ID: "a", Value: "   "}, want: "a = {\"   \"}\n"},
		{name: "multiline", msg: Message{ID: "a", Value: "one\n  two\n\nthree"}, want: "a =\n    one\n    {\"  \"}two\n    {\"\"}\n    three\n"},
		{name: "leading newline", msg: Message{ID: "a", Value: "\nx"}},
		{name: "trailing newline", msg: Message{ID: "a", Value: "x\n"}},
		{name: "continuation starting with syntax", msg: Message{ID: "a", Value: "x\n[y\n*z\n.w"}},
		{name: "carriage return", msg: Message{ID: "a", Value: "x\r\ny\r"}},
		{name: "quotes and backslashes in literals", msg: Message{ID: "a", Value: " \"\\ "}},
		{name: "variable at line start", msg: Message{ID: "a", Value: "x\n{$v} y"}},
		{name: "comment", msg: Message{ID: "a", Value: "x", Comment: "first\n\n  indented"}, want: "# first\n#\n#   indented\na = x\n"},
		{name: "attributes sorted", msg: Message{ID: "a", Value: "x", Attributes: map[string]string{"z": "1", "b": "two\nlines"}},
			want: "a = x\n    .b =\n        two\n        lines\n    .z = 1\n"},
		{name: "attributes only", msg: Message{ID: "a", Attributes: map[string]string{"t": "x"}}, want: "a =\n    .t = x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := FormatMessage(tt.msg)
			if tt.want != "" && src != tt.want {
				t.Errorf("FormatMessage\n got %q\nwant %q", src, tt.want)
			}
			res, err := ParseFTL("round.ftl", []byte(src))
			if err != nil {
				t.Fatalf("formatted %q does not parse: %v", src, err)
			}
			want := tt.msg
			want.Vars = patternVars(want.Value)
			if !sameMessages([]Message{want}, res.Messages) {
				t.Errorf("round trip of %q\n got %#v\nwant %#v", src, plain(res.Messages), plain([]Message{want}))
			}
		})
	}
}

// sameMessages compares messages by content, ignoring line numbers.
func sameMessages(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Value != y.Value || x.Comment != y.Comment || !reflect.DeepEqual(x.Vars, y.Vars) {
			return false
		}
		if len(x.Attributes) != len(y.Attributes) || (len(x.Attributes) > 0 && !reflect.DeepEqual(x.Attributes, y.Attributes)) {
			return false
		}
	}
	return true
}
