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

func ExampleRoot_WriteFile() {
	dir, _ := os.MkdirTemp("", "talon-ws-")
	defer os.RemoveAll(dir)
	root, err := workspace.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	real, created, err := root.WriteFile("notes/todo.md", []byte("- ship\n"), 0o644)
	fmt.Println(root.Rel(real), created, err)
	f, err := root.Open("notes/todo.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.Read(b)
	fmt.Printf("%q\n", b[:n])
	// Output:
	// notes/todo.md true <nil>
	// "- ship\n"
}

func ExampleNewProtected() {
	home, _ := os.MkdirTemp("", "talon-home-")
	defer os.RemoveAll(home)
	_ = os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	_ = os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("key"), 0o600)

	prot := workspace.NewProtected(workspace.Locations{Home: home})
	root, err := workspace.Open(home, workspace.Options{Protected: prot})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = root.Open(".ssh/id_ed25519")
	fmt.Println(err)
	_, _, err = root.WriteFile(".git/hooks/pre-commit", []byte("#!/bin/sh\n"), 0o755)
	fmt.Println(errors.Is(err, workspace.ErrProtected))
	// Output:
	// .ssh/id_ed25519 is protected (operator secrets under ~/.ssh): talon never lets a tool read it
	// true
}

func ExampleCompilePattern() {
	p, err := workspace.CompilePattern("secrets/**", "/srv/app", "/home/me")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Match("/srv/app/secrets/db.txt"), p.Match("/srv/app/src/main.go"))
	// Output: true false
}
