package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
)

// Names of the tools.
const (
	StoreName  = "memory_store"
	RecallName = "memory_recall"
	ForgetName = "memory_forget"
)

// ExcerptRunes is how much of a memory's content a recall list shows; the
// rest is cut with a note saying how to read it all.
const ExcerptRunes = 300

// ToolOptions configures a memory tool. The zero value is the default.
type ToolOptions struct {
	// Namespace holds the tool's memories; "" means [DefaultNamespace].
	// ForProfile derives a tool whose namespace is the profile's name.
	Namespace string
	// Logger receives a line for each unexpected database failure. The
	// zero value logs nothing.
	Logger zerolog.Logger
}

// base is what the three tools share.
type base struct {
	store *Store
	ns    string
	log   zerolog.Logger
}

func newBase(s *Store, opts ToolOptions) base {
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return base{store: s, ns: ns, log: opts.Logger}
}

// forProfile is b with the profile's namespace.
func (b base) forProfile(p tool.ProfileSettings) base {
	b.ns = p.Name
	if b.ns == "" {
		b.ns = DefaultNamespace
	}
	return b
}

// Namespace returns the namespace the tool reads and writes.
func (b base) Namespace() string { return b.ns }

func spec(name string, schema string, tier tool.Tier) tool.Spec {
	return tool.Spec{
		Name:        name,
		Input:       json.RawMessage(schema),
		Tier:        tier,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: name},
	}
}

// argsFailure is the result for arguments that could not be decoded.
func argsFailure(err error, example string) tool.Result {
	return tool.Failure("invalid arguments: %v: pass an object like %s", err, example)
}

// failure turns a store error into what the model reads. Cancellation is
// returned as an error: the caller gave up, the model did not fail.
func (b base) failure(ctx context.Context, name string, err error) (tool.Result, error) {
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	switch {
	case errors.Is(err, ErrInvalidKey), errors.Is(err, ErrInvalidCategory), errors.Is(err, ErrInvalidTags),
		errors.Is(err, ErrEmptyContent), errors.Is(err, ErrContentTooLarge),
		errors.Is(err, ErrNoKeywords), errors.Is(err, ErrQueryTooLong), errors.Is(err, ErrInvalidQuery):
		return tool.Failure("%v", err), nil
	case errors.Is(err, ErrNoDataDir), errors.Is(err, ErrSchemaTooNew), errors.Is(err, ErrClosed):
		b.log.Warn().Err(err).Msg("memory database unavailable")
		return tool.Failure("persistent memory is unavailable: %v", err), nil
	case errors.Is(err, ErrBusy):
		b.log.Warn().Err(err).Msg("memory database busy")
		return tool.Failure("%v", err), nil
	}
	b.log.Error().Err(err).Str("tool", name).Msg("memory database failed")
	return tool.Failure("persistent memory failed: %v; the operator should check the log and the data directory", err), nil
}

// oneLine collapses every run of whitespace to one space, shows control
// characters as U+FFFD and cuts s to n characters, marking a cut with "…";
// cut says whether anything was dropped.
func oneLine(s string, n int) (line string, cut bool) {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
	count := 0
	for i := range s {
		if count == n {
			return strings.TrimRight(s[:i], " ") + "…", true
		}
		count++
	}
	return s, false
}

// describe renders a memory's header: key (category; time; #tags).
func describe(m Memory) string {
	parts := make([]string, 0, 3)
	if m.Category != "" {
		parts = append(parts, m.Category)
	}
	parts = append(parts, m.Updated.UTC().Format("2006-01-02T15:04:05Z"))
	if len(m.Tags) > 0 {
		parts = append(parts, "#"+strings.Join(m.Tags, " #"))
	}
	return fmt.Sprintf("%s (%s)", m.Key, strings.Join(parts, "; "))
}
