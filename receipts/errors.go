package receipts

import "errors"

// Sentinel errors. Every error the package returns wraps one of these, so a
// caller can test with [errors.Is] and still show the wrapped message, which
// says what to do next.
var (
	// ErrInvalidOptions means Open was given options it cannot use.
	ErrInvalidOptions = errors.New("invalid receipt store options")
	// ErrClosed is returned by Issue and RotateKey after Close.
	ErrClosed = errors.New("receipt store is closed")
	// ErrKeyPermissions means the private key file is readable or writable
	// by someone other than its owner.
	ErrKeyPermissions = errors.New("receipt key file permissions are too open")
	// ErrInvalidKey means a key file or public key line could not be decoded.
	ErrInvalidKey = errors.New("invalid receipt key")
	// ErrUnknownKey means Open found receipts signed by a key that the
	// directory's public key file does not list.
	ErrUnknownKey = errors.New("receipts signed by an unknown key")
	// ErrInvalidEntry means Issue was given an entry it cannot record.
	ErrInvalidEntry = errors.New("invalid receipt entry")
	// ErrInvalidArgs means the arguments are not JSON that RFC 8785 can
	// canonicalize (I-JSON: valid UTF-8, no duplicate keys, finite numbers).
	ErrInvalidArgs = errors.New("arguments cannot be canonicalized")
	// ErrInvalidRecord means a line is not a valid version 1 receipt record.
	ErrInvalidRecord = errors.New("invalid receipt record")
	// ErrInvalidToken means a string is not a tr1 receipt token.
	ErrInvalidToken = errors.New("invalid receipt token")
	// ErrBadSignature means a signature does not verify under the key.
	ErrBadSignature = errors.New("receipt signature does not verify")
	// ErrNotFound means no receipt matched the id, seq or token.
	ErrNotFound = errors.New("receipt not found")
	// ErrAmbiguous means a bare seq matched receipts of several chains.
	ErrAmbiguous = errors.New("receipt seq is ambiguous")
	// ErrNoPublicKey means Verify had no key: none was passed and the
	// directory has no public key file.
	ErrNoPublicKey = errors.New("no public key to verify receipts with")
	// ErrDamaged means some lines of the log could not be read as records.
	// List, Find and Export return it together with what they could read.
	ErrDamaged = errors.New("receipt log is damaged")
	// ErrStoreFailed means a write or fsync failed; the store refuses further
	// receipts because the state of the file on disk is unknown.
	ErrStoreFailed = errors.New("receipt store failed")
	// ErrRotationPending means RotateKey was called while an earlier rotation
	// is waiting for its first receipt.
	ErrRotationPending = errors.New("a receipt key rotation is already pending")
	// ErrInvalidCursor means a page cursor given to Recent is not one it
	// wrote.
	ErrInvalidCursor = errors.New("invalid receipts page cursor")
	// ErrChainBroken means a chain does not continue from the record
	// before: a [Follower] found a seq out of place or a prev that does
	// not match.
	ErrChainBroken = errors.New("receipt chain does not continue")
)
