//go:build unix

package shellparse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// writeExe writes an executable file at path through a rename, as an
// installer replaces a binary: a new inode under the old name.
func writeExe(t *testing.T, path, body string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\n# "+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// The PATH lookup cache never hides a change on PATH: a binary replaced,
// one that appears earlier in PATH, one that loses its execute bit or goes
// away, a PATH directory made later, and the target of a symlink
// replaced are all seen by the next lookup, without waiting for the
// cache's TTL.
func TestLookupSeesPATHChanges(t *testing.T) {
	root := t.TempDir()
	early, late, later, elsewhere := filepath.Join(root, "early"), filepath.Join(root, "late"), filepath.Join(root, "later"), filepath.Join(root, "elsewhere")
	for _, d := range []string{early, late, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, err := New(Options{PATH: strings.Join([]string{later, early, late}, string(os.PathListSeparator)), Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	writeExe(t, filepath.Join(late, "tool"), "v1")
	writeExe(t, filepath.Join(elsewhere, "target"), "v1")
	if err := os.Symlink(filepath.Join(elsewhere, "target"), filepath.Join(late, "link")); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name   string
		change func()
		look   string
		want   string // the path found; "" for none
	}{
		{name: "first lookup", look: "tool", want: filepath.Join(late, "tool")},
		{name: "replaced", change: func() { writeExe(t, filepath.Join(late, "tool"), "v2") }, look: "tool", want: filepath.Join(late, "tool")},
		{name: "appears earlier", change: func() { writeExe(t, filepath.Join(early, "tool"), "v3") }, look: "tool", want: filepath.Join(early, "tool")},
		{name: "loses its execute bit", change: func() {
			if err := os.Chmod(filepath.Join(early, "tool"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, look: "tool", want: filepath.Join(late, "tool")},
		{name: "missing directory made", change: func() {
			if err := os.MkdirAll(later, 0o755); err != nil {
				t.Fatal(err)
			}
			writeExe(t, filepath.Join(later, "tool"), "v4")
		}, look: "tool", want: filepath.Join(later, "tool")},
		{name: "removed", change: func() {
			for _, d := range []string{early, late, later} {
				_ = os.Remove(filepath.Join(d, "tool"))
			}
		}, look: "tool", want: ""},
		{name: "not found, then installed", change: func() { writeExe(t, filepath.Join(late, "tool"), "v5") }, look: "tool", want: filepath.Join(late, "tool")},
		{name: "symlink", look: "link", want: filepath.Join(late, "link")},
		{name: "symlink target replaced", change: func() { writeExe(t, filepath.Join(elsewhere, "target"), "v2") }, look: "link", want: filepath.Join(late, "link")},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		// Twice: the second lookup is a cache hit.
		for range 2 {
			bin, fi, _ := a.lookup(st.look)
			if bin != st.want {
				t.Fatalf("%s: found %q, want %q", st.name, bin, st.want)
			}
			if bin == "" {
				if fi != nil {
					t.Fatalf("%s: file information without a binary", st.name)
				}
				continue
			}
			now, err := os.Stat(bin)
			if err != nil {
				t.Fatal(err)
			}
			if fi == nil || !os.SameFile(fi, now) || fi.Mode() != now.Mode() {
				t.Fatalf("%s: the file information is of another file than %s holds now", st.name, bin)
			}
		}
	}
}

// BenchmarkAnalyzeAgainstParse analyses the typical lines and parses
// them bare with mvdan/sh, alternating the two in one loop so both see
// the same machine: analyze/parse is the ratio (target ≤ 2).
func BenchmarkAnalyzeAgainstParse(b *testing.B) {
	a, err := New(Options{PATH: os.Getenv("PATH"), Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range benchLines {
		a.Analyze(l)
	}
	var tA, tP time.Duration
	n := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		line := benchLines[i%len(benchLines)]
		t0 := time.Now()
		a.Analyze(line)
		t1 := time.Now()
		if _, err := syntax.NewParser().Parse(strings.NewReader(line), ""); err != nil {
			b.Fatal(err)
		}
		tA += t1.Sub(t0)
		tP += time.Since(t1)
		n++
	}
	b.ReportMetric(float64(tA.Nanoseconds())/float64(n), "analyze-ns/line")
	b.ReportMetric(float64(tP.Nanoseconds())/float64(n), "parse-ns/line")
	b.ReportMetric(float64(tA)/float64(tP), "analyze/parse")
}

// The command tables are compiled on first use; the package's tests read
// them directly, so they are compiled before any test runs.
func init() { loadTables() }
