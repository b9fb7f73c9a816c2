package fsx

import (
	"os"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
)

func init() {
	register := func(name string, tier tool.Tier, build func(*workspace.Root, limits, toolfactory.Env) tool.Tool) {
		toolfactory.Register(toolfactory.Factory{
			Name: name,
			Tier: tier,
			New: func(env toolfactory.Env) (tool.Tool, error) {
				root, err := workspace.Open(env.Workspace, workspace.Options{Protected: protectedFor(env)})
				if err != nil {
					return nil, err
				}
				return build(root, limitsFrom(env), env), nil
			},
		})
	}
	register("file_read", tool.Low, func(root *workspace.Root, l limits, _ toolfactory.Env) tool.Tool {
		return NewReadFile(root, ReadFileOptions{MaxBytes: l.readMaxBytes})
	})
	register("glob_search", tool.Low, func(root *workspace.Root, l limits, env toolfactory.Env) tool.Tool {
		return NewGlobSearch(root, GlobSearchOptions{MaxResults: l.globMaxResults, Logger: env.Logger})
	})
	register("content_search", tool.Low, func(root *workspace.Root, l limits, env toolfactory.Env) tool.Tool {
		return NewContentSearch(root, ContentSearchOptions{MaxResults: l.searchMaxResults, Logger: env.Logger})
	})
	register("file_write", tool.Medium, func(root *workspace.Root, _ limits, _ toolfactory.Env) tool.Tool {
		return NewWriteFile(root, WriteFileOptions{})
	})
	register("file_edit", tool.Medium, func(root *workspace.Root, _ limits, _ toolfactory.Env) tool.Tool {
		return NewEditFile(root, EditFileOptions{})
	})
}

// protectedFor returns the protected paths for tools built from env:
// env.Protected, or, when that is empty, the list [risk.ProtectedPaths]
// derives from env's config, data directory and the process environment,
// so a tool is never built without one.
func protectedFor(env toolfactory.Env) workspace.Protected {
	if !env.Protected.IsZero() {
		return env.Protected
	}
	return risk.ProtectedPaths(env.Config, env.DataDir, os.Getenv)
}

// limits are the configurable caps of the file tools.
type limits struct {
	readMaxBytes     int
	globMaxResults   int
	searchMaxResults int
}

// limitsFrom reads the caps from the configuration; a nil Config means
// the documented defaults.
func limitsFrom(env toolfactory.Env) limits {
	var t config.Tools
	if env.Config != nil {
		t = env.Config.Tools
	}
	return limits{
		readMaxBytes:     t.FileRead.ByteLimit(),
		globMaxResults:   t.GlobSearch.ResultLimit(),
		searchMaxResults: t.ContentSearch.ResultLimit(),
	}
}
