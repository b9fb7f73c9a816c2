package web

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// contentKind is how a body can be shown as text.
type contentKind int

const (
	kindBinary contentKind = iota // cannot be shown as text
	kindHTML                      // converted to markdown unless raw
	kindText                      // shown as it is
)

// textTypes are the media types outside text/* shown as text.
var textTypes = map[string]bool{
	"application/json":                  true,
	"application/ld+json":               true,
	"application/x-ndjson":              true,
	"application/ndjson":                true,
	"application/xml":                   true,
	"application/javascript":            true,
	"application/ecmascript":            true,
	"application/x-yaml":                true,
	"application/yaml":                  true,
	"application/toml":                  true,
	"application/sql":                   true,
	"application/graphql":               true,
	"application/x-www-form-urlencoded": true,
}

// mediaType returns the lower-case media type of a Content-Type header
// value, and the header as given when it has one. With no usable header the
// type is sniffed from the body, and header is "".
func mediaType(header string, body []byte) (mt, declared string) {
	if header != "" {
		if t, _, err := mime.ParseMediaType(header); err == nil {
			return strings.ToLower(t), header
		}
	}
	t, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return t, ""
}

// classify says how a body of media type mt can be shown.
func classify(mt string) contentKind {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case strings.HasPrefix(mt, "text/"), textTypes[mt],
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return kindText
	}
	return kindBinary
}

// decodeText converts body to UTF-8. The encoding comes from a byte order
// mark or the declared Content-Type when there is one; otherwise a body
// that is valid UTF-8 is UTF-8, and anything else takes the encoding an
// HTML <meta> declares, or windows-1252. truncated says the body was cut,
// so a character cut at its end is dropped. ok is false for a body that is
// not text (it holds NUL bytes).
func decodeText(body []byte, declared string, truncated bool) (text, charsetName string, ok bool) {
	enc, name, certain := charset.DetermineEncoding(body, declared)
	if !certain {
		check := body
		if truncated {
			check = trimPartialRune(check)
		}
		if utf8.Valid(check) {
			enc, name = encoding.Nop, "utf-8"
		}
	}
	var out []byte
	if enc == encoding.Nop || name == "utf-8" {
		out = body
		if truncated {
			out = trimPartialRune(out)
		}
	} else {
		decoded, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			decoded = body
		}
		out = decoded
		if truncated {
			out = bytes.TrimRight(out, "\uFFFD")
		}
	}
	if bytes.IndexByte(out, 0) >= 0 {
		return "", name, false
	}
	return strings.TrimPrefix(strings.ToValidUTF8(string(out), "\uFFFD"), "\uFEFF"), name, true
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// newConverter builds the HTML-to-markdown converter: CommonMark with
// tables and strikethrough. Scripts, styles, the head, forms' inputs and
// iframes are dropped by the base plugin; graphics and embedded objects are
// dropped here. A Converter is safe for concurrent use.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, tag := range []string{"svg", "canvas", "template", "object", "embed", "button", "select"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
}

// htmlToMarkdown converts an HTML document (already UTF-8) to markdown,
// making relative links absolute against base. It returns the document's
// title too. The converter is third-party code fed with network input, so a
// panic in it becomes an error.
func htmlToMarkdown(ctx context.Context, conv *converter.Converter, doc string, base string) (md, title string, err error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return "", "", fmt.Errorf("parse html: %w", err)
	}
	title = prune(root)
	defer func() {
		if r := recover(); r != nil {
			md, err = "", fmt.Errorf("convert html: %v", r)
		}
	}()
	out, err := conv.ConvertNode(root, converter.WithDomain(base), converter.WithContext(ctx))
	if err != nil {
		return "", title, fmt.Errorf("convert html: %w", err)
	}
	return strings.TrimSpace(string(out)), title, nil
}

// prune removes images whose source is inline data (base64 that would
// flood the text) and returns the text of the first <title>.
func prune(n *html.Node) string {
	var title string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				switch c.DataAtom {
				case atom.Title:
					if title == "" {
						title = strings.Join(strings.Fields(textOf(c)), " ")
					}
				case atom.Img:
					if src := attr(c, "src"); strings.HasPrefix(strings.ToLower(strings.TrimSpace(src)), "data:") {
						n.RemoveChild(c)
						c = next
						continue
					}
				}
			}
			walk(c)
			c = next
		}
	}
	walk(n)
	return title
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
