package consolelog

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

const timeFormat = "15:04:05"

// both writes the same events through Writer and zerolog's ConsoleWriter.
func both() (mine, theirs *bytes.Buffer, lm, lt zerolog.Logger) {
	mine, theirs = new(bytes.Buffer), new(bytes.Buffer)
	lm = zerolog.New(Writer{Out: mine, TimeFormat: timeFormat}).With().Timestamp().Logger()
	lt = zerolog.New(zerolog.ConsoleWriter{Out: theirs, NoColor: true, TimeFormat: timeFormat}).With().Timestamp().Logger()
	return
}

// The lines are those of ConsoleWriter, byte for byte.
func TestSameAsConsoleWriter(t *testing.T) {
	events := []struct {
		name string
		log  func(l zerolog.Logger)
	}{
		{"plain", func(l zerolog.Logger) { l.Info().Msg("call finished") }},
		{"no message", func(l zerolog.Logger) { l.Warn().Str("tool", "shell").Send() }},
		{"fields sorted", func(l zerolog.Logger) {
			l.Info().Str("tool", "echo").Str("attribution", "builtin.echo").Str("channel", "mcp").Dur("duration", 1234567).
				Bool("success", true).Uint64("receipt_seq", 5).Str("receipt_id", "01ARZ3NDEKTSV4RRFFQ69G5FAV").Msg("call finished")
		}},
		{"quoted", func(l zerolog.Logger) {
			l.Info().Str("check", "descendant of this server").Str("args", `{"path":"a b.txt"}`).Str("q", `say "hi"`).
				Str("bs", `a\b`).Str("nl", "a\nb").Str("ctl", "\x01").Str("uni", "日本").Str("empty", "").Msg("approvals must come from a person's terminal")
		}},
		{"error first", func(l zerolog.Logger) {
			l.Error().Str("b", "1").Err(errors.New("disk full")).Str("a", "2").Str("f", "3").Msg("receipts: write failed")
		}},
		{"nil error", func(l zerolog.Logger) { l.Warn().Err(nil).Str("x", "y").Msg("m") }},
		{"numbers", func(l zerolog.Logger) {
			l.Debug().Int("i", -7).Float64("f", 1.5).Float64("big", 1e21).Float64("nan", math.NaN()).Float64("inf", math.Inf(1)).
				Int64("i64", math.MinInt64).Uint8("u8", 255).Msg("n")
		}},
		{"arrays and objects", func(l zerolog.Logger) {
			l.Info().Strs("names", []string{"a", "b c", "<&>"}).Ints("ns", []int{1, 2}).
				Dict("d", zerolog.Dict().Str("z", "1").Int("a", 2)).Interface("m", map[string]any{"k": []any{1, "x", nil}}).
				RawJSON("raw", []byte(`{"b":1,"a":[true,null]}`)).Msg("nested")
		}},
		{"duplicate keys", func(l zerolog.Logger) {
			l2 := l.With().Str("tool", "first").Logger()
			l2.Info().Str("tool", "second").Msg("dup")
		}},
		{"message with newline", func(l zerolog.Logger) { l.Info().Msg("two\nlines \"quoted\"") }},
		{"levels", func(l zerolog.Logger) {
			l.Trace().Msg("t")
			l.Debug().Msg("d")
			l.Warn().Msg("w")
			l.Error().Msg("e")
			l.Log().Msg("no level")
			l.WithLevel(zerolog.FatalLevel).Msg("fatal")
			l.WithLevel(zerolog.PanicLevel).Msg("panic")
		}},
		{"time fields", func(l zerolog.Logger) {
			l.Info().Time("at", time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)).TimeDiff("diff", time.Unix(10, 0), time.Unix(5, 0)).Msg("t")
		}},
		{"odd names", func(l zerolog.Logger) {
			l.Info().Str("a b", "1").Str(`q"uote`, "2").Str("ünï", "3").Str("error2", "x").Msg("names")
		}},
	}
	for _, ev := range events {
		t.Run(ev.name, func(t *testing.T) {
			mine, theirs, lm, lt := both()
			ev.log(lm)
			ev.log(lt)
			if mine.String() != theirs.String() {
				t.Fatalf("consolelog:\n%q\nConsoleWriter:\n%q", mine.String(), theirs.String())
			}
		})
	}
}

// Raw events, including ones the scanner leaves to ConsoleWriter.
func TestRawEvents(t *testing.T) {
	for _, ev := range []string{
		`{}`, `{"level":"info"}`, `{"message":"m"}`, `{"time":"2026-01-02T03:04:05Z","level":"info","message":"m"}`,
		`{"time":"not a time","level":"info"}`, `{"time":12345,"level":"info"}`, `{"time":null}`, `{"level":"weird"}`,
		`{"level":""}`, `{"level":7}`, `{"message":7}`, `{"message":null,"a":null}`, `{"caller":"x.go:1"}`,
		`{"a":1,"a":2}`, `{"":"empty name","error":"e"}`, `{"a":"\u00e9\ud83d\ude00\u2028"}`, `{"a":"\xff"}`,
		` { "a" : 1 , "b" : [ 1 , 2 ] } `, `{"a":1,}`, `[1]`, `{"a":1}x`, `not json`, `{"a":tru}`, `{"a":01}`,
	} {
		t.Run(ev, func(t *testing.T) { compareRaw(t, []byte(ev)) })
	}
}

func compareRaw(t *testing.T, ev []byte) {
	t.Helper()
	var mine, theirs bytes.Buffer
	_, errM := Writer{Out: &mine, TimeFormat: timeFormat}.Write(ev)
	_, errT := zerolog.ConsoleWriter{Out: &theirs, NoColor: true, TimeFormat: timeFormat}.Write(ev)
	if (errM == nil) != (errT == nil) || mine.String() != theirs.String() {
		t.Fatalf("event %q:\nconsolelog %q (%v)\nConsoleWriter %q (%v)", ev, mine.String(), errM, theirs.String(), errT)
	}
}

// FuzzSameAsConsoleWriter compares the two writers on any input.
func FuzzSameAsConsoleWriter(f *testing.F) {
	for _, s := range []string{
		`{"time":"2026-01-02T03:04:05Z","level":"info","tool":"x y","n":1.5,"message":"m"}`,
		`{"error":"e","b":[1,{"c":null}],"a":"\u0001"}`, `{"level":"warn","level":"error"}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, ev []byte) { compareRaw(t, ev) })
}

// BenchmarkWriter writes the two lines a served call logs, through Writer
// and through ConsoleWriter; consolelog/console is the ratio.
func BenchmarkWriter(b *testing.B) {
	logs := func(w io.Writer) zerolog.Logger {
		return zerolog.New(zerolog.SyncWriter(w)).With().Timestamp().Str("tool", "echo").Str("attribution", "builtin.echo").
			Str("channel", "mcp").Str("profile", "default").Str("session", "abcdef0123456789").Logger()
	}
	call := func(l zerolog.Logger) {
		l.Info().Str("decision", "allow").Str("tier", "low").Str("args", `{"text":"hello"}`).Msg("low tier: allowed")
		l.Info().Dur("duration", time.Millisecond).Bool("success", true).Uint64("receipt_seq", 5).Str("receipt_id", "01ARZ3NDEKTSV4RRFFQ69G5FAV").Msg("call finished")
	}
	mine := logs(Writer{Out: io.Discard, TimeFormat: timeFormat})
	theirs := logs(zerolog.ConsoleWriter{Out: io.Discard, NoColor: true, TimeFormat: timeFormat})
	var tm, tt time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		call(mine)
		t1 := time.Now()
		call(theirs)
		tm += t1.Sub(t0)
		tt += time.Since(t1)
	}
	b.ReportMetric(float64(tm.Nanoseconds())/float64(b.N), "consolelog-ns/call")
	b.ReportMetric(float64(tt.Nanoseconds())/float64(b.N), "console-ns/call")
	b.ReportMetric(float64(tm)/float64(tt), "consolelog/console")
}
