package fsx_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestGolden runs a fixed session of calls against the fixture and compares
// the whole transcript (text, error and data of every result) with
// testdata/session.golden. Run with -update to rewrite it.
func TestGolden(t *testing.T) {
	f := newFixture(t)
	f.write(t, "ctx.txt", lines("a", "match 1", "b", "c", "d", "e", "match 2", "f")+"\n")
	tools := map[string]tool.Tool{}
	for _, tl := range allTools(f) {
		tools[tl.Spec().Name] = tl
	}
	session := []struct{ tool, args string }{
		{"file_read", `{"path":"src/main.go"}`},
		{"file_read", `{"path":"ctx.txt","offset":2,"limit":3}`},
		{"file_read", `{"path":"link-out-file"}`},
		{"glob_search", `{"pattern":"**/*.{go,md}"}`},
		{"glob_search", `{"pattern":"**","path":"src","max_results":1}`},
		{"content_search", `{"pattern":"match","path":"ctx.txt","context":1}`},
		{"content_search", `{"pattern":"todo","case_sensitive":false}`},
		{"content_search", `{"pattern":"(unclosed"}`},
		{"file_write", `{"path":"notes/todo.md","content":"- one\n- two\n"}`},
		{"file_edit", `{"path":"notes/todo.md","old_string":"- ","new_string":"* "}`},
		{"file_edit", `{"path":"notes/todo.md","old_string":"- ","new_string":"* ","replace_all":true}`},
		{"file_read", `{"path":"notes/todo.md"}`},
	}
	var b strings.Builder
	for _, c := range session {
		res := call(t, tools[c.tool], c.args)
		data, err := json.Marshal(res.Output.Data)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "### %s %s\nsuccess: %v\n", c.tool, c.args, res.Success)
		if res.Success {
			fmt.Fprintf(&b, "data: %s\n%s\n\n", data, res.Output.Text)
		} else {
			fmt.Fprintf(&b, "error: %s\n\n", res.Error)
		}
	}
	got := strings.ReplaceAll(b.String(), f.ws, "$WORKSPACE")
	golden := filepath.Join("testdata", "session.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v: run go test -run TestGolden -update to create it", err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (run with -update if the change is intended):\n%s", golden, got)
	}
}
