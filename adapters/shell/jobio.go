package shell

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/talonhq/talon/tool"
)

// Info describes one background process in results.
type Info struct {
	ID          string    `json:"id"`
	Command     string    `json:"command"`
	Workdir     string    `json:"workdir,omitempty"`
	Started     time.Time `json:"started"`
	Running     bool      `json:"running"`
	PTY         bool      `json:"pty,omitempty"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Killed      bool      `json:"killed,omitempty"`
	TimedOut    bool      `json:"timed_out,omitempty"`
	StdoutBytes int64     `json:"stdout_bytes"`
	StderrBytes int64     `json:"stderr_bytes"`
}

// Info describes the line now.
func (j *Job) Info() Info {
	st := j.State()
	i := Info{ID: j.id, Command: j.line, Workdir: j.workdir, Started: j.started.UTC(), Running: !st.Finished, PTY: j.pty,
		Killed: st.Killed, TimedOut: st.TimedOut, StdoutBytes: j.stdout.Total(), StderrBytes: j.stderr.Total()}
	if st.Finished {
		code := st.ExitCode
		i.ExitCode = &code
	}
	return i
}

// Status renders where the process is: "running", "exited with status
// 0", "killed (status 137)", "timed out (status 124)".
func (i Info) Status() string {
	switch {
	case i.Running:
		return "running"
	case i.Killed:
		return fmt.Sprintf("killed (status %d)", *i.ExitCode)
	case i.TimedOut:
		return fmt.Sprintf("timed out (status %d)", *i.ExitCode)
	default:
		return fmt.Sprintf("exited with status %d", *i.ExitCode)
	}
}

// PollData is a poll's Output.Data.
type PollData struct {
	Info
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// Poll waits up to wait for the line to exit or write, then returns what
// it wrote since the previous poll (at most limit bytes per stream; zero
// means 64 KiB). It returns the caller's context error when ctx ends
// first.
func (j *Job) Poll(ctx context.Context, wait time.Duration, limit int) (tool.Result, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		changed := j.Changes()
		if j.State().Finished || j.pending() || wait <= 0 {
			break
		}
		select {
		case <-changed:
		case <-j.done:
		case <-timer.C:
			wait = 0
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
	}
	return j.pollResult(limit, ""), nil
}

// DefaultLogLimit is how many bytes a poll or log returns per stream
// when the call names no limit.
const DefaultLogLimit = 64 << 10

// pollResult reads the output since the previous poll into a result
// that starts with head (or the process's status line).
func (j *Job) pollResult(limit int, head string) tool.Result {
	if limit <= 0 {
		limit = DefaultLogLimit
	}
	out, errb, dropOut, dropErr, more := j.output(limit)
	d := PollData{Info: j.Info(), Stdout: string(out), Stderr: string(errb)}
	var b strings.Builder
	if head == "" {
		head = fmt.Sprintf("%s %s", j.id, d.Status())
	}
	b.WriteString(head)
	b.WriteByte('\n')
	section(&b, "stdout", out, dropOut)
	section(&b, "stderr", errb, dropErr)
	if more {
		b.WriteString("[more output waiting: poll again]\n")
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}
}

func section(b *strings.Builder, name string, data []byte, dropped int64) {
	if len(data) == 0 && dropped == 0 {
		return
	}
	fmt.Fprintf(b, "[%s]\n", name)
	if dropped > 0 {
		b.WriteString(dropMarker(dropped))
	}
	b.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
}

// LogData is a log's Output.Data.
type LogData struct {
	ID     string `json:"id"`
	Stream string `json:"stream"`
	Offset int64  `json:"offset"`
	Next   int64  `json:"next"`
	Total  int64  `json:"total"`
	// Dropped counts bytes from the requested offset that are no longer
	// kept.
	Dropped int64  `json:"dropped"`
	Text    string `json:"text"`
}

// Log returns a window of one stream ("stdout" or "stderr"): limit bytes
// from offset, or the newest limit bytes when offset is nil.
func (j *Job) Log(stream string, offset *int64, limit int) tool.Result {
	r := j.stdout
	if stream == "stderr" {
		r = j.stderr
	} else {
		stream = "stdout"
	}
	if limit <= 0 {
		limit = DefaultLogLimit
	}
	total := r.Total()
	off := max(total-int64(limit), 0)
	if offset != nil {
		off = *offset
	}
	data, next, dropped := r.Read(off, limit)
	d := LogData{ID: j.id, Stream: stream, Offset: next - int64(len(data)), Next: next, Total: total, Dropped: dropped, Text: string(data)}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s bytes %d-%d of %d\n", j.id, stream, d.Offset, next, total)
	if dropped > 0 {
		b.WriteString(dropMarker(dropped))
	}
	b.Write(data)
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}
}

// SendKeys types named keys ([KeyNames]: "Enter", "C-c", "Up", ...) or
// literal text (a name talon does not know is refused, so a typo never
// types itself) into the line's terminal or standard input.
//
// # Errors
//
// An unknown key name wraps [ErrUnknownKey] and nothing is typed; a
// closed input wraps [ErrStdinClosed].
func (j *Job) SendKeys(keys []string) error {
	b, err := encodeKeys(keys, j.pty)
	if err != nil {
		return err
	}
	return j.Write(string(b), false)
}

// Paste types text as one paste: on a terminal inside bracketed-paste
// markers (ESC [200~ ... ESC [201~) unless bracketed is false, so a
// program that supports them takes it as pasted rather than typed.
func (j *Job) Paste(text string, bracketed bool) error {
	if j.pty && bracketed {
		text = "\x1b[200~" + text + "\x1b[201~"
	}
	return j.Write(text, false)
}
