package fsx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/workspace"
)

// exampleWorkspace makes a small workspace for the examples.
func exampleWorkspace() (*workspace.Root, func()) {
	dir, err := os.MkdirTemp("", "talon-fsx-")
	if err != nil {
		panic(err)
	}
	files := map[string]string{
		"go.mod":           "module example.com/demo\n\ngo 1.26\n",
		"cmd/demo/main.go": "package main\n\n// TODO: flags\nfunc main() {}\n",
		"notes/todo.md":    "- write docs\n- TODO release\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(content), 0o644)
	}
	root, err := workspace.New(dir)
	if err != nil {
		panic(err)
	}
	return root, func() { os.RemoveAll(dir) }
}

func ExampleReadFile_Execute() {
	root, cleanup := exampleWorkspace()
	defer cleanup()
	read := fsx.NewReadFile(root, fsx.ReadFileOptions{})
	res, _ := read.Execute(context.Background(), json.RawMessage(`{"path":"go.mod","limit":1}`))
	fmt.Println(res.Output.Text)
	// Output:
	//      1	module example.com/demo
	//
	// (showing lines 1-1 of 3; read on with offset 2)
}

func ExampleGlobSearch_Execute() {
	root, cleanup := exampleWorkspace()
	defer cleanup()
	glob := fsx.NewGlobSearch(root, fsx.GlobSearchOptions{})
	res, _ := glob.Execute(context.Background(), json.RawMessage(`{"pattern":"**/*.{go,md}"}`))
	fmt.Println(res.Output.Text)
	// Output:
	// cmd/demo/main.go
	// notes/todo.md
}

func ExampleContentSearch_Execute() {
	root, cleanup := exampleWorkspace()
	defer cleanup()
	search := fsx.NewContentSearch(root, fsx.ContentSearchOptions{})
	res, _ := search.Execute(context.Background(), json.RawMessage(`{"pattern":"TODO","include":["**/*.go"],"context":1}`))
	fmt.Println(res.Output.Text)
	// Output:
	// cmd/demo/main.go-2-
	// cmd/demo/main.go:3:// TODO: flags
	// cmd/demo/main.go-4-func main() {}
}

func ExampleWriteFile_Execute() {
	root, cleanup := exampleWorkspace()
	defer cleanup()
	write := fsx.NewWriteFile(root, fsx.WriteFileOptions{})
	args := json.RawMessage(`{"path":"docs/intro.md","content":"# Intro\n"}`)
	as, _ := write.Assess(args)
	fmt.Println(as.Tier, "|", as.Plan.Summary)
	res, _ := write.Execute(context.Background(), args)
	fmt.Println(res.Output.Text)
	// Output:
	// medium | write 8 bytes to docs/intro.md (new file)
	// wrote 8 bytes to docs/intro.md (new file)
}

func ExampleEditFile_Execute() {
	root, cleanup := exampleWorkspace()
	defer cleanup()
	edit := fsx.NewEditFile(root, fsx.EditFileOptions{})
	res, _ := edit.Execute(context.Background(), json.RawMessage(`{"path":"notes/todo.md","old_string":"- ","new_string":"* "}`))
	fmt.Println(res.Error)
	res, _ = edit.Execute(context.Background(), json.RawMessage(`{"path":"notes/todo.md","old_string":"- ","new_string":"* ","replace_all":true}`))
	fmt.Println(res.Output.Text)
	// Output:
	// old_string occurs 2 times in notes/todo.md: add surrounding lines to make it unique, or set replace_all to true to replace every occurrence
	// replaced 2 occurrences in notes/todo.md
}
