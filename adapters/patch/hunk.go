package patch

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// maxMismatches is how many differing lines a rejected hunk shows.
const maxMismatches = 5

// Reject is one hunk that did not apply.
type Reject struct {
	// File is the workspace-relative name.
	File string `json:"file"`
	// Hunk counts the file's hunks from 1; Hunks is how many it has.
	Hunk  int `json:"hunk"`
	Hunks int `json:"hunks"`
	// Header is the hunk's "@@ -a,b +c,d @@" line.
	Header string `json:"header"`
	// Reason says why, in a sentence.
	Reason string `json:"reason"`
	// Mismatches are the lines that differ where the header says the hunk
	// belongs.
	Mismatches []Mismatch `json:"mismatches,omitempty"`
}

// Mismatch is one line the patch expected and what the file has there.
type Mismatch struct {
	// Line is the file's line number, from 1.
	Line int    `json:"line"`
	Want string `json:"want"`
	Got  string `json:"got"`
	// Missing is set when the file ends before this line.
	Missing bool `json:"missing,omitempty"`
}

// String renders the reject for the model.
func (r Reject) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: hunk %d of %d (%s): %s", r.File, r.Hunk, r.Hunks, r.Header, r.Reason)
	for _, m := range r.Mismatches {
		if m.Missing {
			fmt.Fprintf(&b, "\n  line %d: expected %q, but the file ends before it", m.Line, m.Want)
			continue
		}
		fmt.Fprintf(&b, "\n  line %d: expected %q\n  %s  found    %q", m.Line, m.Want, strings.Repeat(" ", len(fmt.Sprint(m.Line))+5), m.Got)
	}
	return b.String()
}

// line is one line of text split from its ending: "\n", "\r\n", or "" for
// a last line without a newline.
type line struct {
	body []byte
	eol  string
}

func splitLines(b []byte) []line {
	out := make([]line, 0, bytes.Count(b, []byte{'\n'})+1)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, line{body: b})
			break
		}
		body, eol := b[:i], "\n"
		if i > 0 && b[i-1] == '\r' {
			body, eol = b[:i-1], "\r\n"
		}
		out = append(out, line{body: body, eol: eol})
		b = b[i+1:]
	}
	return out
}

func patchLine(s string) line {
	if body, ok := strings.CutSuffix(s, "\r\n"); ok {
		return line{body: []byte(body), eol: "\r\n"}
	}
	if body, ok := strings.CutSuffix(s, "\n"); ok {
		return line{body: []byte(body), eol: "\n"}
	}
	return line{body: []byte(s)}
}

// same compares a file's line with a patch's: the text exactly, and
// whether each ends the file without a newline; LF and CRLF are equal.
func same(a, b line) bool {
	return bytes.Equal(a.body, b.body) && (a.eol == "") == (b.eol == "")
}

// mostlyCRLF reports whether more of the lines end in CRLF than in LF.
func mostlyCRLF(lines []line) bool {
	crlf, lf := 0, 0
	for _, l := range lines {
		switch l.eol {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	return crlf > lf
}

// applyText applies a file's hunks to its content in order. It returns the
// new content, or the hunks that did not apply; hunks after a rejected one
// are still tried, so every reject is reported at once.
func applyText(file string, content []byte, frags []*gitdiff.TextFragment) ([]byte, []Reject) {
	orig := splitLines(content)
	crlf := mostlyCRLF(orig)
	out := make([]line, 0, len(orig)+8)
	var rejects []Reject
	pos, offset := 0, 0
	for i, f := range frags {
		var old []line
		for _, l := range f.Lines {
			if l.Old() {
				old = append(old, patchLine(l.Line))
			}
		}
		base := int(f.OldPosition) - 1
		if f.OldLines == 0 {
			base = int(f.OldPosition) // a pure insertion goes after line OldPosition
		}
		want := base + offset
		reject := func(reason string, mm []Mismatch) {
			rejects = append(rejects, Reject{
				File: file, Hunk: i + 1, Hunks: len(frags),
				Header: strings.TrimSpace(f.Header()), Reason: reason, Mismatches: mm,
			})
		}
		if f.OldPosition < 0 || f.OldLines < 0 {
			reject("its header has a negative line number", nil)
			continue
		}
		at, ok := find(orig, pos, old, want)
		if !ok {
			reason, mm := explain(orig, pos, old, want)
			reject(reason, mm)
			continue
		}
		out = append(out, orig[pos:at]...)
		k := at
		for _, l := range f.Lines {
			switch l.Op {
			case gitdiff.OpContext:
				out = append(out, orig[k])
				k++
			case gitdiff.OpDelete:
				k++
			case gitdiff.OpAdd:
				pl := patchLine(l.Line)
				if crlf && pl.eol == "\n" {
					pl.eol = "\r\n"
				}
				out = append(out, pl)
			}
		}
		pos, offset = k, at-base
	}
	if len(rejects) > 0 {
		return nil, rejects
	}
	out = append(out, orig[pos:]...)
	for i, l := range out[:max(len(out)-1, 0)] {
		if l.eol == "" {
			return nil, []Reject{{File: file, Hunk: len(frags), Hunks: len(frags), Header: "(result)",
				Reason: fmt.Sprintf("line %d would have no newline and run into the next line: the patch lacks or misplaces a \"\\ No newline at end of file\" marker", i+1)}}
		}
	}
	var b bytes.Buffer
	b.Grow(len(content) + 64)
	for _, l := range out {
		b.Write(l.body)
		b.WriteString(l.eol)
	}
	return b.Bytes(), nil
}

// find returns where old matches orig exactly, at or after pos, nearest to
// want (the earlier of two equally near).
func find(orig []line, pos int, old []line, want int) (int, bool) {
	n := len(old)
	if n == 0 {
		if want < pos || want > len(orig) {
			return 0, false
		}
		return want, true
	}
	last := len(orig) - n
	if last < pos {
		return 0, false
	}
	want = min(max(want, pos), last)
	for d := 0; want-d >= pos || want+d <= last; d++ {
		if lo := want - d; lo >= pos && matchAt(orig, lo, old) {
			return lo, true
		}
		if hi := want + d; d > 0 && hi <= last && matchAt(orig, hi, old) {
			return hi, true
		}
	}
	return 0, false
}

func matchAt(orig []line, at int, old []line) bool {
	for j, l := range old {
		if !same(orig[at+j], l) {
			return false
		}
	}
	return true
}

// explain says why a hunk found no match, showing the lines that differ
// where its header puts it.
func explain(orig []line, pos int, old []line, want int) (string, []Mismatch) {
	if len(old) == 0 {
		return fmt.Sprintf("it inserts after line %d, but the file has %d lines", want, len(orig)), nil
	}
	at := min(max(want, 0), len(orig))
	var mm []Mismatch
	for j, l := range old {
		k := at + j
		if k >= len(orig) {
			mm = append(mm, Mismatch{Line: k + 1, Want: string(l.body), Missing: true})
		} else if !same(orig[k], l) {
			got := string(orig[k].body)
			if bytes.Equal(orig[k].body, l.body) {
				got += " (differs in the newline at the end of the file)"
			}
			mm = append(mm, Mismatch{Line: k + 1, Want: string(l.body), Got: got})
		}
		if len(mm) == maxMismatches {
			break
		}
	}
	if len(mm) == 0 && at < pos {
		return "its lines match only where an earlier hunk of the patch already applied: the hunks overlap", nil
	}
	return fmt.Sprintf("its %d context and removed lines were not found in the file; they must match exactly", len(old)), mm
}
