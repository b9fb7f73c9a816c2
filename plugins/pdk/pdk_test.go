//go:build !wasip1

package pdk

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	Register(Tool{
		Name:        "test_greet",
		Description: "Greets.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		Tier:        Low,
		Handler: Handle(func(in struct {
			Name string `json:"name"`
		}) (Result, error) {
			if in.Name == "" {
				return Result{}, errors.New("name is empty")
			}
			return Text("hello, " + in.Name), nil
		}),
	})
	Register(Tool{
		Name: "test_host",
		Handler: func(json.RawMessage) (Result, error) {
			units, err := ConfigString("units")
			if err != nil {
				return Result{}, err
			}
			token, err := Secret("TOKEN")
			if err != nil {
				return Result{}, err
			}
			resp, err := Get("https://api.example/x")
			if err != nil {
				return Result{}, err
			}
			if err := WriteFile("out/a.txt", []byte("data")); err != nil {
				return Result{}, err
			}
			b, err := ReadFile("out/a.txt")
			if err != nil {
				return Result{}, err
			}
			ents, err := ReadDir("out")
			if err != nil {
				return Result{}, err
			}
			Log(LevelWarn, "done")
			return JSON(map[string]any{"units": units, "token": len(token), "status": resp.Status, "file": string(b), "entries": len(ents)})
		},
	})
	Register(Tool{Name: "test_panic", Handler: func(json.RawMessage) (Result, error) { panic("boom") }})
}

func TestInvoke(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             string
		isError          bool
	}{
		{name: "ok", tool: "test_greet", args: `{"name":"Ada"}`, want: "hello, Ada"},
		{name: "handler error", tool: "test_greet", args: `{}`, want: "name is empty", isError: true},
		{name: "bad arguments", tool: "test_greet", args: `{"name":3}`, want: "bad arguments", isError: true},
		{name: "panic", tool: "test_panic", args: `{}`, want: "tool test_panic panicked: boom", isError: true},
		{name: "unknown", tool: "nope", args: `{}`, want: `unknown tool "nope"`, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Invoke(tt.tool, json.RawMessage(tt.args))
			if r.IsError != tt.isError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, tt.want) {
				t.Fatalf("Invoke = %+v", r)
			}
		})
	}
}

func TestHandleDocuments(t *testing.T) {
	out := handle([]byte(`{"name":"test_greet","arguments":{"name":"Bo"}}`))
	var r struct {
		Content []Content `json:"content"`
		IsError bool      `json:"isError"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.IsError || r.Content[0].Text != "hello, Bo" {
		t.Fatalf("handle = %s, %v", out, err)
	}
	if out := handle([]byte(`{`)); !strings.Contains(string(out), `"isError":true`) {
		t.Fatalf("handle of bad JSON = %s", out)
	}
	var d describeDoc
	if err := json.Unmarshal(describe(), &d); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tl := range d.Tools {
		names = append(names, tl.Name+":"+string(tl.Tier))
	}
	if got := strings.Join(names, ","); got != "test_greet:low,test_host:,test_panic:" {
		t.Fatalf("describe names = %s", got)
	}
	if string(d.Tools[1].InputSchema) != `{"type":"object"}` {
		t.Fatalf("default schema = %s", d.Tools[1].InputSchema)
	}
}

func TestFakeHost(t *testing.T) {
	dir := t.TempDir()
	fake := &Fake{
		Config:  map[string]any{"units": "metric"},
		Secrets: map[string]string{"TOKEN": "abc"},
		HTTP: func(r Request) (*Response, error) {
			if r.Method != "GET" || r.URL != "https://api.example/x" {
				return nil, errors.New("unexpected request")
			}
			return &Response{Status: 204}, nil
		},
		Dir: dir,
	}
	UseFake(fake)
	t.Cleanup(func() { UseFake(nil) })
	r := Invoke("test_host", nil)
	if r.IsError {
		t.Fatalf("test_host: %+v", r)
	}
	want := `{"entries":1,"file":"data","status":204,"token":3,"units":"metric"}`
	if r.Content[0].Text != want {
		t.Fatalf("text = %s, want %s", r.Content[0].Text, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "a.txt")); err != nil || string(b) != "data" {
		t.Fatalf("file = %q, %v", b, err)
	}
	if logs := fake.Logs(); len(logs) != 1 || logs[0] != "2: done" {
		t.Fatalf("logs = %q", logs)
	}
	// A grant the fake does not hold is the host's refusal.
	fake.Secrets = nil
	if r := Invoke("test_host", nil); !r.IsError || !strings.Contains(r.Content[0].Text, `host refused: secret "TOKEN" is not granted`) {
		t.Fatalf("without the secret: %+v", r)
	}
}

func TestNoHostOutsideWASM(t *testing.T) {
	UseFake(nil)
	_, err := Secret("X")
	if err == nil || !strings.Contains(err.Error(), "pdk.UseFake") {
		t.Fatalf("err = %v", err)
	}
}

// TestConfigNotSet: a key the plugin requests that the operator left out
// is ErrNotSet, told apart from a key it may not read (ErrHost).
func TestConfigNotSet(t *testing.T) {
	UseFake(&Fake{Config: map[string]any{"units": "metric", "limit": nil, "n": 3}})
	t.Cleanup(func() { UseFake(nil) })
	var n int
	if err := Config("n", &n); err != nil || n != 3 {
		t.Fatalf("n = %d, %v", n, err)
	}
	if _, err := ConfigString("limit"); !errors.Is(err, ErrNotSet) || errors.Is(err, ErrHost) {
		t.Fatalf("unset key: %v, want ErrNotSet", err)
	}
	if _, err := ConfigString("other"); !errors.Is(err, ErrHost) || errors.Is(err, ErrNotSet) {
		t.Fatalf("ungranted key: %v, want ErrHost", err)
	}
}
