package fsx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
	"github.com/talonhq/talon/workspace/workspacetest"
)

func TestMain(m *testing.M) { workspacetest.Main(m) }

// raceAttempts is how many calls each tool makes while a directory of the
// workspace is swapped with a link to outside it.
const raceAttempts = 10000

// raceFixture is a workspace whose directory d a separate process keeps
// exchanging with s, a link to a directory outside:
//
//	base/ws/d/f         "inside\n"
//	base/ws/s -> ../out
//	base/out/f          "inside SECRET\n"  (an edit would apply here too)
//	base/out/only-outside.txt
type raceFixture struct {
	ws, out string
	root    *workspace.Root
}

func newRaceFixture(t *testing.T) *raceFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &raceFixture{ws: filepath.Join(base, "ws"), out: filepath.Join(base, "out")}
	mustWrite(t, filepath.Join(f.ws, "d", "f"), "inside\n")
	mustWrite(t, filepath.Join(f.out, "f"), "inside SECRET\n")
	mustWrite(t, filepath.Join(f.out, "only-outside.txt"), "SECRET\n")
	if err := os.Symlink("../out", filepath.Join(f.ws, "s")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	if f.root, err = workspace.New(f.ws); err != nil {
		t.Fatal(err)
	}
	workspacetest.Swap(t, filepath.Join(f.ws, "d"), filepath.Join(f.ws, "s"))
	return f
}

// outsideIntact fails the test when anything outside the workspace was
// changed or created.
func (f *raceFixture) outsideIntact(t *testing.T) {
	t.Helper()
	ents, err := os.ReadDir(f.out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"f", "only-outside.txt"}) {
		t.Errorf("outside the workspace now holds %d entries, want 2: %v", len(names), names)
	}
	if b, err := os.ReadFile(filepath.Join(f.out, "f")); err != nil || string(b) != "inside SECRET\n" {
		t.Errorf("out/f changed: %q, %v", b, err)
	}
}

// TestSwapRace drives every file tool while another process swaps a
// workspace directory with a link to outside (renameat2 RENAME_EXCHANGE in
// a loop): no call may read, list, search or change anything outside.
// Before the tools opened paths relative to the workspace's open
// directory, file_read returned the outside file in about 6% of calls and
// file_write created files outside.
func TestSwapRace(t *testing.T) {
	attempts := raceAttempts
	if testing.Short() {
		attempts = 500
	}
	tests := []struct {
		name string
		tool func(*workspace.Root) tool.Tool
		args func(i int) string
		// leaked reports a result that shows something from outside.
		leaked func(res tool.Result) bool
	}{
		{
			name: "file_read",
			tool: func(r *workspace.Root) tool.Tool { return fsx.NewReadFile(r, fsx.ReadFileOptions{}) },
			args: func(int) string { return `{"path":"d/f"}` },
		},
		{
			name: "glob_search",
			tool: func(r *workspace.Root) tool.Tool { return fsx.NewGlobSearch(r, fsx.GlobSearchOptions{}) },
			args: func(i int) string {
				if i%2 == 0 {
					return `{"pattern":"**","path":"d"}`
				}
				return `{"pattern":"d/**"}`
			},
			leaked: func(res tool.Result) bool { return strings.Contains(res.Output.Text, "only-outside") },
		},
		{
			name: "content_search",
			tool: func(r *workspace.Root) tool.Tool { return fsx.NewContentSearch(r, fsx.ContentSearchOptions{}) },
			args: func(i int) string {
				if i%2 == 0 {
					return `{"pattern":"inside|S[E]CRET","path":"d"}`
				}
				return `{"pattern":"inside|S[E]CRET","path":"d/f"}`
			},
		},
		{
			name: "file_write",
			tool: func(r *workspace.Root) tool.Tool { return fsx.NewWriteFile(r, fsx.WriteFileOptions{}) },
			args: func(i int) string {
				if i%2 == 0 {
					return fmt.Sprintf(`{"path":"d/w%d.txt","content":"x"}`, i)
				}
				return `{"path":"d/f","content":"inside\n"}`
			},
		},
		{
			name: "file_edit",
			tool: func(r *workspace.Root) tool.Tool { return fsx.NewEditFile(r, fsx.EditFileOptions{}) },
			args: func(i int) string {
				if i%2 == 0 {
					return `{"path":"d/f","old_string":"inside","new_string":"INSIDE"}`
				}
				return `{"path":"d/f","old_string":"INSIDE","new_string":"inside"}`
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRaceFixture(t)
			tl := tt.tool(f.root)
			leaks, ok := 0, 0
			for i := range attempts {
				res := call(t, tl, tt.args(i))
				if res.Success {
					ok++
				}
				text := res.Output.Text + res.Error
				if strings.Contains(text, "SECRET") || (tt.leaked != nil && tt.leaked(res)) {
					leaks++
					if leaks <= 3 {
						t.Errorf("call %d showed the outside: %s", i, text)
					}
				}
			}
			if leaks > 0 {
				t.Errorf("%d of %d calls leaked", leaks, attempts)
			}
			t.Logf("%d of %d calls succeeded; the others were refused", ok, attempts)
			f.outsideIntact(t)
		})
	}
}
