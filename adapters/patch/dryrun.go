package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/talonhq/talon/workspace"
)

// vfile is one file as the patch sees it: what was on disk, and what the
// sections applied so far made of it.
type vfile struct {
	real string // symlink-free absolute path
	rel  string // workspace-relative, for messages
	link bool   // the name itself is a symbolic link on disk

	origExists bool
	orig       []byte
	origPerm   fs.FileMode

	exists bool
	data   []byte
	perm   fs.FileMode
}

// changed reports whether the file must be written.
func (f *vfile) changed() bool {
	return f.exists && (!f.origExists || f.perm != f.origPerm || !bytes.Equal(f.data, f.orig))
}

// dryRun is a patch applied in memory.
type dryRun struct {
	files   []*vfile // every file touched, in order of first use
	byReal  map[string]*vfile
	changes []FileChange
	hunks   int
	read    int64 // bytes read so far
}

// dryRun parses the patch and applies every section in memory.
//
// # Errors
//
// Invalid arguments, [ErrMalformed], [ErrRefused] for a name outside the
// workspace or in .git, or a [*RejectError] listing every problem found.
func (a *ApplyPatch) dryRun(ar args) (*dryRun, error) {
	sections, err := parse(ar.patch)
	if err != nil {
		return nil, err
	}
	if len(sections) == 0 {
		return nil, fmt.Errorf("%w: it contains no file changes: pass a unified diff with ---/+++ lines and @@ hunks", ErrMalformed)
	}
	if len(sections) > MaxSections {
		return nil, fmt.Errorf("%w: the patch changes %d files; the limit is %d: split it", ErrInvalidArguments, len(sections), MaxSections)
	}
	d := &dryRun{byReal: map[string]*vfile{}}
	var rejects []Reject
	for _, s := range sections {
		rs, err := a.applySection(d, s, ar.strip)
		if err != nil {
			return nil, err
		}
		rejects = append(rejects, rs...)
	}
	if len(rejects) > 0 {
		return nil, &RejectError{Rejects: rejects}
	}
	d.changes = merge(d.changes)
	if len(d.changes) == 0 {
		return nil, &RejectError{Rejects: []Reject{{File: "(patch)", Reason: "it changes nothing"}}}
	}
	return d, nil
}

// applySection applies one file's section. Problems with the files come
// back as rejects; a refused name or a bad argument is an error.
func (a *ApplyPatch) applySection(d *dryRun, s section, strip int) ([]Reject, error) {
	f := s.file
	oldName, newName, err := names(s, strip)
	if err != nil {
		return nil, err
	}
	display := newName
	if display == "" {
		display = oldName
	}
	problem := func(format string, args ...any) ([]Reject, error) {
		return []Reject{{File: display, Reason: fmt.Sprintf(format, args...)}}, nil
	}
	var src, dst *vfile
	if oldName != "" {
		if src, err = a.lookup(d, oldName); err != nil {
			return a.lookupProblem(oldName, err)
		}
	}
	if newName != "" {
		if newName == oldName {
			dst = src
		} else if dst, err = a.lookup(d, newName); err != nil {
			return a.lookupProblem(newName, err)
		}
	}
	if f.IsBinary {
		return problem("binary patches are not supported: apply_patch changes text files; write the file with file_write instead")
	}
	for _, m := range []fs.FileMode{f.OldMode, f.NewMode} {
		if m != 0 && m&0o170000 != 0o100000 {
			return problem("mode %o is not a regular file: apply_patch does not create or change symbolic links or submodules", uint32(m))
		}
	}
	change := FileChange{Path: display, Hunks: len(f.TextFragments)}
	for _, fr := range f.TextFragments {
		change.Added += int(fr.LinesAdded)
		change.Removed += int(fr.LinesDeleted)
	}
	switch {
	case f.IsNew:
		if dst.exists {
			return problem("the patch creates it, but it already exists: make the patch against its current content instead")
		}
		if err := a.creatable(d, dst); err != nil {
			return problem("%v", err)
		}
		data, rej := applyText(display, nil, f.TextFragments)
		if rej != nil {
			return rej, nil
		}
		dst.exists, dst.data, dst.perm = true, data, permOf(f.NewMode, 0o644)
		change.Action = "create"

	case f.IsDelete:
		if !src.exists {
			return problem("the patch deletes it, but it does not exist in the workspace")
		}
		if src.link {
			return problem("it is a symbolic link: apply_patch does not delete links")
		}
		data, rej := applyText(display, src.data, f.TextFragments)
		if rej != nil {
			return rej, nil
		}
		if len(data) != 0 {
			return problem("the patch deletes it but does not remove all of its %d lines: a deletion must remove every line", len(splitLines(data)))
		}
		src.exists, src.data = false, nil
		change.Action = "delete"

	case f.IsRename || f.IsCopy:
		verb := "copies"
		if f.IsRename {
			verb = "renames"
		}
		switch {
		case !src.exists:
			return problem("the patch %s %s, which does not exist in the workspace", verb, oldName)
		case f.IsRename && src.link:
			return problem("%s is a symbolic link: apply_patch does not rename links", oldName)
		case dst == src:
			return problem("the patch %s %s onto itself", verb, oldName)
		case dst.exists:
			return problem("the patch %s %s to it, but it already exists", verb, oldName)
		}
		if err := a.creatable(d, dst); err != nil {
			return problem("%v", err)
		}
		data, rej := applyText(display, src.data, f.TextFragments)
		if rej != nil {
			return rej, nil
		}
		dst.exists, dst.data, dst.perm = true, data, permOf(f.NewMode, src.perm)
		if f.IsRename {
			src.exists, src.data = false, nil
			change.Action = "rename"
		} else {
			change.Action = "copy"
		}
		change.From = oldName

	default:
		if oldName != newName {
			return problem("its old name %s and new name %s differ, but it is not marked as a rename", oldName, newName)
		}
		if !src.exists {
			return problem("it does not exist in the workspace: a patch that creates a file needs /dev/null as the old name")
		}
		modeChange := f.NewMode != 0 && f.OldMode != 0 && f.NewMode != f.OldMode
		if len(f.TextFragments) == 0 && !modeChange {
			return nil, nil // a header without changes
		}
		data, rej := applyText(display, src.data, f.TextFragments)
		if rej != nil {
			return rej, nil
		}
		src.data = data
		if modeChange {
			src.perm = permOf(f.NewMode, src.perm)
		}
		change.Action = "modify"
	}
	d.hunks += change.Hunks
	d.changes = append(d.changes, change)
	return nil, nil
}

// lookupProblem turns a failed lookup into a reject, or an error when the
// name is refused.
func (a *ApplyPatch) lookupProblem(name string, err error) ([]Reject, error) {
	if errors.Is(err, ErrRefused) || errors.Is(err, ErrInvalidArguments) {
		return nil, err
	}
	return []Reject{{File: name, Reason: err.Error()}}, nil
}

// permOf turns a git mode into permission bits: 0755 when it is executable,
// 0644 otherwise; fallback when the patch gives no mode.
func permOf(m fs.FileMode, fallback fs.FileMode) fs.FileMode {
	if m == 0 {
		return fallback
	}
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// lookup returns the file a name in the patch refers to, reading it on
// first use.
func (a *ApplyPatch) lookup(d *dryRun, name string) (*vfile, error) {
	real, err := a.root.ResolveForWrite(name)
	if err != nil {
		if errors.Is(err, workspace.ErrOutsideWorkspace) || errors.Is(err, workspace.ErrInvalidPath) ||
			errors.Is(err, workspace.ErrProtected) || errors.Is(err, workspace.ErrForbidden) {
			return nil, fmt.Errorf("%w: %v", ErrRefused, err)
		}
		return nil, err
	}
	if vf := d.byReal[real]; vf != nil {
		return vf, nil
	}
	vf := &vfile{real: real, rel: a.root.Rel(real)}
	if fi, err := a.root.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		vf.link = true
	}
	fi, err := a.root.Lstat(real)
	switch {
	case err == nil:
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("%s is a directory: a patch changes files", vf.rel)
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file", vf.rel)
		case fi.Size() > a.maxBytes:
			return nil, fmt.Errorf("%s is %d bytes; apply_patch changes files up to %d bytes: use file_write to replace it whole", vf.rel, fi.Size(), a.maxBytes)
		case d.read+fi.Size() > maxTotalBytes:
			return nil, fmt.Errorf("the files of the patch add up to more than %d bytes: split the patch", maxTotalBytes)
		}
		data, perm, err := a.readAtMost(real, a.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %v", vf.rel, err)
		}
		d.read += int64(len(data))
		vf.origExists, vf.orig, vf.origPerm = true, data, perm
		vf.exists, vf.data, vf.perm = true, data, perm
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
	default:
		return nil, fmt.Errorf("cannot use %s: %v", vf.rel, err)
	}
	d.byReal[real] = vf
	d.files = append(d.files, vf)
	return vf, nil
}

// creatable checks that f's directory can exist: every ancestor is a
// directory, missing, or a file the patch deletes.
func (a *ApplyPatch) creatable(d *dryRun, f *vfile) error {
	for dir := filepath.Dir(f.real); a.root.Contains(dir) && dir != a.root.Dir(); dir = filepath.Dir(dir) {
		if vf := d.byReal[dir]; vf != nil {
			if vf.exists {
				return fmt.Errorf("cannot create %s: %s is a file", f.rel, vf.rel)
			}
			continue
		}
		fi, err := a.root.Lstat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot create %s: %s is not a directory", f.rel, a.root.Rel(dir))
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("cannot create %s: %v", f.rel, err)
		}
	}
	return nil
}

// readAtMost reads the file real, failing if it holds more than max
// bytes, and returns its permission bits.
func (a *ApplyPatch) readAtMost(real string, max int64) ([]byte, fs.FileMode, error) {
	f, err := a.root.Open(real)
	if err != nil {
		return nil, 0, unwrapPath(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, unwrapPath(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, errors.New("it is not a regular file")
	}
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), max)) + 512)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, 0, unwrapPath(err)
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		return nil, 0, fmt.Errorf("it grew past %d bytes while being read", max)
	}
	return b, fi.Mode().Perm(), nil
}

// merge folds several sections on one file into one change, keeping the
// first section's order.
func merge(in []FileChange) []FileChange {
	var out []FileChange
	index := map[[3]string]int{}
	for _, c := range in {
		key := [3]string{c.Action, c.From, c.Path}
		if i, ok := index[key]; ok {
			out[i].Hunks += c.Hunks
			out[i].Added += c.Added
			out[i].Removed += c.Removed
			continue
		}
		index[key] = len(out)
		out = append(out, c)
	}
	return out
}
