package workspace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/talonhq/talon/workspace"
)

func ExampleRoot_Resolve() {
	dir, _ := os.MkdirTemp("", "talon-ws-")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, "notes"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "notes", "todo.md"), []byte("- ship\n"), 0o644)

	root, err := workspace.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	abs, err := root.Resolve("notes/todo.md")
	fmt.Println(root.Rel(abs), err)

	_, err = root.Resolve("../../etc/passwd")
	fmt.Println(errors.Is(err, workspace.ErrOutsideWorkspace))
	// Output:
	// notes/todo.md <nil>
	// true
}

func ExampleRoot_ResolveForWrite() {
	dir, _ := os.MkdirTemp("", "talon-ws-")
	defer os.RemoveAll(dir)
	root, err := workspace.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Parents that do not exist yet are fine.
	abs, err := root.ResolveForWrite("reports/2024/q1.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = os.MkdirAll(filepath.Dir(abs), 0o755)
	if err := workspace.WriteFileAtomic(abs, []byte("# Q1\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(abs)
	fmt.Printf("%s: %q\n", root.Rel(abs), data)
	// Output:
	// reports/2024/q1.md: "# Q1\n"
}
