package main

import (
	"strings"
	"testing"

	"github.com/talonhq/talon/models/modeltest"
)

// docModelURL is the model endpoint the documents configure (Ollama's
// default); the docs test serves a scripted model there instead.
const docModelURL = "http://127.0.0.1:11434/v1"

// docModels are the scripted model turns of the documents that run
// agents, by file name: each console block of the document gets a server
// playing this script from the start.
var docModels = map[string]string{
	"agents.md": `{"qwen2.5:7b": [
		{"calls": [{"name": "content_search", "args": "{\"pattern\":\"launch\"}"}], "input_tokens": 412, "output_tokens": 21},
		{"calls": [{"name": "file_read", "args": "{\"path\":\"notes/launch.md\"}"}], "input_tokens": 530, "output_tokens": 18},
		{"text": "The launch is on Tuesday 14 May, after the security review (notes/launch.md).", "input_tokens": 601, "output_tokens": 24}
	]}`,
}

// docModel is the scripted model of one console block, if its document
// has one.
type docModel struct{ url string }

func startDocModel(t *testing.T, doc string) docModel {
	t.Helper()
	script, ok := docModels[doc]
	if !ok {
		return docModel{}
	}
	srv := modeltest.New(modeltest.OpenAI)
	t.Cleanup(srv.Close)
	if err := srv.LoadScript([]byte(script)); err != nil {
		t.Fatal(err)
	}
	return docModel{url: srv.URL}
}

// replace points text at the scripted model.
func (m docModel) replace(s string) string {
	if m.url == "" {
		return s
	}
	return strings.ReplaceAll(s, docModelURL, m.url)
}
