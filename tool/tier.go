package tool

import (
	"fmt"
	"strings"
)

// Tier is the risk class of a call. The zero value is not a tier: a spec or
// assessment that leaves it unset is treated as [High] (see [Tier.Effective]),
// so forgetting to classify a tool can only make it harder to run.
type Tier uint8

const (
	// Low calls read and have no side effects.
	Low Tier = iota + 1
	// Medium calls change local state.
	Medium
	// High calls are destructive, have remote side effects, or could not be
	// analysed.
	High
)

// Effective returns t, or High when t is unset or out of range.
func (t Tier) Effective() Tier {
	if t < Low || t > High {
		return High
	}
	return t
}

// String returns "low", "medium" or "high".
func (t Tier) String() string {
	switch t.Effective() {
	case Low:
		return "low"
	case Medium:
		return "medium"
	default:
		return "high"
	}
}

// MarshalText encodes the tier by name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText decodes a tier name; see [ParseTier].
func (t *Tier) UnmarshalText(b []byte) error {
	v, err := ParseTier(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// ParseTier parses "low", "medium" or "high" (case-insensitive).
func ParseTier(s string) (Tier, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "low":
		return Low, nil
	case "medium":
		return Medium, nil
	case "high":
		return High, nil
	}
	return 0, fmt.Errorf("unknown tier %q: use low, medium or high", s)
}

// MaxTier returns the higher of two tiers, treating unset as High.
func MaxTier(a, b Tier) Tier {
	a, b = a.Effective(), b.Effective()
	if a > b {
		return a
	}
	return b
}
