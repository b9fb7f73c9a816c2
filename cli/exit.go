package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// Exit codes. They are part of talon's interface and documented in the README.
const (
	ExitOK       = 0
	ExitError    = 1 // internal or unexpected error
	ExitUsage    = 2 // bad flags, arguments or configuration; unknown tool
	ExitToolFail = 3 // the tool ran (or was refused by its schema) and failed
	ExitDenied   = 4 // denied by policy or by a person; nothing ran
	ExitPending  = 5 // an approval is pending; nothing ran yet
	ExitVerify   = 6 // a verification found a bad record
	ExitCanceled = 130
)

// ExitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode attaches an exit code to an error.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf is a usage error.
func usageErrorf(format string, a ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, a...))
}

// errSilent reports an exit code whose message was already printed.
type errSilent int

func (e errSilent) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// ExitCode maps an error to talon's exit code. It is the only place that
// does.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var s errSilent
	if errors.As(err, &s) {
		return int(s)
	}
	var cerr *config.Error
	switch {
	case errors.As(err, &cerr),
		errors.Is(err, runtime.ErrUnknownTool),
		errors.Is(err, catalog.ErrUnknownTool),
		errors.Is(err, risk.ErrUnknownProfile),
		errors.Is(err, risk.ErrInvalidProfile),
		errors.Is(err, tool.ErrArgumentsNotObject),
		errors.Is(err, tool.ErrArgumentsMalformed):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitCanceled
	}
	return ExitError
}

// resultCode is the exit code of a finished call.
func resultCode(r tool.Result) int {
	switch {
	case r.Success:
		return ExitOK
	case r.Denied:
		return ExitDenied
	case r.Pending != "":
		return ExitPending
	default:
		return ExitToolFail
	}
}
