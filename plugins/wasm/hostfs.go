package wasm

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

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// maxFileBytes bounds fs_read.
const maxFileBytes = 8 << 20

// protectedFor is the protected-path list of a plugin loaded with env:
// env.Protected, or, when the loader gave none, the list derived from the
// data directory and the environment, so that the file host functions
// never run without one.
func protectedFor(env plugins.Env) workspace.Protected {
	if !env.Protected.IsZero() {
		return env.Protected
	}
	return risk.ProtectedPaths(nil, env.DataDir, os.Getenv)
}

// ForProfile returns the tool whose file host functions also refuse the
// profile's forbidden_paths, relative patterns taken from the workspace,
// as the built-in file tools do.
func (t *wasmTool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	if len(p.ForbiddenPaths) == 0 {
		return t, nil
	}
	pats := make([]workspace.Pattern, 0, len(p.ForbiddenPaths))
	for _, f := range p.ForbiddenPaths {
		cp, err := workspace.CompilePattern(f, t.p.workspace, t.p.protected.Home())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.p.attr, err)
		}
		pats = append(pats, cp)
	}
	return &profiledWasmTool{wasmTool: t, forbidden: pats}, nil
}

// profiledWasmTool is a plugin tool under a risk profile with
// forbidden_paths.
type profiledWasmTool struct {
	*wasmTool
	forbidden []workspace.Pattern
}

// Execute runs the tool with the profile's patterns in reach of its file
// host functions.
func (t *profiledWasmTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	return t.wasmTool.Execute(t.withForbidden(ctx), args)
}

type forbiddenKey struct{}

func (t *profiledWasmTool) withForbidden(ctx context.Context) context.Context {
	return context.WithValue(ctx, forbiddenKey{}, t.forbidden)
}

// forbiddenFrom returns the forbidden patterns of the call ctx belongs to.
func forbiddenFrom(ctx context.Context) []workspace.Pattern {
	pats, _ := ctx.Value(forbiddenKey{}).([]workspace.Pattern)
	return pats
}

// fsRequestDoc is the request of fs_read, fs_write and fs_list.
type fsRequestDoc struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// fsEntry is one entry of fs_list's response.
type fsEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
}

func (s *callState) fsRead(ctx context.Context, req []byte) (any, error) {
	r, root, rel, err := s.fsOpen(ctx, "fs_read", req, s.p.grants.FSRead, "fs_read", false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, fsError("fs_read", r.Path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, fsError("fs_read", r.Path, err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("fs_read %s: not a regular file", r.Path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fsError("fs_read", r.Path, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("fs_read %s: the file is over %d bytes", r.Path, maxFileBytes)
	}
	return map[string][]byte{"data": b}, nil
}

func (s *callState) fsWrite(ctx context.Context, req []byte) (any, error) {
	r, root, rel, err := s.fsOpen(ctx, "fs_write", req, s.p.grants.FSWrite, "fs_write", true)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Missing directories are created; the file is replaced atomically in
	// the directory the path resolved to.
	if _, _, err := root.WriteFile(rel, r.Data, 0o644); err != nil {
		return nil, fsError("fs_write", r.Path, err)
	}
	return map[string]int{"written": len(r.Data)}, nil
}

func (s *callState) fsList(ctx context.Context, req []byte) (any, error) {
	roots := append(append([]string(nil), s.p.grants.FSRead...), s.p.grants.FSWrite...)
	r, root, rel, err := s.fsOpen(ctx, "fs_list", req, roots, "fs_read or fs_write", false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, fsError("fs_list", r.Path, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, fsError("fs_list", r.Path, err)
	}
	// Entries are described through the root, not by path, and those a
	// protected-path rule covers, or links to them, are left out.
	dir := root.Rel(f.Name())
	out := make([]fsEntry, 0, len(ents))
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		if root.Check(p, filepath.Join(f.Name(), e.Name()), false) != nil {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			var re *workspace.RefusedError
			if _, err := root.Stat(p); errors.As(err, &re) {
				continue // a link to a protected place
			}
		}
		fe := fsEntry{Name: e.Name(), Dir: e.IsDir()}
		if !e.IsDir() {
			if info, err := root.Lstat(p); err == nil {
				fe.Size = info.Size()
			}
		}
		out = append(out, fe)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return map[string][]fsEntry{"entries": out}, nil
}

// fsOpen decodes a file request and opens the granted directory that
// holds its path as a workspace.Root, which resolves every path from the
// open directory without following a link out of it, and refuses what
// the protected-path list covers (talon's config and data, the operator's
// secrets, a repository's hooks for writing) and the profile's
// forbidden_paths, as given and where it leads.
// A relative path is taken from the workspace.
func (s *callState) fsOpen(ctx context.Context, fn string, req []byte, roots []string, grant string, write bool) (fsRequestDoc, *workspace.Root, string, error) {
	var r fsRequestDoc
	if err := json.Unmarshal(req, &r); err != nil {
		return r, nil, "", fmt.Errorf("%s: the request is not valid JSON: %w", fn, err)
	}
	if r.Path == "" || strings.IndexByte(r.Path, 0) >= 0 {
		return r, nil, "", fmt.Errorf("%s: the path is empty or holds a NUL byte", fn)
	}
	abs := r.Path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.p.workspace, abs)
	}
	abs = filepath.Clean(abs)
	if err := s.p.protected.Refuse(r.Path, abs, write); err != nil {
		return r, nil, "", fmt.Errorf("%s: %w", fn, err)
	}
	forbidden := forbiddenFrom(ctx)
	for _, pat := range forbidden {
		if pat.Match(abs) {
			return r, nil, "", fmt.Errorf("%s: %w", fn, &workspace.RefusedError{Path: r.Path, Write: write, Pattern: pat.Text})
		}
	}
	for _, dir := range roots {
		rel, err := filepath.Rel(dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := workspace.Open(dir, workspace.Options{Protected: s.p.protected, Patterns: forbidden})
		if err != nil {
			return r, nil, "", fmt.Errorf("%s: granted directory %s: %w", fn, dir, err)
		}
		return r, root, rel, nil
	}
	if len(roots) == 0 {
		return r, nil, "", fmt.Errorf("%s %s: plugin %s has no %s grant: the manifest must request a directory and the operator grant it", fn, r.Path, s.p.name, grant)
	}
	return r, nil, "", fmt.Errorf("%s %s: outside the directories plugin %s was granted (%s: %s)", fn, r.Path, s.p.name, grant, strings.Join(roots, ", "))
}

// fsError explains a failure of the granted directory's Root: an escape
// through a symbolic link or .. says so, a protected path names its rule.
func fsError(fn, p string, err error) error {
	var re *workspace.RefusedError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("%s: %w", fn, re)
	case errors.Is(err, workspace.ErrOutsideWorkspace):
		return fmt.Errorf("%s %s: the path leads outside its granted directory (through a symbolic link or ..)", fn, p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: %w", fn, p, err)
}
