package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/talonhq/talon/plugins/manifest"
)

// countDigests counts the entries Load hashes in one test.
func countDigests(t *testing.T) *int {
	t.Helper()
	n := 0
	saved := checkDigest
	checkDigest = func(dir, path string, m *manifest.Manifest) error {
		n++
		return saved(dir, path, m)
	}
	t.Cleanup(func() { checkDigest = saved })
	return &n
}

// TestLoadRemembersEntryDigests: Load hashes a plugin's entry once and
// then trusts what stat says of the file (device, inode, size,
// modification and change time), so a start does not read every module
// and binary again; an entry changed in place or replaced is hashed again
// and, when its digest differs, the plugin is skipped as before. A file
// changed within the two seconds before it was hashed is not remembered,
// since a change in the same clock tick could keep its times.
func TestLoadRemembersEntryDigests(t *testing.T) {
	useHost(t, &fakeHost{kind: manifest.KindWASM})
	f := newFixture(t)
	dir := f.plugin("alpha", pluginSpec{})
	entry := filepath.Join(dir, "plugin.bin")
	cfg := f.config(autoOn)
	digests := countDigests(t)
	later := time.Now().Add(time.Hour)
	entryClock = func() time.Time { return later }
	t.Cleanup(func() { entryClock = time.Now })

	for i := range 3 {
		if set := f.load(cfg); len(set.Tools) != 1 || len(problems(set)) > 0 {
			t.Fatalf("load %d: tools %v, warnings %v", i, toolNames(set), set.Warnings)
		}
	}
	if *digests != 1 {
		t.Fatalf("entry hashed %d times over three loads, want once", *digests)
	}

	// The same size, other bytes, written in place.
	if err := os.WriteFile(entry, []byte("ENTRY OF alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := f.load(cfg)
	if len(set.Tools) != 0 || !warned(set, "does not match its sha256") {
		t.Errorf("changed entry: tools %v, warnings %v; want it skipped for its digest", toolNames(set), set.Warnings)
	}
	if *digests != 2 {
		t.Errorf("changed entry hashed %d times in all, want 2", *digests)
	}

	// Put back by a rename: another inode, the right bytes.
	tmp := entry + ".new"
	if err := os.WriteFile(tmp, []byte("entry of alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, entry); err != nil {
		t.Fatal(err)
	}
	if set := f.load(cfg); len(set.Tools) != 1 {
		t.Errorf("restored entry: tools %v, warnings %v", toolNames(set), set.Warnings)
	}
	if *digests != 3 {
		t.Errorf("restored entry hashed %d times in all, want 3", *digests)
	}

	// A change the clock cannot tell apart is hashed every time.
	entryClock = time.Now
	if err := os.WriteFile(entry, []byte("entry of alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.load(cfg)
	f.load(cfg)
	if *digests != 5 {
		t.Errorf("recently changed entry hashed %d times in all, want 5", *digests)
	}
}

// TestInspectHashesEveryTime: inspect and verify answer for the file as it
// is, never from what Load remembered.
func TestInspectHashesEveryTime(t *testing.T) {
	useHost(t, &fakeHost{kind: manifest.KindWASM})
	f := newFixture(t)
	dir := f.plugin("alpha", pluginSpec{})
	digests := countDigests(t)
	entryClock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { entryClock = time.Now })
	f.load(f.config(autoOn))
	for range 2 {
		r, err := Inspect(dir, Options{Config: f.config(autoOn), Workspace: f.ws, DataDir: f.dataDir, Trust: f.trust})
		if err != nil || r.EntryErr != nil {
			t.Fatalf("Inspect: %v, entry: %v", err, r.EntryErr)
		}
	}
	if *digests != 3 {
		t.Errorf("entry hashed %d times by a load and two inspections, want 3", *digests)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.bin"), []byte("ENTRY OF alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(dir, Options{Config: f.config(autoOn), Workspace: f.ws, DataDir: f.dataDir, Trust: f.trust})
	if err != nil || !errors.Is(r.EntryErr, manifest.ErrHashMismatch) {
		t.Errorf("Inspect of a changed entry: %v, entry error %v", err, r.EntryErr)
	}
}
