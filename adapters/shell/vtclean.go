package shell

import "io"

// vtCleaner passes a terminal's output on without its control sequences,
// for a model to read: CSI sequences (colours, cursor moves, erasing),
// OSC and the other string sequences, two-byte escapes and control
// characters other than newline and tab are dropped; carriage return and
// newline become one newline, a lone carriage return (a line redrawn in
// place) a newline, and a cursor placed with CSI H starts a new line
// unless one just started. It keeps its state across writes, so a
// sequence split between two reads is still removed. Not safe for
// concurrent use.
type vtCleaner struct {
	w     io.Writer
	state vtState
	cr    bool // a carriage return waits to see what follows
	bol   bool // the last byte passed on ended a line (or none was)
	buf   []byte
}

type vtState uint8

const (
	vtText    vtState = iota
	vtEsc             // after ESC
	vtCSI             // after ESC [
	vtString          // inside OSC, DCS, SOS, PM or APC
	vtStrEsc          // an ESC inside a string: ST if '\' follows
	vtCharset         // after ESC ( and its kin: one more byte
)

func newVTCleaner(w io.Writer) *vtCleaner { return &vtCleaner{w: w, bol: true} }

func (v *vtCleaner) Write(p []byte) (int, error) {
	out := v.buf[:0]
	emit := func(c byte) {
		if v.cr {
			v.cr = false
			if c != '\n' && !v.bol {
				out = append(out, '\n')
				v.bol = true
			}
		}
		out = append(out, c)
		v.bol = c == '\n'
	}
	for _, c := range p {
		switch v.state {
		case vtText:
			switch {
			case c == 0x1b:
				v.state = vtEsc
			case c == '\r':
				v.cr = true
			case c == '\n' || c == '\t':
				emit(c)
			case c < 0x20 || c == 0x7f:
			default:
				emit(c)
			}
		case vtEsc:
			switch c {
			case '[':
				v.state = vtCSI
			case ']', 'P', 'X', '^', '_':
				v.state = vtString
			case '(', ')', '*', '+', '-', '.', '/', '#', '%':
				v.state = vtCharset
			default:
				v.state = vtText
			}
		case vtCSI:
			switch {
			case c >= 0x40 && c <= 0x7e:
				v.state = vtText
				if (c == 'H' || c == 'f') && !v.bol {
					v.cr = false
					out = append(out, '\n')
					v.bol = true
				}
			case c >= 0x20 && c <= 0x3f:
			default:
				v.state = vtText
			}
		case vtString:
			switch c {
			case 0x07:
				v.state = vtText
			case 0x1b:
				v.state = vtStrEsc
			}
		case vtStrEsc:
			if c == '\\' {
				v.state = vtText
			} else {
				v.state = vtString
			}
		case vtCharset:
			v.state = vtText
		}
	}
	v.buf = out
	if len(out) > 0 {
		if _, err := v.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush ends the stream: a carriage return still waiting is dropped.
func (v *vtCleaner) Flush() { v.cr = false }
