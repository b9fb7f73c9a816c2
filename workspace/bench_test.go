package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/workspace"
)

// The pairs below compare the file operations of a Root (descriptor-
// relative walk, protected paths checked) with what the file tools did
// before: resolve the path's links with filepath.EvalSymlinks, check the
// prefix, then open the resolved path. Same files, same run; the target
// is a ratio of at most 1.2.

// benchTree is a workspace three directories deep with 200 small files,
// and a Root for it with the protected paths of a home directory.
type benchTree struct {
	dir, prefix string
	root        *workspace.Root
}

func newBenchTree(b *testing.B) *benchTree {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		p := filepath.Join(dir, "src", fmt.Sprintf("pkg%d", i%10), "internal", fmt.Sprintf("f%03d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("package x // line\n", 40)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	prot := workspace.NewProtected(workspace.Locations{
		Home: "/home/bench", ConfigFile: filepath.Join(dir, "talon.toml"), DataDir: "/home/bench/.local/share/talon",
	})
	root, err := workspace.Open(dir, workspace.Options{Protected: prot, Forbidden: []string{"secrets/**", "**/*.pem"}})
	if err != nil {
		b.Fatal(err)
	}
	return &benchTree{dir: dir, prefix: dir + string(filepath.Separator), root: root}
}

const benchFile = "src/pkg3/internal/f013.go"

var errBenchOutside = errors.New("outside")

// resolveOpen is the former check: resolve, compare, open by path.
func (t *benchTree) resolveOpen(rel string) (*os.File, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(t.dir, rel))
	if err != nil {
		return nil, err
	}
	if real != t.dir && !strings.HasPrefix(real, t.prefix) {
		return nil, errBenchOutside
	}
	return os.Open(real)
}

func readAll(b *testing.B, f *os.File, err error, buf []byte) {
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Stat(); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(f, buf[:512]); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
}

// BenchmarkReadRoot opens, stats and reads a file three directories deep
// through a Root. Target: at most 1.2 times BenchmarkReadResolve.
func BenchmarkReadRoot(b *testing.B) {
	t := newBenchTree(b)
	buf := make([]byte, 4096)
	for b.Loop() {
		f, err := t.root.Open(benchFile)
		readAll(b, f, err, buf)
	}
}

// BenchmarkReadResolve is the baseline of BenchmarkReadRoot.
func BenchmarkReadResolve(b *testing.B) {
	t := newBenchTree(b)
	buf := make([]byte, 4096)
	for b.Loop() {
		f, err := t.resolveOpen(benchFile)
		readAll(b, f, err, buf)
	}
}

// BenchmarkWriteRoot replaces a file atomically through a Root. Target: at
// most 1.2 times BenchmarkWriteResolve.
func BenchmarkWriteRoot(b *testing.B) {
	t := newBenchTree(b)
	data := []byte("package x\n")
	for b.Loop() {
		if _, _, err := t.root.WriteFile(benchFile, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteResolve is the baseline of BenchmarkWriteRoot: resolve,
// compare, then the path-based atomic write.
func BenchmarkWriteResolve(b *testing.B) {
	t := newBenchTree(b)
	data := []byte("package x\n")
	for b.Loop() {
		if err := t.resolveWrite(benchFile, data); err != nil {
			b.Fatal(err)
		}
	}
}

// resolveWrite is the former write: resolve, compare, then the path-based
// atomic write.
func (t *benchTree) resolveWrite(rel string, data []byte) error {
	p := filepath.Join(t.dir, rel)
	if _, err := os.Lstat(p); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(real, t.prefix) {
		return errBenchOutside
	}
	return workspace.WriteFileAtomic(real, data, 0o644)
}

// BenchmarkWalkRoot lists and reads every file of the tree, as
// content_search does, through Root.Walk. Target: at most 1.2 times
// BenchmarkWalkResolve.
func BenchmarkWalkRoot(b *testing.B) {
	t := newBenchTree(b)
	buf := make([]byte, 4096)
	for b.Loop() {
		n := 0
		err := t.root.Walk(context.Background(), ".", workspace.WalkOptions{}, func(e workspace.Entry) error {
			f, err := e.Open()
			readAll(b, f, err, buf)
			n++
			return nil
		})
		if err != nil || n != 200 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkWalkResolve is the baseline of BenchmarkWalkRoot:
// filepath.WalkDir and an open by path.
func BenchmarkWalkResolve(b *testing.B) {
	t := newBenchTree(b)
	buf := make([]byte, 4096)
	for b.Loop() {
		if n, err := t.resolveWalk(b, buf); err != nil || n != 200 {
			b.Fatal(n, err)
		}
	}
}

// resolveWalk is the former walk: filepath.WalkDir and an open by path.
func (t *benchTree) resolveWalk(b *testing.B, buf []byte) (int, error) {
	n := 0
	err := filepath.WalkDir(t.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		readAll(b, f, err, buf)
		n++
		return nil
	})
	return n, err
}

// BenchmarkInterleaved runs each pair above alternately in one loop, so
// that load on a shared machine hits both sides alike, and reports their
// ratio (root/resolve; target at most 1.2) with each side's time per
// operation.
func BenchmarkInterleaved(b *testing.B) {
	buf := make([]byte, 4096)
	pairs := []struct {
		name          string
		root, resolve func(b *testing.B, t *benchTree)
	}{
		{
			name: "read",
			root: func(b *testing.B, t *benchTree) {
				f, err := t.root.Open(benchFile)
				readAll(b, f, err, buf)
			},
			resolve: func(b *testing.B, t *benchTree) {
				f, err := t.resolveOpen(benchFile)
				readAll(b, f, err, buf)
			},
		},
		{
			name: "write",
			root: func(b *testing.B, t *benchTree) {
				if _, _, err := t.root.WriteFile(benchFile, []byte("package x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			},
			resolve: func(b *testing.B, t *benchTree) {
				if err := t.resolveWrite(benchFile, []byte("package x\n")); err != nil {
					b.Fatal(err)
				}
			},
		},
		{
			name: "walk",
			root: func(b *testing.B, t *benchTree) {
				n := 0
				err := t.root.Walk(context.Background(), ".", workspace.WalkOptions{}, func(e workspace.Entry) error {
					f, err := e.Open()
					readAll(b, f, err, buf)
					n++
					return nil
				})
				if err != nil || n != 200 {
					b.Fatal(n, err)
				}
			},
			resolve: func(b *testing.B, t *benchTree) {
				if n, err := t.resolveWalk(b, buf); err != nil || n != 200 {
					b.Fatal(n, err)
				}
			},
		},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			t := newBenchTree(b)
			// CPU time of this thread counts the work of each side and
			// not the time it waited for a CPU, which on a shared
			// machine dominates wall time.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var root, resolve, rootCPU, resolveCPU time.Duration
			for b.Loop() {
				start, startCPU := time.Now(), threadCPU()
				p.resolve(b, t)
				mid, midCPU := time.Now(), threadCPU()
				p.root(b, t)
				end, endCPU := time.Now(), threadCPU()
				resolve, root = resolve+mid.Sub(start), root+end.Sub(mid)
				resolveCPU, rootCPU = resolveCPU+midCPU-startCPU, rootCPU+endCPU-midCPU
			}
			b.ReportMetric(float64(resolve.Nanoseconds())/float64(b.N), "resolve-ns/op")
			b.ReportMetric(float64(root.Nanoseconds())/float64(b.N), "root-ns/op")
			b.ReportMetric(float64(root)/float64(resolve), "root/resolve")
			if resolveCPU > 0 {
				b.ReportMetric(float64(resolveCPU.Nanoseconds())/float64(b.N), "resolve-cpu-ns/op")
				b.ReportMetric(float64(rootCPU.Nanoseconds())/float64(b.N), "root-cpu-ns/op")
				b.ReportMetric(float64(rootCPU)/float64(resolveCPU), "root/resolve-cpu")
			}
		})
	}
}
