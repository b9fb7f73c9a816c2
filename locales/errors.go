package locales

import (
	"errors"
	"fmt"
)

var (
	// ErrSyntax is wrapped by every [*ParseError].
	ErrSyntax = errors.New("invalid fluent syntax")
	// ErrTooLarge reports a message file over the size limit.
	ErrTooLarge = errors.New("message file too large")
	// ErrLanguageDir reports a directory whose name is not a language tag.
	ErrLanguageDir = errors.New("not a language directory")
	// ErrDuplicateKey reports a key defined twice within one language of one source.
	ErrDuplicateKey = errors.New("duplicate message key")
	// ErrSource reports an unusable source name passed to [Bundle.AddFS].
	ErrSource = errors.New("invalid message source")
)

// ParseError is a problem in a Fluent file, located by file name and line.
type ParseError struct {
	File string // as passed to ParseFTL; may be empty
	Line int    // 1-based
	Msg  string // what is wrong and how to fix it
}

func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Unwrap returns [ErrSyntax].
func (e *ParseError) Unwrap() error { return ErrSyntax }
