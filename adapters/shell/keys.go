package shell

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// ErrUnknownKey reports a send_keys name talon does not know.
var ErrUnknownKey = errors.New("unknown key name")

// namedKeys are the bytes a terminal sends for each key, as xterm sends
// them in its default (normal cursor) mode.
var namedKeys = map[string]string{
	"Enter": "\r", "Tab": "\t", "BTab": "\x1b[Z", "Space": " ", "Escape": "\x1b", "BSpace": "\x7f",
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Home": "\x1b[H", "End": "\x1b[F", "PageUp": "\x1b[5~", "PageDown": "\x1b[6~",
	"Insert": "\x1b[2~", "Delete": "\x1b[3~",
	"F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS",
	"F5": "\x1b[15~", "F6": "\x1b[17~", "F7": "\x1b[18~", "F8": "\x1b[19~",
	"F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~", "F12": "\x1b[24~",
}

// keyAliases are other names of the same keys (tmux's among them).
var keyAliases = map[string]string{
	"Return": "Enter", "Esc": "Escape", "Backspace": "BSpace", "PgUp": "PageUp", "PPage": "PageUp",
	"PgDn": "PageDown", "NPage": "PageDown", "IC": "Insert", "DC": "Delete", "Del": "Delete",
}

// KeyNames returns the key names send_keys takes besides C-x (control),
// M-x (meta) and single characters, sorted.
func KeyNames() []string {
	out := make([]string, 0, len(namedKeys)+len(keyAliases))
	for k := range namedKeys {
		out = append(out, k)
	}
	for k := range keyAliases {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lookupKey finds a named key, ignoring case.
func lookupKey(name string) (string, bool) {
	for k, v := range namedKeys {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	for k, v := range keyAliases {
		if strings.EqualFold(k, name) {
			return namedKeys[v], true
		}
	}
	return "", false
}

// encodeKeys turns key names into the bytes a terminal would send: named
// keys, C-x for control (C-c is 0x03, C-[ escape, C-@ NUL), M-x for
// escape followed by x (M-Enter, M-b), and a single character as itself.
// Anything else is refused, so a misspelt name never types itself.
// Without a terminal (pty false), Enter is a newline, what a program
// reading a pipe expects.
func encodeKeys(keys []string, pty bool) ([]byte, error) {
	var b []byte
	for _, k := range keys {
		seq, err := encodeKey(k)
		if err != nil {
			return nil, err
		}
		if !pty && seq == "\r" && utf8.RuneCountInString(k) > 1 {
			seq = "\n"
		}
		b = append(b, seq...)
	}
	return b, nil
}

func encodeKey(k string) (string, error) {
	if utf8.RuneCountInString(k) == 1 {
		return k, nil
	}
	if seq, ok := lookupKey(k); ok {
		return seq, nil
	}
	if len(k) > 2 && (k[0] == 'M' || k[0] == 'm') && k[1] == '-' {
		inner, err := encodeKey(k[2:])
		if err != nil {
			return "", err
		}
		return "\x1b" + inner, nil
	}
	if len(k) == 3 && (k[0] == 'C' || k[0] == 'c') && k[1] == '-' {
		if c, ok := control(k[2]); ok {
			return string([]byte{c}), nil
		}
	}
	return "", fmt.Errorf("%w %q: use a name like Enter, Tab, Escape, BSpace, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1-F12, C-c (control), M-x (meta) or one character; send text with write or paste", ErrUnknownKey, k)
}

// control is the byte of Ctrl+c.
func control(c byte) (byte, bool) {
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 1, true
	case c >= 'A' && c <= 'Z':
		return c - 'A' + 1, true
	case c == '@' || c == ' ' || c == '2':
		return 0, true
	case c == '[':
		return 0x1b, true
	case c == '\\':
		return 0x1c, true
	case c == ']':
		return 0x1d, true
	case c == '^' || c == '6':
		return 0x1e, true
	case c == '_' || c == '/':
		return 0x1f, true
	case c == '?':
		return 0x7f, true
	}
	return 0, false
}
