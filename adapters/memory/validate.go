package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// normalize checks a memory before it is stored and tidies its category
// and tags.
func normalize(m *Memory) error {
	if m.Key != "" {
		if err := checkKey(m.Key); err != nil {
			return err
		}
	}
	if strings.TrimSpace(m.Content) == "" {
		return fmt.Errorf("%w: pass the text to remember", ErrEmptyContent)
	}
	if len(m.Content) > MaxContentBytes {
		return fmt.Errorf("%w: %d bytes, and the limit is %d; store a summary, or split it over several keys", ErrContentTooLarge, len(m.Content), MaxContentBytes)
	}
	var err error
	if m.Category, err = cleanCategory(m.Category); err != nil {
		return err
	}
	m.Tags, err = cleanTags(m.Tags)
	return err
}

// checkKey accepts 1 to [MaxKeyBytes] bytes of UTF-8 without whitespace or
// control characters.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: the key is empty; give the key memory_store returned, or find it with memory_recall", ErrInvalidKey)
	case len(key) > MaxKeyBytes:
		return fmt.Errorf("%w: the key is %d bytes and the limit is %d; use a short name such as user-editor", ErrInvalidKey, len(key), MaxKeyBytes)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: the key is not valid UTF-8", ErrInvalidKey)
	case strings.ContainsFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return fmt.Errorf("%w %q: keys cannot hold spaces or control characters; use - or _ between words", ErrInvalidKey, key)
	}
	return nil
}

// cleanCategory trims a category and checks it; "" means none.
func cleanCategory(c string) (string, error) {
	c = strings.TrimSpace(c)
	switch {
	case len(c) > MaxCategoryBytes:
		return "", fmt.Errorf("%w: the category is %d bytes and the limit is %d; use a short label such as preferences", ErrInvalidCategory, len(c), MaxCategoryBytes)
	case !utf8.ValidString(c):
		return "", fmt.Errorf("%w: the category is not valid UTF-8", ErrInvalidCategory)
	case strings.ContainsFunc(c, unicode.IsControl):
		return "", fmt.Errorf("%w %q: categories cannot hold control characters or line breaks", ErrInvalidCategory, c)
	}
	return c, nil
}

// cleanTags trims tags, drops repeats (ignoring case) and checks them.
func cleanTags(tags []string) ([]string, error) {
	if len(tags) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			return nil, fmt.Errorf("%w: a tag is empty; leave it out", ErrInvalidTags)
		case len(t) > MaxTagBytes:
			return nil, fmt.Errorf("%w: tag %q is %d bytes and the limit is %d", ErrInvalidTags, t, len(t), MaxTagBytes)
		case !utf8.ValidString(t):
			return nil, fmt.Errorf("%w: a tag is not valid UTF-8", ErrInvalidTags)
		case strings.ContainsFunc(t, unicode.IsControl):
			return nil, fmt.Errorf("%w %q: tags cannot hold control characters or line breaks", ErrInvalidTags, t)
		}
		if k := strings.ToLower(t); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags, and the limit is %d; keep the ones you will search by", ErrInvalidTags, len(out), MaxTags)
	}
	return out, nil
}

// dateLayout is a calendar day, read in UTC.
const dateLayout = "2006-01-02"

// ParseTime reads a recall bound: RFC 3339 (2024-05-01T09:30:00+09:00) or a
// day (2024-05-01, in UTC). A day as an upper bound (endOfDay) covers the
// whole day; as a lower bound it starts at midnight.
func ParseTime(s string, endOfDay bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	d, err := time.Parse(dateLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q is not a time; use RFC 3339 (2024-05-01T09:30:00Z) or a date (2024-05-01)", ErrInvalidQuery, s)
	}
	if endOfDay {
		return d.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
	}
	return d, nil
}
