package helper

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGrantsInNamespaces(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"etc/a", "etc/b", "home/me/ws"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	etc, home := filepath.Join(root, "etc"), filepath.Join(root, "home")
	s := Spec{Read: []string{etc, home}, Deny: []string{filepath.Join(etc, "a"), filepath.Join(home, "me")}, WS: filepath.Join(home, "me", "ws")}
	paths := func(gs []Grant) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Path)
		}
		return out
	}
	// Without namespaces both denied paths are carved out of their grant.
	if got := paths(Grants(s, fsV1)); slices.Contains(got, etc) && !slices.Contains(got, filepath.Join(etc, "b")) {
		t.Errorf("without namespaces: %q, want /etc carved around a", got)
	}
	// With them the one hidden by a mount is not: only the one that holds
	// the workspace is left to Landlock.
	s.NS = true
	got := paths(Grants(s, fsV1))
	if slices.Contains(got, filepath.Join(etc, "b")) || !slices.Contains(got, etc) {
		t.Errorf("with namespaces: %q, want /etc granted whole", got)
	}
	if slices.Contains(got, home) && !slices.Contains(got, s.WS) {
		t.Errorf("with namespaces: %q, want home carved around me", got)
	}
}
