package locales

import "strings"

// ToolID is the message id of a tool's description: "tool-" and the tool
// name with every character other than a letter, digit or "-" written as
// "-", so "file_read" becomes "tool-file-read".
func ToolID(tool string) string { return "tool-" + hyphenate(tool) }

// ParamID is the message id of a tool parameter's description, for example
// "tool-file-read-param-offset".
func ParamID(tool, param string) string { return ToolID(tool) + "-param-" + hyphenate(param) }

// ErrorID is the message id of one of a tool's error texts, for example
// "tool-file-read-error-binary".
func ErrorID(tool, slug string) string { return ToolID(tool) + "-error-" + hyphenate(slug) }

func hyphenate(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
}
