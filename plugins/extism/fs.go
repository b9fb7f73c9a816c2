package extism

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Extism plugins reach files through WASI, the way Extism's allowed_paths
// does, but each granted directory is mounted through a workspace.Root:
// every path is resolved from the opened directory, so neither ".." nor a
// symbolic link leads out of it, and talon's protected paths and the
// profile's forbidden_paths are refused, as for the ABI v1 host's file
// functions. A directory granted as fs_read is mounted read-only; one
// granted as fs_write, read-write. The guest sees a directory at "/" and
// its path in the workspace: the grant "data" is "/data", the workspace
// itself "/".

// maxFileBytes bounds a file a guest writes: writes are gathered in
// memory and land, atomically, when the file is closed or synced.
const maxFileBytes = 8 << 20

// mount is one granted directory as the guest sees it.
type mount struct {
	dir   string // host directory, absolute and resolved
	guest string // "/" + its path in the workspace
	write bool
}

// mountsFor lists the granted directories of g as mounts, a directory
// granted for writing once, read-write.
func mountsFor(g manifest.Grants, ws string) ([]mount, error) {
	if len(g.FSRead) == 0 && len(g.FSWrite) == 0 {
		return nil, nil
	}
	if ws == "" {
		return nil, errors.New("file grants need a workspace")
	}
	byDir := map[string]bool{}
	for _, d := range g.FSRead {
		if _, ok := byDir[resolved(d)]; !ok {
			byDir[resolved(d)] = false
		}
	}
	for _, d := range g.FSWrite {
		byDir[resolved(d)] = true
	}
	var out []mount
	for dir, write := range byDir {
		rel, err := filepath.Rel(ws, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("granted directory %s is outside the workspace %s", dir, ws)
		}
		guest := "/"
		if rel != "." {
			guest = "/" + filepath.ToSlash(rel)
		}
		out = append(out, mount{dir: dir, guest: guest, write: write})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].guest < out[j].guest })
	return out, nil
}

func resolved(d string) string {
	if real, err := filepath.EvalSymlinks(d); err == nil {
		return filepath.Clean(real)
	}
	return filepath.Clean(d)
}

// protectedFor is the protected-path list of a plugin loaded with env:
// env.Protected, or the list derived from the data directory and the
// environment when the loader gave none.
func protectedFor(env plugins.Env) workspace.Protected {
	if !env.Protected.IsZero() {
		return env.Protected
	}
	return risk.ProtectedPaths(nil, env.DataDir, os.Getenv)
}

// mountFS is one instance's view of the plugin's mounts. The roots are
// opened for each call with that call's forbidden patterns.
type mountFS struct {
	p *plugin

	mu        sync.Mutex
	forbidden []workspace.Pattern
	roots     map[string]*workspace.Root
}

// config is the instance's FS configuration: one mount per grant.
func (m *mountFS) config() wazero.FSConfig {
	cfg := wazero.NewFSConfig()
	for _, mt := range m.p.mounts {
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(&dirFS{m: m, mount: mt}, mt.guest)
	}
	return cfg
}

// begin starts a call with its forbidden patterns; end closes its roots.
func (m *mountFS) begin(forbidden []workspace.Pattern) {
	m.mu.Lock()
	m.forbidden = forbidden
	m.mu.Unlock()
}

func (m *mountFS) end() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, r := range m.roots {
		_ = r.Close()
		delete(m.roots, k)
	}
	m.forbidden = nil
}

// root opens (once per call) the Root of a mount.
func (m *mountFS) root(mt mount) (*workspace.Root, experimentalsys.Errno) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.roots[mt.dir]; ok {
		return r, 0
	}
	r, err := workspace.Open(mt.dir, workspace.Options{Protected: m.p.protected, Patterns: m.forbidden})
	if err != nil {
		m.p.log.Warn().Str("attribution", m.p.attr.String()).Str("dir", mt.dir).Err(err).Msg("cannot open a granted directory")
		return nil, experimentalsys.ENOENT
	}
	if m.roots == nil {
		m.roots = map[string]*workspace.Root{}
	}
	m.roots[mt.dir] = r
	return r, 0
}

// errno maps a Root's error to WASI's, logging refusals with the
// plugin's attribution (the guest only sees an error number).
func (m *mountFS) errno(op, p string, err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var re *workspace.RefusedError
	switch {
	case errors.As(err, &re), errors.Is(err, workspace.ErrProtected), errors.Is(err, workspace.ErrForbidden):
		m.p.log.Warn().Str("attribution", m.p.attr.String()).Str("op", op).Str("path", p).Err(err).Msg("file access refused")
		return experimentalsys.EACCES
	case errors.Is(err, workspace.ErrOutsideWorkspace):
		m.p.log.Warn().Str("attribution", m.p.attr.String()).Str("op", op).Str("path", p).Msg("file access refused: the path leads outside its granted directory")
		return experimentalsys.EACCES
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	case errors.Is(err, workspace.ErrIsDirectory):
		return experimentalsys.EISDIR
	case errors.Is(err, workspace.ErrNotDirectory):
		return experimentalsys.ENOTDIR
	case errors.Is(err, fs.ErrPermission):
		return experimentalsys.EPERM
	}
	if e := experimentalsys.UnwrapOSError(err); e != 0 {
		return e
	}
	return experimentalsys.EIO
}

// dirFS is one mount as a WASI file system.
type dirFS struct {
	experimentalsys.UnimplementedFS
	m     *mountFS
	mount mount
}

var _ experimentalsys.FS = (*dirFS)(nil)

// rel is a guest path inside the mount as the Root takes it.
func rel(p string) string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// OpenFile implements experimentalsys.FS. A file opened for reading is
// the one the Root opened; one opened for writing is kept in memory and
// written through the Root, atomically, when it is closed. wazero's
// adapter turns either into a WASI file.
func (d *dirFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	r, errno := d.m.root(d.mount)
	if errno != 0 {
		return nil, errno
	}
	p = rel(p)
	access := flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY)
	writes := access != experimentalsys.O_RDONLY || flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC|experimentalsys.O_APPEND) != 0
	if !writes {
		f, err := r.Open(p)
		if err != nil {
			return nil, d.m.errno("open", p, err)
		}
		fi, err := f.Stat()
		if err != nil {
			_ = f.Close()
			return nil, d.m.errno("open", p, err)
		}
		if flag&experimentalsys.O_DIRECTORY != 0 && !fi.IsDir() {
			_ = f.Close()
			return nil, experimentalsys.ENOTDIR
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			_ = f.Close()
			return nil, experimentalsys.EACCES
		}
		return (&sysfs.AdaptFS{FS: &opened{r: r, name: p, first: f}}).OpenFile(p, experimentalsys.O_RDONLY, 0)
	}
	if !d.mount.write {
		return nil, experimentalsys.EROFS
	}
	if flag&experimentalsys.O_DIRECTORY != 0 {
		return nil, experimentalsys.EISDIR
	}
	fi, err := r.Stat(p)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, d.m.errno("open", p, err)
	case exists && fi.IsDir():
		return nil, experimentalsys.EISDIR
	case exists && flag&experimentalsys.O_CREAT != 0 && flag&experimentalsys.O_EXCL != 0:
		return nil, experimentalsys.EEXIST
	case !exists && flag&experimentalsys.O_CREAT == 0:
		return nil, experimentalsys.ENOENT
	}
	w := &memFile{fs: d, path: p, perm: perm.Perm(), readable: access == experimentalsys.O_RDWR, append: flag&experimentalsys.O_APPEND != 0}
	if exists && flag&experimentalsys.O_TRUNC == 0 {
		f, err := r.Open(p)
		if err != nil {
			return nil, d.m.errno("open", p, err)
		}
		w.data, err = io.ReadAll(io.LimitReader(f, maxFileBytes+1))
		_ = f.Close()
		if err != nil {
			return nil, d.m.errno("open", p, err)
		}
		if len(w.data) > maxFileBytes {
			return nil, experimentalsys.ERANGE
		}
	}
	if !exists || flag&experimentalsys.O_TRUNC != 0 {
		// The file exists (empty) from now on, as after open(2).
		w.dirty = true
		if err := w.flush(); err != nil {
			return nil, d.m.errno("open", p, err)
		}
	}
	return (&sysfs.AdaptFS{FS: &opened{first: w}}).OpenFile(p, experimentalsys.O_RDONLY, 0)
}

// opened is an fs.FS handing wazero's adapter a file already opened;
// opening the name again (to rewind a directory) goes through the Root.
type opened struct {
	r     *workspace.Root
	name  string
	first fs.File
}

func (o *opened) Open(string) (fs.File, error) {
	if f := o.first; f != nil {
		o.first = nil
		return f, nil
	}
	if o.r == nil {
		return nil, fs.ErrPermission
	}
	return o.r.Open(o.name)
}

// Lstat implements experimentalsys.FS.
func (d *dirFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	return d.stat(p, false)
}

// Stat implements experimentalsys.FS.
func (d *dirFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	return d.stat(p, true)
}

func (d *dirFS) stat(p string, follow bool) (sys.Stat_t, experimentalsys.Errno) {
	r, errno := d.m.root(d.mount)
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	p = rel(p)
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = r.Stat(p)
	} else {
		fi, err = r.Lstat(p)
	}
	if err != nil {
		return sys.Stat_t{}, d.m.errno("stat", p, err)
	}
	return sys.NewStat_t(fi), 0
}

// Mkdir implements experimentalsys.FS.
func (d *dirFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	if !d.mount.write {
		return experimentalsys.EROFS
	}
	r, errno := d.m.root(d.mount)
	if errno != 0 {
		return errno
	}
	return d.m.errno("mkdir", p, r.Mkdir(rel(p), perm.Perm()))
}

// Chmod implements experimentalsys.FS.
func (d *dirFS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	if !d.mount.write {
		return experimentalsys.EROFS
	}
	r, errno := d.m.root(d.mount)
	if errno != 0 {
		return errno
	}
	return d.m.errno("chmod", p, r.Chmod(rel(p), perm.Perm()))
}

// Unlink implements experimentalsys.FS.
func (d *dirFS) Unlink(p string) experimentalsys.Errno { return d.remove(p, false) }

// Rmdir implements experimentalsys.FS.
func (d *dirFS) Rmdir(p string) experimentalsys.Errno { return d.remove(p, true) }

func (d *dirFS) remove(p string, dir bool) experimentalsys.Errno {
	if !d.mount.write {
		return experimentalsys.EROFS
	}
	r, errno := d.m.root(d.mount)
	if errno != 0 {
		return errno
	}
	p = rel(p)
	fi, err := r.Lstat(p)
	if err != nil {
		return d.m.errno("remove", p, err)
	}
	switch {
	case dir && !fi.IsDir():
		return experimentalsys.ENOTDIR
	case !dir && fi.IsDir():
		return experimentalsys.EISDIR
	}
	return d.m.errno("remove", p, r.Remove(p))
}

// Symlink implements experimentalsys.FS: a plugin makes no links.
func (d *dirFS) Symlink(_, _ string) experimentalsys.Errno { return experimentalsys.EPERM }

// Link implements experimentalsys.FS: a plugin makes no links.
func (d *dirFS) Link(_, _ string) experimentalsys.Errno { return experimentalsys.EPERM }

// memFile is a file opened for writing: its content is kept in memory
// and written through the Root, atomically, when it is closed.
type memFile struct {
	fs       *dirFS
	path     string
	perm     fs.FileMode
	readable bool
	append   bool
	data     []byte
	off      int64
	dirty    bool
	closed   bool
}

var (
	_ io.ReaderAt = (*memFile)(nil)
	_ io.WriterAt = (*memFile)(nil)
	_ io.Seeker   = (*memFile)(nil)
)

// errTooLarge refuses a write past maxFileBytes.
var errTooLarge = fmt.Errorf("a file a plugin writes is at most %d bytes", maxFileBytes)

func (w *memFile) Stat() (fs.FileInfo, error) {
	return memInfo{name: path.Base(w.path), size: int64(len(w.data)), mode: w.perm}, nil
}

func (w *memFile) Read(b []byte) (int, error) {
	n, err := w.ReadAt(b, w.off)
	w.off += int64(n)
	return n, err
}

func (w *memFile) ReadAt(b []byte, off int64) (int, error) {
	if !w.readable {
		return 0, fs.ErrPermission
	}
	if off >= int64(len(w.data)) {
		return 0, io.EOF
	}
	return copy(b, w.data[off:]), nil
}

func (w *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += w.off
	case io.SeekEnd:
		off += int64(len(w.data))
	default:
		return 0, fs.ErrInvalid
	}
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	w.off = off
	return off, nil
}

func (w *memFile) Write(b []byte) (int, error) {
	if w.append {
		w.off = int64(len(w.data))
	}
	n, err := w.WriteAt(b, w.off)
	w.off += int64(n)
	return n, err
}

func (w *memFile) WriteAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	end := off + int64(len(b))
	if end > maxFileBytes {
		return 0, errTooLarge
	}
	if end > int64(len(w.data)) {
		w.data = append(w.data, make([]byte, end-int64(len(w.data)))...)
	}
	copy(w.data[off:], b)
	w.dirty = true
	return len(b), nil
}

// flush writes the content through the Root when it changed.
func (w *memFile) flush() error {
	if !w.dirty {
		return nil
	}
	r, errno := w.fs.m.root(w.fs.mount)
	if errno != 0 {
		return errno
	}
	perm := w.perm
	if perm == 0 {
		perm = 0o644
	}
	if _, _, err := r.WriteFile(w.path, w.data, perm); err != nil {
		return err
	}
	w.dirty = false
	return nil
}

func (w *memFile) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.flush(); err != nil {
		return w.fs.m.errno("write", w.path, err)
	}
	return nil
}

// memInfo describes a memFile.
type memInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// mountedTool is a tool of a plugin with file grants: under a profile
// with forbidden_paths, its mounts refuse them too.
type mountedTool struct{ *extTool }

var _ tool.Profiled = (*mountedTool)(nil)

// ForProfile implements tool.Profiled.
func (t *mountedTool) ForProfile(ps tool.ProfileSettings) (tool.Tool, error) {
	if len(ps.ForbiddenPaths) == 0 {
		return t, nil
	}
	pats := make([]workspace.Pattern, 0, len(ps.ForbiddenPaths))
	for _, f := range ps.ForbiddenPaths {
		cp, err := workspace.CompilePattern(f, t.p.workspace, t.p.protected.Home())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.p.attr, err)
		}
		pats = append(pats, cp)
	}
	return &forbiddingTool{extTool: t.extTool, forbidden: pats}, nil
}

// forbiddingTool is a tool under a profile's forbidden_paths.
type forbiddingTool struct {
	*extTool
	forbidden []workspace.Pattern
}

// Execute runs the tool with the profile's patterns in its mounts.
func (t *forbiddingTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	return t.execute(ctx, args, t.forbidden)
}
