package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Mode says how a recall orders memories.
type Mode string

// Recall modes.
const (
	// ModeKeyword ranks memories matching the query's words by relevance
	// (bm25), best first.
	ModeKeyword Mode = "keyword"
	// ModeRecent lists memories newest first; a query, when given,
	// keeps those holding any of its words.
	ModeRecent Mode = "recent"
)

// RankBudget is the most memories one keyword recall scores. Scoring is
// the costly part of a search (a few microseconds per memory), so a recall
// whose words match more memories than this ranks the newest RankBudget of
// them; see [Recalled.Newest].
const RankBudget = 300

// Query selects memories to recall. The zero value lists the
// [DefaultLimit] most recent memories.
type Query struct {
	// Text holds keywords. Each word is searched for as a word, never as
	// full-text syntax; a memory matches when it holds any of them.
	Text string
	// Mode is [ModeKeyword] or [ModeRecent]; empty means keyword when Text
	// holds something and recent otherwise.
	Mode Mode
	// Category, when set, keeps memories of that category (ignoring ASCII
	// case).
	Category string
	// Since and Until, when set, keep memories last stored at or after
	// Since and at or before Until.
	Since, Until time.Time
	// Limit is the most memories returned: zero means [DefaultLimit], at
	// most [MaxLimit].
	Limit int
}

// Hit is one recalled memory.
type Hit struct {
	Memory
	// Score is the relevance of a keyword match (bm25, negated so that
	// higher is better); zero in recent mode.
	Score float64 `json:"score,omitempty"`
}

// Recalled is what a recall found.
type Recalled struct {
	// Mode is the mode the recall ran in.
	Mode Mode
	// Hits are the memories, best (keyword) or newest (recent) first.
	Hits []Hit
	// Ignored lists query words left out of a keyword ranking: each
	// occurs in more than [RankBudget] memories while another word of the
	// query is rarer, so it would add almost nothing to bm25 but cost a
	// score per memory holding it.
	Ignored []string
	// Newest, when not zero, says that the query's words matched more
	// than [RankBudget] memories and only the newest Newest of them were
	// ranked.
	Newest int
}

// recallPlan is a validated [Query].
type recallPlan struct {
	mode     Mode
	limit    int
	category string
	since    time.Time
	until    time.Time
	phrases  []phrase
}

// plan validates q before anything touches the database.
func plan(q Query) (recallPlan, error) {
	p := recallPlan{mode: q.Mode, limit: q.Limit, since: q.Since, until: q.Until}
	hasText := strings.TrimSpace(q.Text) != ""
	switch p.mode {
	case "":
		p.mode = ModeRecent
		if hasText {
			p.mode = ModeKeyword
		}
	case ModeKeyword:
		if !hasText {
			return p, fmt.Errorf("%w: keyword mode needs a query; give keywords, or use mode recent", ErrNoKeywords)
		}
	case ModeRecent:
	default:
		return p, fmt.Errorf("%w: unknown mode %q; use keyword or recent", ErrInvalidQuery, q.Mode)
	}
	switch {
	case p.limit == 0:
		p.limit = DefaultLimit
	case p.limit < 0 || p.limit > MaxLimit:
		return p, fmt.Errorf("%w: limit %d is out of range; use 1 to %d", ErrInvalidQuery, p.limit, MaxLimit)
	}
	if !p.since.IsZero() && !p.until.IsZero() && p.since.After(p.until) {
		return p, fmt.Errorf("%w: since (%s) is after until (%s); swap them", ErrInvalidQuery,
			p.since.UTC().Format(time.RFC3339), p.until.UTC().Format(time.RFC3339))
	}
	var err error
	if p.category, err = cleanCategory(q.Category); err != nil {
		return p, err
	}
	if hasText {
		if p.phrases, err = queryPhrases(q.Text); err != nil {
			return p, err
		}
	}
	return p, nil
}

// filters renders the namespace, category and time conditions on m.
func (p recallPlan) filters(ns string) (string, []any) {
	var b strings.Builder
	args := []any{ns}
	b.WriteString(` AND m.namespace = ?`)
	if p.category != "" {
		b.WriteString(` AND m.category = ? COLLATE NOCASE`)
		args = append(args, p.category)
	}
	if !p.since.IsZero() {
		b.WriteString(` AND m.updated_at >= ?`)
		args = append(args, p.since.UnixNano())
	}
	if !p.until.IsZero() {
		b.WriteString(` AND m.updated_at <= ?`)
		args = append(args, p.until.UnixNano())
	}
	return b.String(), args
}

const memoryColumns = `m.key, m.category, m.tags, m.content, m.created_at, m.updated_at`

// bm25Weights weigh matches in the key (3) and tags (2) above those in the
// category and content (1).
const bm25Weights = `bm25(memories_fts, 3.0, 1.0, 2.0, 1.0)`

// Recall returns the namespace's memories that q selects.
//
// A keyword recall scores at most [RankBudget] memories: words that occur
// in more memories than that are left out when the query has a rarer word
// ([Recalled.Ignored]), and when what remains still matches more, the
// newest matches are ranked ([Recalled.Newest]). A recent recall with a
// query lists the newest memories holding any of its words.
//
// # Errors
//
// [ErrInvalidQuery] for an unknown mode, a limit out of range or Since
// after Until; [ErrNoKeywords] for a keyword recall without words;
// [ErrQueryTooLong]; [ErrInvalidCategory]; [ErrBusy].
func (s *Store) Recall(ctx context.Context, namespace string, q Query) (Recalled, error) {
	p, err := plan(q)
	if err != nil {
		return Recalled{}, err
	}
	db, err := s.handle(ctx)
	if err != nil {
		return Recalled{}, err
	}
	out := Recalled{Mode: p.mode}
	where, args := p.filters(namespace)
	var query string
	switch {
	case len(p.phrases) == 0:
		query = `SELECT ` + memoryColumns + ` FROM memories AS m WHERE 1` + where +
			` ORDER BY m.updated_at DESC, m.id DESC LIMIT ` + strconv.Itoa(p.limit)
	case p.mode == ModeRecent:
		query = `SELECT ` + memoryColumns + ` FROM memories_fts AS f JOIN memories AS m ON m.id = f.rowid
			WHERE memories_fts MATCH ?` + where + ` ORDER BY m.updated_at DESC, m.id DESC LIMIT ` + strconv.Itoa(p.limit)
		args = append([]any{orExpression(p.phrases)}, args...)
	default:
		budget := s.rankBudget
		kept, ignored, total, err := pickPhrases(ctx, db, p.phrases, budget)
		if err != nil {
			return Recalled{}, fmt.Errorf("recall memories: %w", dbError(err))
		}
		out.Ignored = ignored
		if len(kept) == 0 {
			return out, nil
		}
		match := orExpression(kept)
		bound := ""
		if total > budget {
			floor, ok, err := newestFloor(ctx, db, match, where, args, budget)
			if err != nil {
				return Recalled{}, fmt.Errorf("recall memories: %w", dbError(err))
			}
			if ok {
				bound = ` AND f.rowid >= ` + strconv.FormatInt(floor, 10)
				out.Newest = budget
			}
		}
		query = `SELECT ` + memoryColumns + `, ` + bm25Weights + ` AS r
			FROM memories_fts AS f JOIN memories AS m ON m.id = f.rowid
			WHERE memories_fts MATCH ?` + bound + where +
			` ORDER BY r, m.updated_at DESC, m.id DESC LIMIT ` + strconv.Itoa(p.limit)
		args = append([]any{match}, args...)
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return Recalled{}, fmt.Errorf("recall memories: %w", dbError(err))
	}
	defer rows.Close()
	scored := p.mode == ModeKeyword
	for rows.Next() {
		h, err := scanHit(rows, scored)
		if err != nil {
			return Recalled{}, fmt.Errorf("recall memories: %w", err)
		}
		out.Hits = append(out.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return Recalled{}, fmt.Errorf("recall memories: %w", dbError(err))
	}
	return out, nil
}

// pickPhrases counts the memories (of every namespace, as bm25 does) that
// hold each phrase, up to budget+1, in one statement. Phrases found
// nowhere are dropped. When some phrase is rare (at most budget memories),
// the common ones are ignored; total is the sum of the counts kept.
func pickPhrases(ctx context.Context, db *sql.DB, ps []phrase, budget int) (kept []phrase, ignored []string, total int, err error) {
	var b strings.Builder
	args := make([]any, 0, len(ps))
	for i, p := range ps {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, `SELECT %d, count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT %d)`, i, budget+1)
		args = append(args, p.expr)
	}
	rows, err := db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	counts := make([]int, len(ps))
	for rows.Next() {
		var i, n int
		if err := rows.Scan(&i, &n); err != nil {
			return nil, nil, 0, err
		}
		if i >= 0 && i < len(counts) {
			counts[i] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, err
	}
	rare := slices.ContainsFunc(counts, func(n int) bool { return n > 0 && n <= budget })
	for i, p := range ps {
		switch n := counts[i]; {
		case n == 0:
		case rare && n > budget:
			ignored = append(ignored, p.word)
		default:
			kept = append(kept, p)
			total += n
		}
	}
	return kept, ignored, total, nil
}

// newestFloor finds the row id of the budget-th newest memory that
// matches and passes the filters; ok is false when fewer match. Row ids
// grow with every store (a replacement gets a new one), so rows at or
// above the floor are the newest matches.
func newestFloor(ctx context.Context, db *sql.DB, match, where string, filterArgs []any, budget int) (floor int64, ok bool, err error) {
	args := append([]any{match}, filterArgs...)
	err = db.QueryRowContext(ctx, `SELECT f.rowid FROM memories_fts AS f JOIN memories AS m ON m.id = f.rowid
		WHERE memories_fts MATCH ?`+where+` ORDER BY f.rowid DESC LIMIT 1 OFFSET `+strconv.Itoa(budget-1), args...).Scan(&floor)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return floor, err == nil, err
}
