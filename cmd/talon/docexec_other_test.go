//go:build !unix

package main

import (
	"context"
	"errors"
	"io"
)

// runDocProgram is unix-only: the documents' flows assume a unix shell.
func runDocProgram(context.Context, string, []string, []string, io.Writer) (int, error) {
	return 0, errors.New("console examples run programs only on unix")
}
