package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tarEntry is one member of a test archive.
type tarEntry struct {
	name     string
	body     string
	size     int64 // written as zeros when > 0 and body is empty
	typeflag byte
	link     string
}

func makeTarGz(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typeflag, Linkname: e.link}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeDir {
			h.Mode = 0o755
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
			if e.body == "" {
				h.Size = e.size
			}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if e.body != "" {
				if _, err := tw.Write([]byte(e.body)); err != nil {
					t.Fatal(err)
				}
			} else if e.size > 0 {
				zero := make([]byte, 32<<10)
				for left := e.size; left > 0; {
					n := min(left, int64(len(zero)))
					if _, err := tw.Write(zero[:n]); err != nil {
						t.Fatal(err)
					}
					left -= n
				}
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractTarGz(t *testing.T) {
	small := archiveLimits{fileBytes: 1 << 10, totalBytes: 1536, files: 4}
	tests := []struct {
		name    string
		entries []tarEntry
		lim     archiveLimits
		want    string // error substring; "" means success
		files   []string
	}{
		{name: "plain", entries: []tarEntry{{name: "hello/", typeflag: tar.TypeDir}, {name: "hello/plugin.toml", body: "x"}, {name: "hello/locales/en/hello.ftl", body: "y"}},
			files: []string{"hello/plugin.toml", "hello/locales/en/hello.ftl"}},
		{name: "dot root", entries: []tarEntry{{name: "./", typeflag: tar.TypeDir}, {name: "./plugin.toml", body: "x"}}, files: []string{"plugin.toml"}},
		{name: "absolute", entries: []tarEntry{{name: "/etc/passwd", body: "x"}}, want: "absolute path"},
		{name: "traversal", entries: []tarEntry{{name: "hello/../../escape", body: "x"}}, want: "climbs out"},
		{name: "traversal at the start", entries: []tarEntry{{name: "../escape", body: "x"}}, want: "climbs out"},
		{name: "backslash", entries: []tarEntry{{name: `..\escape`, body: "x"}}, want: "not a plain relative path"},
		{name: "symlink", entries: []tarEntry{{name: "hello/evil", typeflag: tar.TypeSymlink, link: "/etc"}}, want: "is a link"},
		{name: "hardlink", entries: []tarEntry{{name: "hello/evil", typeflag: tar.TypeLink, link: "../../etc/passwd"}}, want: "is a link"},
		{name: "fifo", entries: []tarEntry{{name: "hello/pipe", typeflag: tar.TypeFifo}}, want: "not a file or a directory"},
		{name: "duplicate", entries: []tarEntry{{name: "a", body: "x"}, {name: "./a", body: "y"}}, want: "appears twice"},
		{name: "file too big", lim: small, entries: []tarEntry{{name: "big.wasm", size: 2 << 10}}, want: "over the 1024-byte limit"},
		{name: "total too big", lim: small, entries: []tarEntry{{name: "a", size: 1000}, {name: "b", size: 1000}}, want: "goes over the size limit"},
		{name: "too many files", lim: small, entries: []tarEntry{{name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"}, {name: "d", body: "4"}, {name: "e", body: "5"}}, want: "more than 4 entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := tt.lim
			if lim == (archiveLimits{}) {
				lim = defaultArchiveLimits
			}
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			if err := os.Mkdir(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			err := extractTarGz(bytes.NewReader(makeTarGz(t, tt.entries)), dest, lim)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range tt.files {
					if _, err := os.Stat(filepath.Join(dest, f)); err != nil {
						t.Errorf("%s not extracted: %v", f, err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errBadArchive) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			// Nothing lands outside dest.
			ents, _ := os.ReadDir(parent)
			if len(ents) != 1 {
				t.Errorf("extraction wrote outside its directory: %v", ents)
			}
		})
	}
}

func TestExtractNotGzip(t *testing.T) {
	err := extractTarGz(strings.NewReader("plain text"), t.TempDir(), defaultArchiveLimits)
	if !errors.Is(err, errBadArchive) || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("err = %v", err)
	}
}

func TestArchiveRoot(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string // relative root; "!" means an error
	}{
		{name: "top", files: []string{"plugin.toml", "x.wasm"}, want: "."},
		{name: "one directory", files: []string{"hello/plugin.toml"}, want: "hello"},
		{name: "two directories", files: []string{"a/plugin.toml", "b/plugin.toml"}, want: "!"},
		{name: "none", files: []string{"x.wasm"}, want: "!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := archiveRoot(dir)
			if tt.want == "!" {
				if err == nil {
					t.Fatalf("root %s, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != filepath.Join(dir, tt.want) {
				t.Fatalf("root %s, want %s", got, tt.want)
			}
		})
	}
}

// FuzzExtractTarGz feeds arbitrary bytes to the extractor: it never panics
// and never writes outside its directory.
func FuzzExtractTarGz(f *testing.F) {
	f.Add(makeTarGz(f, []tarEntry{{name: "hello/plugin.toml", body: "name = 'x'"}}))
	f.Add(makeTarGz(f, []tarEntry{{name: "../x", body: "x"}}))
	f.Add(makeTarGz(f, []tarEntry{{name: "l", typeflag: tar.TypeSymlink, link: "/"}}))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dest := filepath.Join(parent, "dest")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = extractTarGz(bytes.NewReader(data), dest, archiveLimits{fileBytes: 1 << 16, totalBytes: 1 << 17, files: 16})
		ents, err := os.ReadDir(parent)
		if err != nil || len(ents) != 1 {
			t.Fatalf("extraction wrote outside its directory: %v %v", ents, err)
		}
		_ = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("symlink extracted: %s", p)
			}
			return nil
		})
	})
}

// BenchmarkPluginArchive measures unpacking a plugin-sized archive (a 4 MiB
// module, a manifest and two locale files): raw reads every member through
// gzip and tar and discards it; talon is extractTarGz with its checks,
// writing the files.
func BenchmarkPluginArchive(b *testing.B) {
	data := makeTarGz(b, []tarEntry{
		{name: "hello/", typeflag: tar.TypeDir},
		{name: "hello/plugin.toml", body: "name = \"hello\"\n"},
		{name: "hello/hello.wasm", size: 4 << 20},
		{name: "hello/locales/en/hello.ftl", body: "tool-greet = Greet.\n"},
		{name: "hello/locales/ja/hello.ftl", body: "tool-greet = 挨拶。\n"},
	})
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(4 << 20)
		for b.Loop() {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			tr := tar.NewReader(zr)
			for {
				if _, err := tr.Next(); err != nil {
					break
				}
				if _, err := io.Copy(io.Discard, tr); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("talon", func(b *testing.B) {
		b.SetBytes(4 << 20)
		parent := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			dest := filepath.Join(parent, strconv.Itoa(i))
			if err := os.Mkdir(dest, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := extractTarGz(bytes.NewReader(data), dest, defaultArchiveLimits); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = os.RemoveAll(dest)
			b.StartTimer()
		}
	})
}
