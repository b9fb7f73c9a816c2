package memory

import "errors"

// Errors of the store. Each is wrapped with the detail of the call and,
// where a person or a model can act on it, what to do next.
var (
	// ErrNotFound reports a key the namespace does not hold.
	ErrNotFound = errors.New("no such memory")
	// ErrNoDataDir reports a store built without a database path.
	ErrNoDataDir = errors.New("no data directory for the memory database")
	// ErrClosed reports a call on a closed store.
	ErrClosed = errors.New("memory store is closed")
	// ErrInvalidKey reports a key that is empty, too long, or holds
	// whitespace or control characters.
	ErrInvalidKey = errors.New("invalid memory key")
	// ErrInvalidCategory reports a category that is too long or holds
	// control characters.
	ErrInvalidCategory = errors.New("invalid category")
	// ErrInvalidTags reports too many tags, or an empty, overlong or
	// control-character tag.
	ErrInvalidTags = errors.New("invalid tags")
	// ErrEmptyContent reports content that is empty or only whitespace.
	ErrEmptyContent = errors.New("content is empty")
	// ErrContentTooLarge reports content over [MaxContentBytes].
	ErrContentTooLarge = errors.New("content is too large")
	// ErrNoKeywords reports a keyword search whose query holds no word.
	ErrNoKeywords = errors.New("query holds no keywords")
	// ErrQueryTooLong reports a query over [MaxQueryBytes] or
	// [MaxQueryWords].
	ErrQueryTooLong = errors.New("query is too long")
	// ErrInvalidQuery reports a mode, limit or time range a recall cannot
	// use.
	ErrInvalidQuery = errors.New("invalid recall")
	// ErrBusy reports a database that another process kept locked for
	// longer than the busy timeout.
	ErrBusy = errors.New("memory database is busy")
	// ErrSchemaTooNew reports a database written by a newer talon.
	ErrSchemaTooNew = errors.New("memory database is newer than this talon")
)
