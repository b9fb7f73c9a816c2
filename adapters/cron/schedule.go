package cron

import (
	"errors"
	"fmt"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// Bounds of an interval schedule.
const (
	MinInterval = time.Minute
	MaxInterval = 366 * 24 * time.Hour
)

// ErrInvalidSchedule reports a schedule that cannot be parsed.
var ErrInvalidSchedule = errors.New("invalid schedule")

// Schedule is a parsed job schedule: a cron expression, an interval or a
// one-shot time. It is immutable.
type Schedule struct {
	text  string
	spec  robfig.Schedule
	every time.Duration
	at    time.Time
}

// ParseSchedule parses "every <duration>", "at <RFC 3339 time>" or a
// standard five-field cron expression (descriptors such as @daily and a
// CRON_TZ= prefix included). Expressions are evaluated in UTC unless
// they name a zone.
//
// # Errors
//
// Every failure wraps [ErrInvalidSchedule] and says what to write instead.
func ParseSchedule(s string) (Schedule, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return Schedule{}, fmt.Errorf(`%w: empty; write a cron expression like "0 9 * * 1-5", "every 15m" or "at 2026-12-01T09:00:00Z"`, ErrInvalidSchedule)
	}
	lower := strings.ToLower(text)
	switch {
	case strings.HasPrefix(lower, "every ") || strings.HasPrefix(lower, "@every "):
		_, rest, _ := strings.Cut(text, " ")
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return Schedule{}, fmt.Errorf(`%w %q: %q is not a duration; write "every 5m" or "every 1h30m"`, ErrInvalidSchedule, text, strings.TrimSpace(rest))
		}
		if d < MinInterval || d > MaxInterval {
			return Schedule{}, fmt.Errorf("%w %q: an interval must be from %s to %s", ErrInvalidSchedule, text, MinInterval, MaxInterval)
		}
		return Schedule{text: "every " + d.String(), every: d}, nil
	case strings.HasPrefix(lower, "at "):
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(text[3:]))
		if err != nil {
			return Schedule{}, fmt.Errorf(`%w %q: the time must be RFC 3339 with a zone, like "at 2026-12-01T09:00:00Z"`, ErrInvalidSchedule, text)
		}
		return Schedule{text: "at " + t.UTC().Format(time.RFC3339), at: t.UTC()}, nil
	}
	spec := text
	if !strings.HasPrefix(spec, "CRON_TZ=") && !strings.HasPrefix(spec, "TZ=") {
		spec = "CRON_TZ=UTC " + spec
	}
	sched, err := parseStandard(spec)
	if err != nil {
		return Schedule{}, fmt.Errorf(`%w %q: %v; write five fields (minute hour day-of-month month day-of-week) like "0 9 * * 1-5", or "every 15m", or "at 2026-12-01T09:00:00Z"`, ErrInvalidSchedule, text, err)
	}
	if sched.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return Schedule{}, fmt.Errorf("%w %q: it never fires; check the day and month fields", ErrInvalidSchedule, text)
	}
	return Schedule{text: text, spec: sched}, nil
}

// String returns the schedule in its canonical form.
func (s Schedule) String() string { return s.text }

// OneShot reports whether the schedule fires once.
func (s Schedule) OneShot() bool { return !s.at.IsZero() }

// First returns the first time at or after created that the schedule
// fires: created+interval for an interval, the time itself for a one-shot
// (zero when it is before created), the next match for an expression.
func (s Schedule) First(created time.Time) time.Time {
	switch {
	case s.every > 0:
		return created.Add(s.every).Truncate(time.Millisecond)
	case s.OneShot():
		if s.at.Before(created.Truncate(time.Second)) {
			return time.Time{}
		}
		return s.at
	case s.spec != nil:
		return s.spec.Next(created).UTC()
	}
	return time.Time{}
}

// After returns the first time after now that follows the scheduled time
// prev, and how many scheduled times from prev (included) up to now were
// passed over. A one-shot has no time after prev.
func (s Schedule) After(prev, now time.Time) (next time.Time, passed int) {
	switch {
	case s.every > 0:
		if prev.After(now) {
			return prev, 0
		}
		k := int(now.Sub(prev)/s.every) + 1
		return prev.Add(time.Duration(k) * s.every), k
	case s.OneShot():
		if prev.After(now) {
			return prev, 0
		}
		return time.Time{}, 1
	case s.spec != nil:
		t := prev
		for passed = 0; !t.After(now); passed++ {
			if passed >= 10000 {
				return s.spec.Next(now).UTC(), passed
			}
			t = s.spec.Next(t).UTC()
			if t.IsZero() {
				return time.Time{}, passed + 1
			}
		}
		return t, passed
	}
	return time.Time{}, 0
}

// parseStandard is robfig's parser, which panics on some malformed zone
// prefixes ("TZ="); a panic is an invalid schedule.
func parseStandard(spec string) (sched robfig.Schedule, err error) {
	defer func() {
		if v := recover(); v != nil {
			sched, err = nil, fmt.Errorf("malformed expression")
		}
	}()
	return robfig.ParseStandard(spec)
}
