// Package spelling suggests the intended word for a misspelled name, for
// "did you mean" hints in errors about config keys and tool names.
package spelling

// Closest returns the candidate nearest to word by edit distance, or "" when
// none is close enough to be a plausible typo (distance at most a third of
// the word's length, and at least 1).
func Closest(word string, candidates []string) string {
	best, bestD := "", -1
	limit := len([]rune(word)) / 3
	if limit < 2 {
		limit = 2
	}
	for _, c := range candidates {
		d := distance(word, c)
		if d > limit {
			continue
		}
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance over runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
