package cli

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits of a plugin archive. A plugin is a manifest, one module or binary
// and a few locale files; anything far larger is refused before it reaches
// the disk.
const (
	maxArchiveFileBytes  = 64 << 20
	maxArchiveTotalBytes = 128 << 20
	maxArchiveFiles      = 256
)

// errBadArchive is wrapped by every refusal of a plugin archive.
var errBadArchive = errors.New("refused plugin archive")

// archiveLimits bounds what extractTarGz writes.
type archiveLimits struct {
	fileBytes  int64
	totalBytes int64
	files      int
}

var defaultArchiveLimits = archiveLimits{fileBytes: maxArchiveFileBytes, totalBytes: maxArchiveTotalBytes, files: maxArchiveFiles}

// extractTarGz unpacks a gzip-compressed tar stream into dest, an empty
// directory. Only directories and regular files are accepted: absolute
// names, names with "..", links of either kind, devices, duplicate names,
// a file over the per-file cap, more than the total cap and more than the
// file-count cap are all refused, and the error names the entry. Sizes are
// counted as bytes are written, so a header that lies about its size does
// not get past the caps.
func extractTarGz(r io.Reader, dest string, lim archiveLimits) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%w: not a gzip-compressed tar archive: %v", errBadArchive, err)
	}
	defer func() { _ = zr.Close() }()
	tr := tar.NewReader(zr)
	var total int64
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errBadArchive, err)
		}
		rel, err := archiveName(h.Name)
		if err != nil {
			return err
		}
		if rel == "" {
			continue // "./"
		}
		files++
		if files > lim.files {
			return fmt.Errorf("%w: more than %d entries", errBadArchive, lim.files)
		}
		target := filepath.Join(dest, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if h.Size > lim.fileBytes {
				return fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit per file", errBadArchive, h.Name, h.Size, lim.fileBytes)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			n, err := writeEntry(target, tr, h, min(lim.fileBytes, lim.totalBytes-total), lim)
			total += n
			if err != nil {
				return err
			}
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("%w: %s is a link; plugin archives hold only files and directories", errBadArchive, h.Name)
		default:
			return fmt.Errorf("%w: %s is not a file or a directory (type %q)", errBadArchive, h.Name, h.Typeflag)
		}
	}
}

// writeEntry copies one file, refusing more than limit bytes.
func writeEntry(target string, r io.Reader, h *tar.Header, limit int64, lim archiveLimits) (int64, error) {
	mode := fs.FileMode(0o644)
	if h.FileInfo().Mode().Perm()&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return 0, fmt.Errorf("%w: %s appears twice", errBadArchive, h.Name)
	}
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("%w: %s: %v", errBadArchive, h.Name, err)
	}
	if n > limit {
		return n, fmt.Errorf("%w: %s goes over the size limit (%d bytes per file, %d in all)",
			errBadArchive, h.Name, lim.fileBytes, lim.totalBytes)
	}
	return n, nil
}

// archiveName checks an entry name and returns it cleaned and relative;
// "" means the archive root itself.
func archiveName(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) || strings.Contains(name, `\`) {
		return "", fmt.Errorf("%w: entry name %q is not a plain relative path", errBadArchive, name)
	}
	if path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%w: %s is an absolute path", errBadArchive, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %s climbs out of the archive with \"..\"", errBadArchive, name)
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

// archiveRoot is the plugin directory inside an extracted archive: the
// archive's root when plugin.toml sits there, else its one top-level
// directory.
func archiveRoot(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "plugin.toml")); err == nil {
		return dir, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(ents) == 1 && ents[0].IsDir() {
		sub := filepath.Join(dir, ents[0].Name())
		if _, err := os.Stat(filepath.Join(sub, "plugin.toml")); err == nil {
			return sub, nil
		}
	}
	return "", fmt.Errorf("%w: no plugin.toml at the top of the archive or in its one top-level directory", errBadArchive)
}
