package patch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/talonhq/talon/adapters/patch"
	"github.com/talonhq/talon/workspace"
)

const examplePatch = `diff --git a/greet.go b/greet.go
--- a/greet.go
+++ b/greet.go
@@ -1,3 +1,3 @@
 package greet
 
-const Hello = "hello"
+const Hello = "hello, world"
diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+# Notes
`

func ExampleApplyPatch_Execute() {
	dir, _ := os.MkdirTemp("", "talon-patch-example-")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\nconst Hello = \"hello\"\n"), 0o644)
	root, err := workspace.New(dir)
	if err != nil {
		panic(err)
	}
	ap := patch.New(root, patch.Options{})
	args, _ := json.Marshal(map[string]string{"patch": examplePatch})

	as, _ := ap.Assess(args)
	fmt.Println(as.Tier, len(as.Paths))
	res, _ := ap.Execute(context.Background(), args)
	fmt.Println(res.Output.Text)
	b, _ := os.ReadFile(filepath.Join(dir, "greet.go"))
	fmt.Print(string(b))
	// Output:
	// medium 2
	// applied 2 hunks to 2 files
	// modified greet.go (+1 -1)
	// created NOTES.md (+1 -0)
	// package greet
	//
	// const Hello = "hello, world"
}

func ExampleApplyPatch_Execute_rejected() {
	dir, _ := os.MkdirTemp("", "talon-patch-example-")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\nconst Hello = \"hi\"\n"), 0o644)
	root, _ := workspace.New(dir)
	ap := patch.New(root, patch.Options{})
	args, _ := json.Marshal(map[string]string{"patch": examplePatch})

	res, _ := ap.Execute(context.Background(), args)
	fmt.Println(res.Error)
	_, err := os.Stat(filepath.Join(dir, "NOTES.md"))
	fmt.Println("NOTES.md created:", err == nil)
	// Output:
	// the patch does not apply, so nothing was changed (1 problem):
	// greet.go: hunk 1 of 1 (@@ -1,3 +1,3 @@): its 3 context and removed lines were not found in the file; they must match exactly
	//   line 3: expected "const Hello = \"hello\""
	//           found    "const Hello = \"hi\""
	// re-read the files and make the patch from their current content
	// NOTES.md created: false
}
