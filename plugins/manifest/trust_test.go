package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestTrust(t *testing.T) {
	dir := t.TempDir()
	tr, err := OpenTrust(dir)
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if len(tr.List()) != 0 {
		t.Fatal("new store not empty")
	}
	h1, h2 := HashBytes([]byte("1")), HashBytes([]byte("2"))
	if err := tr.Grant("hello", h1); err != nil {
		t.Fatal(err)
	}
	if err := tr.Grant("zeta", h2); err != nil {
		t.Fatal(err)
	}
	if err := tr.Grant("hello", h2); err != nil { // a new version
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, TrustFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store file: %v, %v", fi, err)
	}

	again, err := OpenTrust(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := again.Consent("hello")
	if !ok || rec.ManifestHash != h2 || rec.Name != "hello" || rec.Time.IsZero() {
		t.Fatalf("Consent(hello) = %+v, %v", rec, ok)
	}
	if list := again.List(); len(list) != 2 || list[0].Name != "hello" || list[1].Name != "zeta" {
		t.Fatalf("List = %+v", list)
	}
	if err := again.Revoke("hello"); err != nil {
		t.Fatal(err)
	}
	if err := again.Revoke("never-trusted"); err != nil {
		t.Fatalf("revoking an unknown plugin: %v", err)
	}
	if _, ok := again.Consent("hello"); ok {
		t.Fatal("revoked consent still there")
	}
	// A change through one handle is not undone by another.
	if err := tr.Grant("other", h1); err != nil {
		t.Fatal(err)
	}
	final, _ := OpenTrust(dir)
	if _, ok := final.Consent("hello"); ok {
		t.Fatal("a stale handle brought back revoked consent")
	}
	if _, ok := final.Consent("other"); !ok {
		t.Fatal("grant lost")
	}
}

func TestTrustRejectsBadInput(t *testing.T) {
	tr, _ := OpenTrust(t.TempDir())
	if err := tr.Grant("Bad Name", HashBytes(nil)); err == nil {
		t.Error("granted an invalid name")
	}
	if err := tr.Grant("ok", "abc"); err == nil {
		t.Error("granted an invalid hash")
	}
}

func TestTrustCorrupt(t *testing.T) {
	for name, text := range map[string]string{
		"not json":        "{",
		"unknown version": `{"version": 7, "plugins": []}`,
		"wrong shape":     `{"version": 1, "plugins": {"a": 1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, TrustFile)
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenTrust(dir)
			if !errors.Is(err, ErrTrustCorrupt) || !strings.Contains(err.Error(), "talon plugins trust") {
				t.Fatalf("error %v", err)
			}
			if data, _ := os.ReadFile(p); string(data) != text {
				t.Fatal("corrupt store was rewritten")
			}
		})
	}
}

func TestTrustConcurrentGrants(t *testing.T) {
	dir := t.TempDir()
	tr, _ := OpenTrust(dir)
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Go(func() {
			if err := tr.Grant(n, HashBytes([]byte(n))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	again, _ := OpenTrust(dir)
	if got := len(again.List()); got != len(names) {
		t.Fatalf("%d records after concurrent grants, want %d", got, len(names))
	}
}
