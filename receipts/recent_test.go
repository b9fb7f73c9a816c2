package receipts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// ids lists the receipts' ids.
func ids(rs []Receipt) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = ChainName(r.Chain) + ":" + strconv.FormatUint(r.Seq, 10) + "/" + r.Tool
	}
	return out
}

// allPages reads every page of Recent with o, following Next.
func allPages(t *testing.T, dir string, o RecentOptions) []Receipt {
	t.Helper()
	var out []Receipt
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("Next never ran out")
		}
		p, err := Recent(dir, o)
		if err != nil {
			t.Fatalf("Recent(%+v): %v", o, err)
		}
		out = append(out, p.Receipts...)
		if p.Next == "" {
			return out
		}
		if p.Next == o.Before {
			t.Fatalf("cursor %q does not move", p.Next)
		}
		o.Before = p.Next
	}
}

func reversed(rs []Receipt) []Receipt {
	out := slices.Clone(rs)
	slices.Reverse(out)
	return out
}

// TestRecentIsListReversed pages through two interleaved chains that
// span several segments, with chunks smaller than a line and larger than
// a segment, and compares the result with List's order reversed.
func TestRecentIsListReversed(t *testing.T) {
	defer func(old int64) { maxSegmentBytes = old }(maxSegmentBytes)
	maxSegmentBytes = 3000
	dir, _ := twoChains(t, 40)
	all, err := List(dir, Filter{})
	if err != nil || len(all) != 80 {
		t.Fatalf("List: %d receipts, %v", len(all), err)
	}
	want := reversed(all)
	tests := []struct {
		name  string
		chunk int
		limit int
		scan  int
	}{
		{name: "one page", chunk: 64 << 10, limit: 100},
		{name: "pages of 7", chunk: 64 << 10, limit: 7},
		{name: "chunks smaller than a line", chunk: 50, limit: 9},
		{name: "a few records per chunk", chunk: 1500, limit: 13},
		{name: "scan bound", chunk: 700, limit: 10, scan: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(old int) { recentChunk = old }(recentChunk)
			recentChunk = tt.chunk
			got := allPages(t, dir, RecentOptions{Limit: tt.limit, MaxScan: tt.scan})
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("Recent order:\n%v\nwant List reversed:\n%v", ids(got), ids(want))
			}
		})
	}
}

func TestRecentSelects(t *testing.T) {
	dir := testDir(t)
	clk := stepClock(goldenStart, time.Minute)
	s := openStore(t, Options{Dir: dir, Clock: clk})
	for i := range 30 {
		e := testEntry(i)
		if i%3 == 0 {
			e.Tool, e.Session = "file_write", "sess-2"
		}
		if _, err := s.Issue(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	other := openStore(t, Options{Dir: dir, Clock: clk})
	issueN(t, other, 2)
	chain := s.Chain()
	s.Close()
	other.Close()

	tests := []struct {
		name   string
		opts   RecentOptions
		filter Filter
		match  func(*Receipt) bool
	}{
		{name: "tool", opts: RecentOptions{Filter: Filter{Tool: "file_write"}}, filter: Filter{Tool: "file_write"}},
		{name: "session", opts: RecentOptions{Filter: Filter{Session: "sess-1"}, Limit: 4}, filter: Filter{Session: "sess-1"}},
		{name: "time range", opts: RecentOptions{Filter: Filter{Since: goldenStart.Add(5 * time.Minute), Until: goldenStart.Add(12 * time.Minute)}},
			filter: Filter{Since: goldenStart.Add(5 * time.Minute), Until: goldenStart.Add(12 * time.Minute)}},
		{name: "match", opts: RecentOptions{Match: func(r *Receipt) bool { return r.Seq%5 == 0 }, Limit: 2},
			match: func(r *Receipt) bool { return r.Seq%5 == 0 }},
		{name: "one chain", opts: RecentOptions{Chain: chain, Limit: 6}, match: func(r *Receipt) bool { return r.Chain == chain }},
	}
	all, err := List(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []Receipt
			for _, r := range reversed(all) {
				if tt.filter.match(&r) && (tt.match == nil || tt.match(&r)) {
					want = append(want, r)
				}
			}
			if len(want) == 0 {
				t.Fatal("the case selects nothing")
			}
			got := allPages(t, dir, tt.opts)
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("got %v\nwant %v", ids(got), ids(want))
			}
		})
	}
}

func TestRecentFirstPageReadsOnlyTheEnd(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 300)
	s.Close()
	p, err := Recent(dir, RecentOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Receipts) != 5 || p.Receipts[0].Seq != 300 || p.Receipts[4].Seq != 296 {
		t.Fatalf("first page %v", ids(p.Receipts))
	}
	// Each chain's head is read ahead: five returned, six read at most.
	if p.Scanned != 5 || p.Truncated || p.Next != ChainName(s.Chain())+":296" {
		t.Fatalf("scanned %d truncated %v next %q", p.Scanned, p.Truncated, p.Next)
	}
	q, err := Recent(dir, RecentOptions{Filter: Filter{Tool: "nothing"}, MaxScan: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Receipts) != 0 || !q.Truncated || q.Scanned != 40 || q.Next != ChainName(s.Chain())+":261" {
		t.Fatalf("bounded search: %d receipts, scanned %d, truncated %v, next %q", len(q.Receipts), q.Scanned, q.Truncated, q.Next)
	}
}

func TestRecentDamage(t *testing.T) {
	t.Run("partial line at the end", func(t *testing.T) {
		dir := testDir(t)
		s := openStore(t, Options{Dir: dir})
		rs := issueN(t, s, 3)
		s.Close()
		seg := segPath(s.ChainDir(), 1)
		data, _ := os.ReadFile(seg)
		line := rs[2].Canonical()
		os.WriteFile(seg, append(data, line[:len(line)/2]...), 0o600)
		p, err := Recent(dir, RecentOptions{})
		if err != nil || len(p.Receipts) != 3 {
			t.Fatalf("%d receipts, %v: a write in progress is skipped silently", len(p.Receipts), err)
		}
	})
	t.Run("noted torn tail", func(t *testing.T) {
		dir := testDir(t)
		s := openStore(t, Options{Dir: dir})
		issueN(t, s, 3)
		s.Close()
		seg := segPath(s.ChainDir(), 1)
		data, _ := os.ReadFile(seg)
		os.WriteFile(seg, append(data, []byte("{\"v\":2,\n")...), 0o600)
		s = openStore(t, Options{Dir: dir})
		issueN(t, s, 1)
		s.Close()
		p, err := Recent(dir, RecentOptions{})
		if err != nil || len(p.Receipts) != 4 || p.Receipts[0].Seq != 4 || p.Receipts[1].Seq != 3 {
			t.Fatalf("%v, %v: a noted torn tail is left out without error", ids(p.Receipts), err)
		}
	})
	t.Run("bad line inside", func(t *testing.T) {
		dir := testDir(t)
		s := openStore(t, Options{Dir: dir})
		issueN(t, s, 4)
		s.Close()
		seg := segPath(s.ChainDir(), 1)
		data, _ := os.ReadFile(seg)
		lines := bytes.SplitAfter(data, []byte("\n"))
		lines[1] = []byte("not a record\n")
		os.WriteFile(seg, bytes.Join(lines, nil), 0o600)
		p, err := Recent(dir, RecentOptions{})
		if !errors.Is(err, ErrDamaged) || len(p.Receipts) != 3 {
			t.Fatalf("%d receipts, %v: want the other three and ErrDamaged", len(p.Receipts), err)
		}
	})
}

func TestRecentRefuses(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	s.Close()
	export := filepath.Join(t.TempDir(), "export.jsonl")
	f, _ := os.Create(export)
	if err := Export(dir, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		name string
		dir  string
		opts RecentOptions
		want error
	}{
		{name: "cursor not ours", dir: dir, opts: RecentOptions{Before: "x:1"}, want: ErrInvalidCursor},
		{name: "cursor seq zero", dir: dir, opts: RecentOptions{Before: "legacy:0"}, want: ErrInvalidCursor},
		{name: "cursor chain twice", dir: dir, opts: RecentOptions{Before: "legacy:3,legacy:2"}, want: ErrInvalidCursor},
		{name: "cursor seq not a number", dir: dir, opts: RecentOptions{Before: "legacy:1e9"}, want: ErrInvalidCursor},
		{name: "chain not an id", dir: dir, opts: RecentOptions{Chain: "../x"}, want: ErrInvalidOptions},
		{name: "single file", dir: export, want: ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Recent(tt.dir, tt.opts); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func FuzzRecentCursor(f *testing.F) {
	dir := testDir(f)
	s := openStore(f, Options{Dir: dir})
	issueN(f, s, 3)
	s.Close()
	f.Add(ChainName(s.Chain()) + ":2")
	f.Add("legacy:1," + ChainName(s.Chain()) + ":18446744073709551615")
	f.Add(",:")
	f.Fuzz(func(t *testing.T, cursor string) {
		p, err := Recent(dir, RecentOptions{Before: cursor, Limit: 2})
		if err != nil && !errors.Is(err, ErrInvalidCursor) {
			t.Fatalf("cursor %q: %v", cursor, err)
		}
		if len(p.Receipts) > 2 {
			t.Fatalf("cursor %q: %d receipts on a page of 2", cursor, len(p.Receipts))
		}
	})
}
