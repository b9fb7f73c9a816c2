package fsx

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/workspace"
)

// walkFiles calls visit for every regular file under start, a real
// directory inside the workspace, in lexical order. path is where the walk
// found the file and real is where it lives: they differ for a symbolic
// link, which is visited only when its target is a regular file inside the
// workspace. Links to directories are never followed, .git is skipped, and
// unreadable directories are logged and skipped. The walk stops at the
// first error visit returns, or when ctx is done.
func walkFiles(ctx context.Context, root *workspace.Root, start string, log zerolog.Logger,
	visit func(path, real string) error) error {
	return filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == start {
				return err
			}
			log.Debug().Err(err).Str("path", root.Rel(path)).Msg("skipping unreadable entry")
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if path != start && d.Name() == ".git" {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case d.Type().IsRegular():
			return visit(path, path)
		case d.Type()&fs.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(path)
			if err != nil || !root.Contains(real) {
				return nil
			}
			fi, err := os.Stat(real)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			return visit(path, real)
		}
		return nil
	})
}
