package receipts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gowebpki/jcs"
)

// Redacted replaces the value of every argument whose key looks like a secret
// when arguments are stored.
const Redacted = "[REDACTED]"

// CanonicalArgs returns the RFC 8785 form of tool arguments, the bytes that
// args_sha256 hashes. Empty input and JSON null mean {}; anything but an
// object is an error, as are documents RFC 8785 cannot canonicalize
// (invalid UTF-8, duplicate keys, numbers outside IEEE 754 doubles).
//
// The runtime can call it before a tool runs, so a call whose receipt could
// not be issued is refused before it has any effect.
func CanonicalArgs(args json.RawMessage) ([]byte, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return []byte("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: arguments must be a JSON object", ErrInvalidArgs)
	}
	c, err := jcs.Transform(trimmed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	return c, nil
}

// RedactArgs returns canonical arguments with the value of every key that
// looks like a secret replaced by [Redacted], at any depth. A key looks like
// a secret when it contains "token", "secret", "password" or "key", ignoring
// case. The input must be canonical (see [CanonicalArgs]); so is the output.
func RedactArgs(canonical []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(canonical))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	v = redact(v)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	// json.Marshal sorts keys by bytes and escapes HTML characters; RFC 8785
	// sorts by UTF-16 code units and does not escape them, so canonicalize
	// again. Numbers keep their canonical text through json.Number.
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	return c, nil
}

func redact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if SecretKey(k) {
				t[k] = Redacted
			} else {
				t[k] = redact(val)
			}
		}
		return t
	case []any:
		for i := range t {
			t[i] = redact(t[i])
		}
		return t
	default:
		return v
	}
}

// SecretKey reports whether an argument name looks like it holds a secret:
// it contains token, secret, password or key, in any case.
func SecretKey(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "token") || strings.Contains(l, "secret") ||
		strings.Contains(l, "password") || strings.Contains(l, "key")
}
