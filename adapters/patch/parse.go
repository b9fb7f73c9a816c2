package patch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// section is one file's part of a patch.
type section struct {
	file *gitdiff.File
	// git is set for a section with a "diff --git" header, whose names
	// the parser has already stripped of one component (a/ and b/).
	git bool
	// line is where the section's chunk starts in the patch, from 1.
	line int
}

var parserLine = regexp.MustCompile(`^gitdiff: line (\d+): `)

// parse splits the patch at its "diff --git" lines and parses each chunk,
// so every file is known to come from a git header or a traditional one.
// A "diff --git" line can never be part of a hunk (hunk lines start with
// ' ', '+', '-' or '\'), so the split is exact.
func parse(text string) ([]section, error) {
	var out []section
	start, startLine, line := 0, 1, 1
	flush := func(end int) error {
		chunk := text[start:end]
		if strings.TrimSpace(chunk) == "" {
			return nil
		}
		files, _, err := gitdiff.Parse(strings.NewReader(chunk))
		if err != nil {
			return fmt.Errorf("%w: %s", ErrMalformed, relocate(err.Error(), startLine-1))
		}
		isGit := strings.HasPrefix(chunk, "diff --git ")
		for i, f := range files {
			out = append(out, section{file: f, git: isGit && i == 0, line: startLine})
		}
		return nil
	}
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		next := len(text)
		if end >= 0 {
			next = i + end + 1
		}
		if i > start && strings.HasPrefix(text[i:], "diff --git ") {
			if err := flush(i); err != nil {
				return nil, err
			}
			start, startLine = i, line
		}
		i = next
		line++
	}
	if err := flush(len(text)); err != nil {
		return nil, err
	}
	return out, nil
}

// relocate shifts the parser's "gitdiff: line N:" by offset lines, so the
// line number counts from the start of the whole patch.
func relocate(msg string, offset int) string {
	m := parserLine.FindStringSubmatch(msg)
	if m == nil {
		return strings.TrimPrefix(msg, "gitdiff: ")
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return msg
	}
	return fmt.Sprintf("line %d: %s", n+offset, msg[len(m[0]):])
}

// names returns the workspace-relative names of a section after strip:
// old is "" for a creation and new is "" for a deletion.
func names(s section, strip int) (old, new string, err error) {
	n := strip
	if s.git {
		if strip == 0 {
			return "", "", fmt.Errorf("%w: strip 0 cannot be used with a git-format section (diff --git, line %d), whose names always carry a prefix such as a/ and b/: use strip 1 or more", ErrInvalidArguments, s.line)
		}
		n = strip - 1
	}
	if !s.file.IsNew {
		if old, err = cleanName(s.file.OldName, n, strip); err != nil {
			return "", "", err
		}
	}
	if !s.file.IsDelete {
		if new, err = cleanName(s.file.NewName, n, strip); err != nil {
			return "", "", err
		}
	}
	return old, new, nil
}

// cleanName strips n leading components from a name in the patch and
// checks what is left: a relative path without "..", not inside .git.
func cleanName(name string, n, strip int) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: a file in the patch has no name: give every file ---/+++ lines", ErrMalformed)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%w: the name %q contains a control character (a patch with CRLF line endings has them in every header): convert the patch's header lines to LF", ErrMalformed, name)
		}
	}
	if strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':') || strings.HasPrefix(name, `\`) {
		return "", fmt.Errorf("%w: %q is an absolute path: names in a patch are relative to the workspace", ErrRefused, name)
	}
	parts := strings.Split(name, "/")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" && p != "." {
			kept = append(kept, p)
		}
	}
	if len(kept) <= n {
		return "", fmt.Errorf("%w: strip %d removes the whole name %q: lower strip", ErrInvalidArguments, strip, name)
	}
	kept = kept[n:]
	for _, p := range kept {
		if p == ".." {
			return "", fmt.Errorf("%w: %q contains \"..\": names in a patch must stay inside the workspace", ErrRefused, name)
		}
		if strings.EqualFold(p, ".git") {
			return "", fmt.Errorf("%w: %q is inside .git: apply_patch changes the working tree only", ErrRefused, name)
		}
	}
	return strings.Join(kept, "/"), nil
}
