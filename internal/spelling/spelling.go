// Package spelling suggests the intended word for a misspelled name, for
// "did you mean" hints in errors about config keys and tool names.
package spelling

import "strings"

// Closest returns the candidate nearest to word, or "" when none is a
// plausible typo. Candidates that differ only in case or in '-' versus '_'
// win outright; otherwise the edit distance may be at most a third of the
// candidate's length (between 1 and 3); failing that, a candidate that
// extends the word (or that the word extends), four characters or longer,
// is offered.
func Closest(word string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	best, bestDist := "", -1
	for _, c := range candidates {
		if norm(c) == norm(word) {
			return c
		}
		d := distance(word, c)
		limit := max(1, min(3, len(c)/3))
		if d <= limit && (bestDist < 0 || d < bestDist || (d == bestDist && c < best)) {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	for _, c := range candidates {
		if len(word) >= 4 && (strings.HasPrefix(c, word) || strings.HasPrefix(word, c) && len(c) >= 4) {
			return c
		}
	}
	return ""
}

// distance is the Levenshtein distance between a and b in bytes; long
// strings (over 64 bytes) only compare equal or maximally different, which
// keeps hostile input cheap.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
