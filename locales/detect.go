package locales

import (
	"strings"

	"golang.org/x/text/language"
)

// Detect picks the locale to show: the --locale flag, then the configured
// locale, then the environment variables LANGUAGE (a colon-separated list;
// its first usable entry), LC_ALL, LC_MESSAGES and LANG. Empty values, "C",
// "POSIX" and values that are not language tags are skipped. The result is a
// BCP 47 tag such as "ja-JP" (from "ja_JP.UTF-8"), or "en" when nothing is
// usable. getenv is usually os.Getenv; nil reads no environment.
func Detect(flag, configured string, getenv func(string) string) string {
	if tag, ok := Normalize(flag); ok {
		return tag
	}
	if tag, ok := Normalize(configured); ok {
		return tag
	}
	if getenv == nil {
		return "en"
	}
	for entry := range strings.SplitSeq(getenv("LANGUAGE"), ":") {
		if tag, ok := Normalize(entry); ok {
			return tag
		}
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if tag, ok := Normalize(getenv(name)); ok {
			return tag
		}
	}
	return "en"
}

// Normalize turns a POSIX locale name or a language tag into a BCP 47 tag:
// "zh_CN.UTF-8" -> "zh-CN", "ja_JP.UTF-8@euro" -> "ja-JP", "ja" -> "ja". It
// reports false for "", "C", "POSIX" (with or without a codeset, as in
// "C.UTF-8") and anything that is not a well-formed, known language tag.
func Normalize(locale string) (string, bool) {
	s := strings.TrimSpace(locale)
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	if s == "" || s == "C" || s == "POSIX" {
		return "", false
	}
	tag, err := language.Parse(strings.ReplaceAll(s, "_", "-"))
	if err != nil || tag == language.Und {
		return "", false
	}
	return tag.String(), true
}
