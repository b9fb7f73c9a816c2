package fsx

import (
	"github.com/talonhq/talon/config"
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
				root, err := workspace.New(env.Workspace)
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
