package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHash(t *testing.T) {
	// The SHA-256 of "abc" from FIPS 180-2.
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := HashBytes([]byte("abc")); got != abc {
		t.Fatalf("HashBytes = %s", got)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := HashFile(p); err != nil || got != abc {
		t.Fatalf("HashFile = %s, %v", got, err)
	}
	if _, err := HashFile(p + "-missing"); err == nil {
		t.Fatal("hashed a missing file")
	}
}

func TestCheckEntry(t *testing.T) {
	content := []byte("\x00asm module bytes")
	sum := HashBytes(content)
	outside := filepath.Join(t.TempDir(), "outside.wasm")
	if err := os.WriteFile(outside, content, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		entry string
		sum   string
		want  error  // sentinel, or nil
		text  string // substring of the error
	}{
		{name: "ok", entry: "plugin.wasm", sum: sum, setup: func(t *testing.T, dir string) { write(t, dir, "plugin.wasm", content) }},
		{name: "ok in subdir", entry: "bin/plugin.wasm", sum: sum, setup: func(t *testing.T, dir string) { write(t, dir, "bin/plugin.wasm", content) }},
		{name: "symlink inside", entry: "link.wasm", sum: sum, setup: func(t *testing.T, dir string) {
			write(t, dir, "real.wasm", content)
			symlink(t, "real.wasm", filepath.Join(dir, "link.wasm"))
		}},
		{name: "mismatch", entry: "plugin.wasm", sum: strings.Repeat("0", 64), want: ErrHashMismatch,
			text: "rebuild or reinstall the plugin", setup: func(t *testing.T, dir string) { write(t, dir, "plugin.wasm", content) }},
		{name: "symlink outside", entry: "plugin.wasm", sum: sum, want: ErrEntryOutside, setup: func(t *testing.T, dir string) {
			symlink(t, outside, filepath.Join(dir, "plugin.wasm"))
		}},
		{name: "directory symlink outside", entry: "bin/outside.wasm", sum: sum, want: ErrEntryOutside, setup: func(t *testing.T, dir string) {
			symlink(t, filepath.Dir(outside), filepath.Join(dir, "bin"))
		}},
		{name: "dot-dot outside", entry: "../escape.wasm", sum: sum, want: ErrEntryOutside, setup: func(t *testing.T, dir string) {
			write(t, filepath.Dir(dir), "escape.wasm", content)
		}},
		{name: "dot-dot back inside", entry: "bin/../plugin.wasm", sum: sum, setup: func(t *testing.T, dir string) {
			write(t, dir, "plugin.wasm", content)
			write(t, dir, "bin/other", content)
		}},
		{name: "missing", entry: "plugin.wasm", sum: sum, want: os.ErrNotExist, setup: func(*testing.T, string) {}},
		{name: "directory", entry: "plugin.wasm", sum: sum, text: "not a regular file", setup: func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "plugin.wasm"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "fifo", entry: "plugin.wasm", sum: sum, text: "not a regular file", setup: func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "plugin.wasm"), 0o644); err != nil {
				t.Skip("mkfifo:", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			m := &Manifest{Name: "hello", Entry: tt.entry, SHA256: tt.sum}
			p, err := CheckEntry(dir, m)
			if tt.want == nil && tt.text == "" {
				if err != nil {
					t.Fatal(err)
				}
				real, _ := filepath.EvalSymlinks(dir)
				if !filepath.IsAbs(p) || !strings.HasPrefix(p, real+string(filepath.Separator)) {
					t.Fatalf("path %s not inside %s", p, real)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("error %q lacks %q", err, tt.text)
			}
			if errors.Is(err, ErrHashMismatch) && (p == "" || !strings.Contains(err.Error(), sum)) {
				t.Fatalf("mismatch should return the path and name the digest it got: %q, %q", p, err)
			}
		})
	}
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
