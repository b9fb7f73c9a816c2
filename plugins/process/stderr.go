package process

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Re-logging limits: one line is cut at maxLogLine bytes, and lines pass
// a token bucket of logBurst lines refilled at logRate per second. What
// the bucket drops is counted and reported once logging resumes, so a
// plugin flooding stderr costs the host a bounded amount of logging.
const (
	maxLogLine = 8 << 10
	logRate    = 100.0
	logBurst   = 200.0
)

// lineLog re-logs a plugin's output stream line by line with the plugin's
// attribution. Lines that are JSON objects (slog's or hclog's JSON
// handlers, as the SDK writes) keep their level, message and fields.
// Every write succeeds, so the plugin is never blocked on the pipe.
type lineLog struct {
	log    zerolog.Logger
	stream string

	mu      sync.Mutex
	buf     []byte
	skip    bool // inside a line that was cut
	tokens  float64
	last    time.Time
	dropped int
	final   string // the last non-empty line, for start errors
}

func newLineLog(log zerolog.Logger, stream string) *lineLog {
	return &lineLog{log: log.With().Str("stream", stream).Logger(), stream: stream, tokens: logBurst}
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !l.skip {
			room := maxLogLine - len(l.buf)
			if len(chunk) > room {
				l.buf = append(l.buf, chunk[:room]...)
				l.emit(true)
				l.skip = true
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !l.skip {
			l.emit(false)
		}
		l.skip = false
		p = p[i+1:]
	}
	return n, nil
}

// Flush logs a last line that had no newline.
func (l *lineLog) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(false)
	}
	if l.dropped > 0 {
		l.log.Warn().Int("dropped_lines", l.dropped).Msg("plugin output was over the log rate limit; lines were dropped")
		l.dropped = 0
	}
}

func (l *lineLog) allow() bool {
	now := time.Now()
	if !l.last.IsZero() {
		l.tokens = min(logBurst, l.tokens+now.Sub(l.last).Seconds()*logRate)
	}
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

func (l *lineLog) emit(cut bool) {
	line := strings.TrimRight(string(l.buf), "\r")
	l.buf = l.buf[:0]
	if strings.TrimSpace(line) == "" {
		return
	}
	l.final = line
	if !l.allow() {
		l.dropped++
		return
	}
	if l.dropped > 0 {
		l.log.Warn().Int("dropped_lines", l.dropped).Msg("plugin output was over the log rate limit; lines were dropped")
		l.dropped = 0
	}
	var fields map[string]any
	if !cut && strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &fields) == nil {
		l.structured(fields)
		return
	}
	ev := l.log.Info()
	if cut {
		ev = ev.Bool("truncated", true)
	}
	ev.Msg(line)
}

// structured re-logs a JSON log line.
func (l *lineLog) structured(f map[string]any) {
	level, _ := first(f, "level", "@level").(string)
	msg, _ := first(f, "msg", "@message", "message").(string)
	var ev *zerolog.Event
	switch strings.ToLower(level) {
	case "trace", "debug":
		ev = l.log.Debug()
	case "warn", "warning":
		ev = l.log.Warn()
	case "error":
		ev = l.log.Error()
	default:
		ev = l.log.Info()
	}
	for k, v := range f {
		switch k {
		case "level", "@level", "msg", "@message", "message", "time", "@timestamp", "stream":
			continue
		}
		ev = ev.Interface(k, v)
	}
	ev.Msg(msg)
}

// lastLine returns the last line the plugin wrote, cut to n bytes; a JSON
// log line is reduced to its message and error.
func (l *lineLog) lastLine(n int) string {
	l.mu.Lock()
	line := l.final
	l.mu.Unlock()
	var f map[string]any
	if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &f) == nil {
		msg, _ := first(f, "msg", "@message", "message").(string)
		if e, ok := f["error"].(string); ok {
			msg += ": " + e
		}
		line = msg
	}
	return truncate(line, n)
}

func first(f map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			return v
		}
	}
	return nil
}
