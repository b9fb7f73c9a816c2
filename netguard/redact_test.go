package netguard

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

const token = "ghp_Zx9/Qk+42 tokenvalue"

// encodings are the ways a server may send a secret back.
var encodings = []struct {
	name string
	enc  func(string) string
}{
	{"literal", func(s string) string { return s }},
	{"reversed", reverse},
	{"hex", func(s string) string { return hex.EncodeToString([]byte(s)) }},
	{"HEX", func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) }},
	{"base64 std", func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }},
	{"base64 std raw", func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }},
	{"base64 url", func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }},
	{"base64 url raw", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }},
	{"base64 after 1 byte", func(s string) string { return base64.StdEncoding.EncodeToString([]byte("x" + s + "tail")) }},
	{"base64 after 2 bytes", func(s string) string { return base64.StdEncoding.EncodeToString([]byte("xy" + s + "tail")) }},
	{"base64 after 3 bytes", func(s string) string { return base64.URLEncoding.EncodeToString([]byte("xyz" + s)) }},
	{"base64 wrapped at 4", func(s string) string { return wrap(base64.StdEncoding.EncodeToString([]byte(s)), 4, "\r\n") }},
	{"base64 in JSON with escaped breaks", func(s string) string { return wrap(base64.StdEncoding.EncodeToString([]byte(s)), 8, `\n`) }},
	{"query escape", url.QueryEscape},
	{"path escape", url.PathEscape},
	{"every byte percent-encoded", func(s string) string {
		var b strings.Builder
		for i := range len(s) {
			b.WriteString("%" + strings.ToLower(hex.EncodeToString([]byte{s[i]})))
		}
		return b.String()
	}},
	{"JSON unicode escapes", func(s string) string {
		var b strings.Builder
		for i := range len(s) {
			b.WriteString(`\u00` + hex.EncodeToString([]byte{s[i]}))
		}
		return b.String()
	}},
	{"JSON escaped slash", func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
}

func wrap(s string, n int, sep string) string {
	var parts []string
	for len(s) > n {
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return strings.Join(append(parts, s), sep)
}

func TestRedactorEncodings(t *testing.T) {
	r := NewRedactor(Secret{Name: "GH", Value: token})
	for _, e := range encodings {
		t.Run(e.name, func(t *testing.T) {
			body := `{"echo":"` + e.enc(token) + `","other":"kept"}`
			got := r.String(body)
			if !strings.Contains(got, "[secret GH]") || !strings.Contains(got, `"other":"kept"`) {
				t.Fatalf("String(%q) = %q", body, got)
			}
			for _, form := range forms(token) {
				if strings.Contains(got, form) {
					t.Fatalf("String(%q) = %q still holds %q", body, got, form)
				}
			}
		})
	}
}

func TestRedactorLeavesOtherText(t *testing.T) {
	r := NewRedactor(Secret{Name: "K", Value: "s3cr3t-value-1234"}, Secret{Name: "SHORT", Value: "abc"}, Secret{Name: "EMPTY"})
	tests := []struct{ in, want string }{
		{"nothing here", "nothing here"},
		{"", ""},
		{"key=s3cr3t-value-1234;", "key=[secret K];"},
		{"abc and abcabc", "[secret SHORT] and [secret SHORT]"},
		// A short value is hidden literally only: "cba" (reversed) and the
		// hex "616263" are ordinary text.
		{"cba 616263", "cba 616263"},
		// Adjacent and overlapping matches become one stretch.
		{"s3cr3t-value-1234s3cr3t-value-1234", "[secret K]"},
		{"%73%33cr3t-value-1234", "[secret K]"},
		{"s3cr3t-value-123", "s3cr3t-value-123"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilR *Redactor
	if nilR.String("x") != "x" || !nilR.Empty() || !NewRedactor().Empty() || (&Redactor{}).String("y") != "y" {
		t.Error("an empty redactor changed text")
	}
	b := []byte("no secret")
	if got := r.Bytes(b); &got[0] != &b[0] {
		t.Error("Bytes copied a text without secrets")
	}
	if got := string(r.Bytes([]byte("abc"))); got != "[secret SHORT]" {
		t.Errorf("Bytes = %q", got)
	}
}

func TestRedactorNamesTheLongerSecret(t *testing.T) {
	r := NewRedactor(Secret{Name: "PART", Value: "tokenvalue"}, Secret{Name: "WHOLE", Value: "Bearer tokenvalue"})
	if got := r.String("auth: Bearer tokenvalue."); got != "auth: [secret WHOLE]." {
		t.Errorf("got %q", got)
	}
}

func TestRedactorSecretInsideItsReplacement(t *testing.T) {
	// A secret that is part of its own replacement text shows there, and
	// only there: the replacement says nothing about it.
	tests := []struct{ name, value, in, want string }{
		{"x", "[secret x]", "a [secret x] b", "a [secret x] b"},
		{"tools.github.token", "tok", "Bearer tok; tok", "Bearer [secret tools.github.token]; [secret tools.github.token]"},
	}
	for _, tt := range tests {
		r := NewRedactor(Secret{Name: tt.name, Value: tt.value})
		got, marks := r.redact(tt.in)
		if got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		assertOnlyInMarks(t, got, marks, tt.value)
	}
}

// assertOnlyInMarks fails when a form of v occurs in s outside the
// replacements.
func assertOnlyInMarks(t *testing.T, s string, marks []span, v string) {
	t.Helper()
	for _, form := range forms(v) {
		for off := 0; ; {
			i := strings.Index(s[off:], form)
			if i < 0 {
				break
			}
			i += off
			if !within(marks, i, i+len(form)) {
				t.Fatalf("%q still holds %q (a form of %q) at %d, outside the replacements %v", s, form, v, i, marks)
			}
			off = i + 1
		}
	}
}

// forms lists the exact encodings of v that must never survive.
func forms(v string) []string {
	out := []string{v}
	if len(v) < MinEncodedSecret {
		return out
	}
	out = append(out, reverse(v), hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))),
		url.QueryEscape(v), url.PathEscape(v))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for align := range 3 {
			if c := base64Core(enc, v, align); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

func FuzzRedactor(f *testing.F) {
	f.Add("s3cr3t-value", "x", uint8(0), "prefix ", " suffix")
	f.Add("abc", "abc", uint8(1), "%61bc", "")
	f.Add(token, "GH", uint8(4), `{"a":"`, `"}`)
	f.Add("[secret x]", "x", uint8(0), "[secret x", "]")
	f.Add("ecret", "secret", uint8(0), "[s", "]")
	f.Add("aaaaaaaaaaaa", "a", uint8(9), "aaaa", "aa")
	f.Fuzz(func(t *testing.T, value, name string, enc uint8, before, after string) {
		r := NewRedactor(Secret{Name: name, Value: value}, Secret{Name: "other", Value: "0123456789abcdef"})
		body := before + encodings[int(enc)%len(encodings)].enc(value) + after
		got, marks := r.redact(body)
		if value == "" || got == Withheld {
			return
		}
		assertOnlyInMarks(t, got, marks, value)
		if got != r.String(body) {
			t.Fatal("String and redact disagree")
		}
	})
}

// BenchmarkRedactor scans a 200 KiB JSON-like body without secrets for
// three secrets in every form, against the literal-only strings.Replacer
// http_request used before (the baseline).
func BenchmarkRedactor(b *testing.B) {
	values := []string{token, "another-secret-value", "sk-live-0123456789"}
	body := strings.Repeat(`{"id": 12345, "name": "some name", "url": "https://example.com/a/b?c=d%20e", "data": "aGVsbG8gd29ybGQ="}`+"\n", 2000)
	b.Run("redactor", func(b *testing.B) {
		r := NewRedactor(Secret{Name: "A", Value: values[0]}, Secret{Name: "B", Value: values[1]}, Secret{Name: "C", Value: values[2]})
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			_ = r.String(body)
		}
	})
	b.Run("literal-replacer", func(b *testing.B) {
		r := strings.NewReplacer(values[0], "[secret A]", values[1], "[secret B]", values[2], "[secret C]")
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			_ = r.Replace(body)
		}
	})
}
