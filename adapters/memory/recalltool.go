package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/talonhq/talon/tool"
)

// RecallTool is the memory_recall tool: it searches the caller's profile's
// memories by keywords, lists the newest, or reads one by key.
type RecallTool struct{ base }

var (
	_ tool.Tool     = (*RecallTool)(nil)
	_ tool.Assessor = (*RecallTool)(nil)
	_ tool.Profiled = (*RecallTool)(nil)
)

// NewRecallTool returns memory_recall over s.
func NewRecallTool(s *Store, opts ToolOptions) *RecallTool {
	return &RecallTool{newBase(s, opts)}
}

var recallSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"query":{"type":"string","maxLength":%d},`+
	`"mode":{"type":"string","enum":["keyword","recent"]},`+
	`"category":{"type":"string","maxLength":%d},`+
	`"since":{"type":"string","minLength":1},`+
	`"until":{"type":"string","minLength":1},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d},`+
	`"key":{"type":"string","minLength":1,"maxLength":%d}},`+
	`"additionalProperties":false}`,
	MaxQueryBytes, MaxCategoryBytes, MaxLimit, DefaultLimit, MaxKeyBytes)

// Spec describes memory_recall. Its description comes from the message
// catalog (tool-memory-recall).
func (t *RecallTool) Spec() tool.Spec { return spec(RecallName, recallSchema, tool.Low) }

// ForProfile returns the tool that reads the profile's namespace.
func (t *RecallTool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	return &RecallTool{t.forProfile(p)}, nil
}

// RecallData is memory_recall's Output.Data.
type RecallData struct {
	// Mode is "keyword", "recent" or "key".
	Mode    string  `json:"mode"`
	Entries []Entry `json:"entries"`
	// Ignored and Newest are [Recalled.Ignored] and [Recalled.Newest].
	Ignored []string `json:"ignored,omitempty"`
	Newest  int      `json:"newest,omitempty"`
}

// Entry is one recalled memory.
type Entry struct {
	Key      string   `json:"key"`
	Category string   `json:"category,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Content is the whole text when reading by key, and otherwise its
	// first [ExcerptRunes] characters on one line.
	Content string `json:"content"`
	// Cut says Content is an excerpt.
	Cut     bool      `json:"cut,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Score is the keyword relevance, higher is better.
	Score float64 `json:"score,omitempty"`
}

type recallArgs struct {
	Query    string `json:"query"`
	Mode     string `json:"mode"`
	Category string `json:"category"`
	Since    string `json:"since"`
	Until    string `json:"until"`
	Limit    *int   `json:"limit"`
	Key      string `json:"key"`
}

const recallExample = `{"query": "editor preferences", "limit": 5}`

// Assess reports a read of the profile's memory.
func (t *RecallTool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a recallArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode memory_recall arguments: %w", err)
	}
	return tool.Assessment{Tier: tool.Low, Reasons: []string{"reads the memory of profile " + t.ns}}, nil
}

// Execute recalls memories.
func (t *RecallTool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a recallArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, recallExample), nil
	}
	if a.Key != "" {
		if a.Query != "" || a.Mode != "" || a.Category != "" || a.Since != "" || a.Until != "" || a.Limit != nil {
			return tool.Failure("key reads exactly one memory and takes no other parameter: leave out query, mode, category, since, until and limit, or leave out key to search"), nil
		}
		return t.byKey(ctx, a.Key)
	}
	q := Query{Text: a.Query, Mode: Mode(a.Mode), Category: a.Category}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return tool.Failure("limit must be between 1 and %d", MaxLimit), nil
		}
		q.Limit = *a.Limit
	}
	var err error
	if a.Since != "" {
		if q.Since, err = ParseTime(a.Since, false); err != nil {
			return tool.Failure("since: %v", err), nil
		}
	}
	if a.Until != "" {
		if q.Until, err = ParseTime(a.Until, true); err != nil {
			return tool.Failure("until: %v", err), nil
		}
	}
	r, err := t.store.Recall(ctx, t.ns, q)
	if err != nil {
		return t.failure(ctx, RecallName, err)
	}
	return tool.Result{Success: true, Output: tool.Output{Text: recallText(q, r), Data: recallData(r)}}, nil
}

func (t *RecallTool) byKey(ctx context.Context, key string) (tool.Result, error) {
	m, err := t.store.Get(ctx, t.ns, key)
	if errors.Is(err, ErrNotFound) {
		return tool.Failure("no memory has the key %q: find keys with memory_recall, by keywords in query or with mode recent", key), nil
	}
	if err != nil {
		return t.failure(ctx, RecallName, err)
	}
	return tool.Result{Success: true, Output: tool.Output{
		Text: describe(m) + "\n" + m.Content,
		Data: RecallData{Mode: "key", Entries: []Entry{{
			Key: m.Key, Category: m.Category, Tags: m.Tags, Content: m.Content,
			Created: m.Created, Updated: m.Updated,
		}}},
	}}, nil
}

// recallText renders one line per memory, then notes on what the search
// left out.
func recallText(q Query, r Recalled) string {
	var b strings.Builder
	if len(r.Hits) == 0 {
		switch {
		case r.Mode == ModeKeyword:
			fmt.Fprintf(&b, "no memory matches %q: try other or fewer words, or mode recent to list the newest memories", q.Text)
		case q.Text != "" || q.Category != "" || !q.Since.IsZero() || !q.Until.IsZero():
			b.WriteString("no memory matches these filters: widen them, or leave them out to list the newest memories")
		default:
			b.WriteString("no memories yet: memory_store remembers something")
		}
	}
	cut := false
	for _, h := range r.Hits {
		line, c := oneLine(h.Content, ExcerptRunes)
		cut = cut || c
		b.WriteString(describe(h.Memory))
		b.WriteString(": ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if cut {
		b.WriteString("(… marks a cut text: recall with key to read all of it)\n")
	}
	if len(r.Ignored) > 0 {
		fmt.Fprintf(&b, "(left out as too common to rank by: %s)\n", strings.Join(r.Ignored, ", "))
	}
	if r.Newest > 0 {
		fmt.Fprintf(&b, "(more than %d memories match, so only the newest %d were ranked: add rarer words, a category, or since/until to reach older ones)\n", r.Newest, r.Newest)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func recallData(r Recalled) RecallData {
	d := RecallData{Mode: string(r.Mode), Entries: make([]Entry, len(r.Hits)), Ignored: r.Ignored, Newest: r.Newest}
	for i, h := range r.Hits {
		content, cut := oneLine(h.Content, ExcerptRunes)
		d.Entries[i] = Entry{
			Key: h.Key, Category: h.Category, Tags: h.Tags, Content: content, Cut: cut,
			Created: h.Created, Updated: h.Updated, Score: h.Score,
		}
	}
	return d
}
