package locales

import "strings"

// Format renders r as Fluent source. ParseFTL reads the result back to the
// same ids, values, attributes and comments; standalone comments and the
// original layout are not kept.
func (r *Resource) Format() []byte {
	var b strings.Builder
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(FormatMessage(m))
	}
	return []byte(b.String())
}

// FormatMessage renders one message as Fluent source ending in a newline: its
// comment lines, "id = value", then its attributes sorted by name. Text that
// Fluent would otherwise drop or misread (leading or trailing spaces, braces,
// a line starting with "[", "*" or ".") is written as string literals.
func FormatMessage(m Message) string {
	var b strings.Builder
	if m.Comment != "" {
		for line := range strings.SplitSeq(m.Comment, "\n") {
			if line == "" {
				b.WriteString("#\n")
			} else {
				b.WriteString("# " + line + "\n")
			}
		}
	}
	b.WriteString(m.ID + " =")
	writePattern(&b, m.Value, "    ")
	for _, name := range sortedKeys(m.Attributes) {
		b.WriteString("    ." + name + " =")
		writePattern(&b, m.Attributes[name], "        ")
	}
	return b.String()
}

// writePattern writes a canonical pattern after "=", including the final
// newline: on the same line when it is one line, else as indented lines.
func writePattern(b *strings.Builder, pattern, indent string) {
	if pattern == "" {
		b.WriteByte('\n')
		return
	}
	lines := [][]element{nil}
	for _, el := range parseCanonical(pattern) {
		if el.variable != "" {
			lines[len(lines)-1] = append(lines[len(lines)-1], el)
			continue
		}
		for i, part := range strings.Split(el.text, "\n") {
			if i > 0 {
				lines = append(lines, nil)
			}
			if part != "" {
				lines[len(lines)-1] = append(lines[len(lines)-1], element{text: part})
			}
		}
	}
	if len(lines) == 1 {
		b.WriteString(" " + lineSource(lines[0], false) + "\n")
		return
	}
	b.WriteByte('\n')
	for _, l := range lines {
		b.WriteString(indent + lineSource(l, true) + "\n")
	}
}

// lineSource renders the elements of one line of a pattern. A continuation
// line must not start with a character Fluent reads as syntax there.
func lineSource(els []element, continuation bool) string {
	if len(els) == 0 {
		return `{""}`
	}
	var b strings.Builder
	for i, el := range els {
		if el.variable != "" {
			b.WriteString("{ $" + el.variable + " }")
			continue
		}
		t := el.text
		if i == 0 {
			if lead := len(t) - len(strings.TrimLeft(t, " ")); lead > 0 {
				b.WriteString(stringLiteral(t[:lead]))
				t = t[lead:]
			} else if continuation && t != "" && strings.ContainsRune("[*.", rune(t[0])) {
				b.WriteString(stringLiteral(t[:1]))
				t = t[1:]
			}
		}
		trail := ""
		if i == len(els)-1 {
			trimmed := strings.TrimRight(t, " ")
			trail, t = t[len(trimmed):], trimmed
		}
		for _, r := range t {
			switch r {
			case '{':
				b.WriteString(`{"{"}`)
			case '}':
				b.WriteString(`{"}"}`)
			case '\r':
				b.WriteString(`{"\u000D"}`)
			default:
				b.WriteRune(r)
			}
		}
		if trail != "" {
			b.WriteString(stringLiteral(trail))
		}
	}
	return b.String()
}

func stringLiteral(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", `\u000D`)
	return `{"` + r.Replace(s) + `"}`
}
