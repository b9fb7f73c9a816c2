//go:build wasip1

// Command servlet-go is an MCP servlet for Extism hosts, talon among them:
// two text tools, word_count and reverse_text. It is built with the
// standard Go toolchain, against the Extism kernel's imports (package
// kernel), as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o textkit.wasm .
//
// The same file runs in talon (kind = "extism") and in Extism's own hosts.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/talonhq/talon/plugins/examples/servlet-go/kernel"
	"github.com/talonhq/talon/plugins/examples/servlet-go/servlet"
)

func main() {}

//go:wasmexport describe
func describe() int32 { return servlet.Describe() }

//go:wasmexport call
func call() int32 { return servlet.Call() }

// textArgs are both tools' arguments.
type textArgs struct {
	Text string `json:"text"`
}

var textSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text."}},"required":["text"]}`)

func init() {
	servlet.Register(servlet.Tool{
		Name:        "word_count",
		Description: "Count the words, lines and characters of a text.",
		InputSchema: textSchema,
		Run: func(raw json.RawMessage) (servlet.Result, error) {
			var in textArgs
			if err := json.Unmarshal(raw, &in); err != nil {
				return servlet.Result{}, fmt.Errorf("bad arguments: %w", err)
			}
			counts := struct {
				Words int `json:"words"`
				Lines int `json:"lines"`
				Chars int `json:"chars"`
			}{len(strings.FieldsFunc(in.Text, unicode.IsSpace)), strings.Count(in.Text, "\n"), utf8.RuneCountInString(in.Text)}
			if in.Text != "" && !strings.HasSuffix(in.Text, "\n") {
				counts.Lines++
			}
			kernel.Log(kernel.Debug, fmt.Sprintf("counted %d words", counts.Words))
			res := servlet.Text(fmt.Sprintf("%s, %s, %s", plural(counts.Words, "word"), plural(counts.Lines, "line"), plural(counts.Chars, "character")))
			res.StructuredContent = counts
			return res, nil
		},
	})
	servlet.Register(servlet.Tool{
		Name:        "reverse_text",
		Description: "Reverse a text, character by character.",
		InputSchema: textSchema,
		Run: func(raw json.RawMessage) (servlet.Result, error) {
			var in textArgs
			if err := json.Unmarshal(raw, &in); err != nil {
				return servlet.Result{}, fmt.Errorf("bad arguments: %w", err)
			}
			if in.Text == "" {
				return servlet.Errorf("text is empty: pass the text to reverse"), nil
			}
			r := []rune(in.Text)
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
			return servlet.Text(string(r)), nil
		},
	})
}

// plural writes n with its noun: "1 line", "2 words".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
