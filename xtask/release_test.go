package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// fakeBuild writes a small file naming the leg and its tags instead of
// compiling, and fails for the legs in fail.
func fakeBuild(fail map[string]bool) builder {
	return func(_ context.Context, l leg, s stamp, out string) error {
		if fail[l.Name] {
			return errors.New("linker says no")
		}
		return os.WriteFile(out, []byte(l.Name+" "+l.Tags+" "+s.Version), 0o755)
	}
}

func testLegs() []leg {
	return []leg{
		{target: target{Name: "linux-amd64", GOOS: "linux", GOARCH: "amd64", Archive: "tar.gz"}, Tags: "t1"},
		{target: target{Name: "windows-amd64", GOOS: "windows", GOARCH: "amd64", Archive: "zip"}, Tags: "t2"},
		{target: target{Name: "android-arm64", GOOS: "android", GOARCH: "arm64", Archive: "tar.gz", Experimental: true}},
	}
}

func newTestReleaser(t *testing.T, fail map[string]bool) (releaser, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "README.md"), "# talon\n")
	var log bytes.Buffer
	return releaser{
		dist: filepath.Join(root, "dist"), root: root,
		stamp: stamp{Version: "v1.2.3", Commit: "abc", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		build: fakeBuild(fail), log: &log,
	}, &log
}

func TestReleaseBuildArchivesAndChecksums(t *testing.T) {
	r, log := newTestReleaser(t, nil)
	// A leftover of an earlier run must not survive into SHA256SUMS.
	writeFile(t, filepath.Join(r.dist, "talon-v0.0.1-linux-amd64.tar.gz"), "old")
	var stderr bytes.Buffer
	if code := r.run(context.Background(), testLegs(), &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	entries, err := os.ReadDir(r.dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"SHA256SUMS", "talon-v1.2.3-android-arm64.tar.gz", "talon-v1.2.3-linux-amd64.tar.gz", "talon-v1.2.3-windows-amd64.zip"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("dist holds %v, want %v", names, want)
	}

	sums := readFile(t, filepath.Join(r.dist, "SHA256SUMS"))
	lines := strings.Split(strings.TrimSpace(sums), "\n")
	if len(lines) != 3 {
		t.Fatalf("SHA256SUMS has %d lines:\n%s", len(lines), sums)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("line %q is not in sha256sum format", line)
		}
		got, err := fileSHA256(filepath.Join(r.dist, name))
		if err != nil || got != sum {
			t.Errorf("%s: sum %s, file hashes to %s (%v)", name, sum, got, err)
		}
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
		cmd.Dir = r.dist
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}

	tgz := readTarGz(t, filepath.Join(r.dist, "talon-v1.2.3-linux-amd64.tar.gz"))
	if got := tgz["talon-v1.2.3-linux-amd64/talon"]; got.body != "linux-amd64 t1 v1.2.3" || got.mode != 0o755 {
		t.Errorf("tar talon = %+v", got)
	}
	if got := tgz["talon-v1.2.3-linux-amd64/README.md"]; got.body != "# talon\n" {
		t.Errorf("tar README.md = %+v", got)
	}
	if _, ok := tgz["talon-v1.2.3-linux-amd64/LICENSE"]; ok {
		t.Error("LICENSE archived although the tree has none")
	}
	zr, err := zip.OpenReader(filepath.Join(r.dist, "talon-v1.2.3-windows-amd64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	var zipNames []string
	for _, f := range zr.File {
		zipNames = append(zipNames, f.Name)
	}
	sort.Strings(zipNames)
	if got := strings.Join(zipNames, " "); got != "talon-v1.2.3-windows-amd64/README.md talon-v1.2.3-windows-amd64/talon.exe" {
		t.Errorf("zip holds %s", got)
	}
	if !strings.Contains(log.String(), "3 archive(s) and SHA256SUMS") {
		t.Errorf("log:\n%s", log)
	}
}

func TestReleaseBuildIsReproducible(t *testing.T) {
	r, _ := newTestReleaser(t, nil)
	var stderr bytes.Buffer
	if code := r.run(context.Background(), testLegs(), &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	first := readFile(t, filepath.Join(r.dist, "SHA256SUMS"))
	if code := r.run(context.Background(), testLegs(), &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if second := readFile(t, filepath.Join(r.dist, "SHA256SUMS")); second != first {
		t.Errorf("two runs differ:\n%s\n%s", first, second)
	}
}

func TestReleaseBuildExperimentalLegMayFail(t *testing.T) {
	r, log := newTestReleaser(t, map[string]bool{"android-arm64": true})
	var stderr bytes.Buffer
	if code := r.run(context.Background(), testLegs(), &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "experimental leg android-arm64 failed, continuing: linker says no") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if !strings.Contains(log.String(), "experimental leg(s) failed: android-arm64") {
		t.Errorf("log: %s", log.String())
	}
	sums := readFile(t, filepath.Join(r.dist, "SHA256SUMS"))
	if strings.Count(sums, "\n") != 2 || strings.Contains(sums, "android") {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
}

func TestReleaseBuildOtherLegMayNot(t *testing.T) {
	r, _ := newTestReleaser(t, map[string]bool{"linux-amd64": true})
	var stderr bytes.Buffer
	if code := r.run(context.Background(), testLegs(), &stderr); code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr.String())
	}
	if !strings.Contains(stderr.String(), "leg linux-amd64 failed: linker says no") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(r.dist, "SHA256SUMS")); err == nil {
		t.Error("SHA256SUMS written for a failed release")
	}
}

func TestStampLdflags(t *testing.T) {
	s := stamp{Version: "v1.0.0", Commit: "0123abc", Date: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	want := "-s -w -X github.com/talonhq/talon/cli.version=v1.0.0 -X github.com/talonhq/talon/cli.commit=0123abc -X github.com/talonhq/talon/cli.date=2026-11-30T12:00:00Z"
	if got := s.ldflags(); got != want {
		t.Errorf("ldflags\n got %s\nwant %s", got, want)
	}
	if _, err := gitStamp("v1 2"); err == nil {
		t.Error("a version with a space was accepted")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	s, err := gitStamp("v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "v9.9.9" || !s.Date.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("stamp = %+v", s)
	}
}

func TestCheckStaticRejectsDynamic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs a dynamically linked ELF executable")
	}
	for _, p := range []string{"/bin/sh", "/usr/bin/env"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := checkStatic(p); err == nil {
			t.Errorf("%s passed the static check", p)
		}
	}
	notELF := filepath.Join(t.TempDir(), "x")
	writeFile(t, notELF, "#!/bin/sh\n")
	if err := checkStatic(notELF); err == nil {
		t.Error("a script passed the static check")
	}
}

// TestCrossCompileSmoke compiles talon with its dist tags for three legs
// whose platforms differ most from the host (compile and link only).
func TestCrossCompileSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles talon three times")
	}
	m, err := loadFeatures(filepath.Join("..", defaultFeaturesFile))
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadPolicy(filepath.Join("..", defaultTargetsFile), m)
	if err != nil {
		t.Fatal(err)
	}
	all, err := legs(m, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	out := t.TempDir()
	s := stamp{Version: "smoke", Commit: "none", Date: time.Unix(0, 0)}
	for _, name := range []string{"linux-arm64", "windows-amd64", "darwin-arm64"} {
		var l leg
		for _, c := range all {
			if c.Name == name {
				l = c
			}
		}
		if l.Name == "" {
			t.Fatalf("no leg %s", name)
		}
		bin := filepath.Join(out, name)
		if err := goBuild(context.Background(), l, s, bin); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if l.GOOS == "linux" {
			// CGO_ENABLED=0 makes every linux leg static, not only the -static ones.
			if err := checkStatic(bin); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

type tarEntry struct {
	body string
	mode int64
}

func readTarGz(t *testing.T, path string) map[string]tarEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string]tarEntry{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = tarEntry{body: string(body), mode: h.Mode}
	}
	return out
}
