package fleet

import "errors"

// Sentinel errors. Every error the package returns that a caller may act
// on wraps one of these, and its message says what to do next.
var (
	// ErrInvalidOptions means New or Connect was given options it cannot
	// use (an empty or malformed URL, a bad host id).
	ErrInvalidOptions = errors.New("invalid fleet options")
	// ErrUnreachable means the database could not be reached.
	ErrUnreachable = errors.New("fleet database unreachable")
	// ErrAuth means the database refused the credentials.
	ErrAuth = errors.New("fleet database refused the credentials")
	// ErrNotMigrated means the database has no talon schema yet, or an
	// older one than this talon needs.
	ErrNotMigrated = errors.New("fleet database schema is missing or older than this talon")
	// ErrSchemaNewer means the database's schema was made by a newer talon.
	ErrSchemaNewer = errors.New("fleet database schema is newer than this talon")
	// ErrHostClaimed means another machine already uses this host id.
	ErrHostClaimed = errors.New("fleet host id is claimed by another machine")
	// ErrNoApproval means no approval has the id.
	ErrNoApproval = errors.New("no fleet approval with that id")
	// ErrAnswered means the approval was already answered.
	ErrAnswered = errors.New("fleet approval already answered")
	// ErrExpired means the approval is no longer waiting: it timed out, or
	// its call stopped waiting.
	ErrExpired = errors.New("fleet approval no longer waiting")
	// ErrNotApplied means the answer was recorded but did not reach the
	// waiting call: another answer reached it first, or the call had
	// stopped waiting.
	ErrNotApplied = errors.New("fleet answer did not reach the waiting call")
)
