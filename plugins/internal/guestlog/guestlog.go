// Package guestlog re-logs what a WASM or Extism guest writes to stdout
// and stderr, line by line with the plugin's attribution, under a cap per
// call.
package guestlog

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/rs/zerolog"
)

// Caps of what a guest writes to stdout and stderr between flushes.
const (
	maxStreamBytes = 64 << 10
	maxLineBytes   = 4 << 10
)

// Writer collects a guest's stdout and stderr and re-logs them line by
// line with the plugin's attribution, up to maxStreamBytes between
// flushes (one per call).
type Writer struct {
	log  zerolog.Logger
	attr string

	mu      sync.Mutex
	buf     map[string]*bytes.Buffer
	written int
	dropped int
	// first is the first line written to stderr since the last flush: a
	// guest that crashes usually says why there first (Go: "panic: ...").
	first string
}

// New returns a Writer that logs with attr as the attribution.
func New(log zerolog.Logger, attr string) *Writer {
	return &Writer{log: log, attr: attr, buf: map[string]*bytes.Buffer{}}
}

type streamWriter struct {
	w    *Writer
	name string
}

func (s streamWriter) Write(b []byte) (int, error) {
	s.w.write(s.name, b)
	return len(b), nil
}

// Stream returns the writer of one stream ("stdout" or "stderr").
func (w *Writer) Stream(name string) io.Writer { return streamWriter{w: w, name: name} }

func (w *Writer) write(stream string, b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written+len(b) > maxStreamBytes {
		keep := max(maxStreamBytes-w.written, 0)
		w.dropped += len(b) - keep
		b = b[:keep]
	}
	w.written += len(b)
	buf := w.buf[stream]
	if buf == nil {
		buf = &bytes.Buffer{}
		w.buf[stream] = buf
	}
	buf.Write(b)
	for {
		i := bytes.IndexByte(buf.Bytes(), '\n')
		if i < 0 {
			if buf.Len() >= maxLineBytes {
				w.line(stream, buf.Next(maxLineBytes))
				continue
			}
			return
		}
		line := buf.Next(i + 1)
		w.line(stream, line[:i])
	}
}

func (w *Writer) line(stream string, b []byte) {
	if stream == "stderr" && w.first == "" {
		w.first = strings.TrimSpace(string(b))
	}
	w.log.Info().Str("attribution", w.attr).Str("stream", stream).Msg(strings.TrimRight(string(b), "\r"))
}

// Flush logs partial lines and what the cap dropped, and starts a new
// allowance.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, buf := range w.buf {
		if buf.Len() > 0 {
			w.line(name, buf.Bytes())
			buf.Reset()
		}
	}
	if w.dropped > 0 {
		w.log.Warn().Str("attribution", w.attr).Int("dropped_bytes", w.dropped).Msg("plugin output to stdout/stderr over the cap was dropped")
	}
	w.written, w.dropped, w.first = 0, 0, ""
}

// FirstStderr returns the first line the guest wrote to stderr since the
// last flush, partial lines included.
func (w *Writer) FirstStderr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == "" {
		if b := w.buf["stderr"]; b != nil {
			line, _, _ := strings.Cut(b.String(), "\n")
			return strings.TrimSpace(line)
		}
	}
	return w.first
}
