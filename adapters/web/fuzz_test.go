package web

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRender feeds arbitrary bodies and content types, as a server could
// send them, through decoding and HTML conversion: nothing may panic, and
// whatever comes out is valid UTF-8.
func FuzzRender(f *testing.F) {
	f.Add([]byte(page), "text/html; charset=utf-8")
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"), "text/html")
	f.Add([]byte("\xff\xfeh\x00i\x00"), "text/plain")
	f.Add([]byte(`<table><tr><td rowspan=99999>x</td></tr></table>`), "")
	f.Add([]byte(`<img src="data:x"><a href="javascript:alert(1)">`+strings.Repeat("<div>", 600)), "application/xhtml+xml")
	f.Add([]byte("\x00\x01"), "text/plain; charset=bogus")
	conv := newConverter()
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		mt, declared := mediaType(ctype, body)
		kind := classify(mt)
		if kind == kindBinary {
			return
		}
		text, _, ok := decodeText(body, declared, len(body)%2 == 0)
		if !ok {
			return
		}
		if !utf8.ValidString(text) {
			t.Fatalf("decoded text is not UTF-8: %q", text)
		}
		if kind != kindHTML {
			return
		}
		md, title, err := htmlToMarkdown(context.Background(), conv, text, "https://example.com/a/")
		if err != nil {
			return
		}
		if !utf8.ValidString(md) || !utf8.ValidString(title) {
			t.Fatalf("markdown is not UTF-8: %q", md)
		}
	})
}
