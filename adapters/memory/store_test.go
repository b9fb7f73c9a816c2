package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// writerEnv names the database a re-executed test binary writes to, as a
// second talon process would.
const writerEnv = "TALON_MEMORY_TEST_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		os.Exit(writerProcess(path))
	}
	goleak.VerifyTestMain(m)
}

// processWrites is how many memories each process stores in
// TestTwoProcesses.
const processWrites = 20

// writerProcess is the second process of TestTwoProcesses.
func writerProcess(path string) int {
	s := NewStore(path, StoreOptions{})
	defer s.Close()
	ctx := context.Background()
	for i := range processWrites {
		key := fmt.Sprintf("child-%d", i)
		if _, _, err := s.Put(ctx, DefaultNamespace, Memory{Key: key, Content: "written by the child process"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, _, err := s.Put(ctx, DefaultNamespace, Memory{Key: "common", Content: fmt.Sprint("turn ", i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// clock is a test clock that moves one second per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// newTestStore returns a store in a temporary directory, closed at the end
// of the test.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	s := NewStore(filepath.Join(t.TempDir(), FileName), StoreOptions{Now: newClock().now})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func mustPut(t testing.TB, s *Store, ns string, m Memory) Memory {
	t.Helper()
	got, _, err := s.Put(context.Background(), ns, m)
	if err != nil {
		t.Fatalf("Put(%+v): %v", m, err)
	}
	return got
}

func hitsOf(r Recalled, err error) ([]Hit, error) { return r.Hits, err }

func keys(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Key
	}
	return out
}

func TestNewStoreTouchesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s := NewStore(filepath.Join(dir, FileName), StoreOptions{})
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NewStore created %s (stat err %v)", dir, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Close created %s", dir)
	}
}

func TestOpenCreatesPrivateFile(t *testing.T) {
	s := newTestStore(t)
	mustPut(t, s, DefaultNamespace, Memory{Key: "k", Content: "x"})
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database mode = %v, want 0600", perm)
	}
	var mode string
	db, _ := s.handle(context.Background())
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if v, err := userVersion(context.Background(), db); err != nil || v != schemaVersion {
		t.Errorf("user_version = %d, %v; want %d", v, err, schemaVersion)
	}
}

func TestPutAndGet(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	first, replaced, err := s.Put(ctx, "default", Memory{Key: "user-editor", Content: "prefers Neovim", Category: " prefs ", Tags: []string{"editor", " Editor", "tools"}})
	if err != nil || replaced {
		t.Fatalf("Put = %v, replaced %v", err, replaced)
	}
	if first.Category != "prefs" || !slices.Equal(first.Tags, []string{"editor", "tools"}) {
		t.Errorf("stored %+v: category and tags not tidied", first)
	}
	second, replaced, err := s.Put(ctx, "default", Memory{Key: "user-editor", Content: "prefers Helix now"})
	if err != nil || !replaced {
		t.Fatalf("second Put = %v, replaced %v; want a replacement", err, replaced)
	}
	if !second.Created.Equal(first.Created) || !second.Updated.After(first.Updated) {
		t.Errorf("times after replace: created %v (was %v), updated %v (was %v)", second.Created, first.Created, second.Updated, first.Updated)
	}
	got, err := s.Get(ctx, "default", "user-editor")
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "prefers Helix now" || got.Category != "" || got.Tags != nil {
		t.Errorf("Get = %+v, want the replacement only", got)
	}
	// The old words left the index with the old content.
	hits, err := hitsOf(s.Recall(ctx, "default", Query{Text: "neovim"}))
	if err != nil || len(hits) != 0 {
		t.Errorf("recall of replaced words = %v, %v; want nothing", keys(hits), err)
	}
	hits, err = hitsOf(s.Recall(ctx, "default", Query{Text: "helix"}))
	if err != nil || len(hits) != 1 {
		t.Errorf("recall of new words = %v, %v; want one", keys(hits), err)
	}
}

func TestGeneratedKey(t *testing.T) {
	s := newTestStore(t)
	a := mustPut(t, s, "default", Memory{Content: "one"})
	b := mustPut(t, s, "default", Memory{Content: "two"})
	if !strings.HasPrefix(a.Key, "mem-") || len(a.Key) != 16 || a.Key == b.Key {
		t.Errorf("generated keys %q and %q", a.Key, b.Key)
	}
}

func TestPutErrors(t *testing.T) {
	s := newTestStore(t)
	tests := []struct {
		name string
		m    Memory
		want error
	}{
		{name: "empty content", m: Memory{Key: "k", Content: " \n"}, want: ErrEmptyContent},
		{name: "content too large", m: Memory{Key: "k", Content: strings.Repeat("x", MaxContentBytes+1)}, want: ErrContentTooLarge},
		{name: "key with space", m: Memory{Key: "a b", Content: "x"}, want: ErrInvalidKey},
		{name: "key with newline", m: Memory{Key: "a\nb", Content: "x"}, want: ErrInvalidKey},
		{name: "key too long", m: Memory{Key: strings.Repeat("k", MaxKeyBytes+1), Content: "x"}, want: ErrInvalidKey},
		{name: "category too long", m: Memory{Content: "x", Category: strings.Repeat("c", MaxCategoryBytes+1)}, want: ErrInvalidCategory},
		{name: "category with newline", m: Memory{Content: "x", Category: "a\nb"}, want: ErrInvalidCategory},
		{name: "empty tag", m: Memory{Content: "x", Tags: []string{"a", " "}}, want: ErrInvalidTags},
		{name: "too many tags", m: Memory{Content: "x", Tags: strings.Fields("a b c d e f g h i j k l m n o p q")}, want: ErrInvalidTags},
		{name: "tag too long", m: Memory{Content: "x", Tags: []string{strings.Repeat("t", MaxTagBytes+1)}}, want: ErrInvalidTags},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Put(context.Background(), "default", tt.m)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Put = %v, want %v", err, tt.want)
			}
		})
	}
	// Exactly at the limits is fine.
	mustPut(t, s, "default", Memory{Key: strings.Repeat("k", MaxKeyBytes), Content: strings.Repeat("x", MaxContentBytes)})
}

func TestForget(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	mustPut(t, s, "default", Memory{Key: "deploy", Content: "deploys go through the staging cluster"})
	if err := s.Forget(ctx, "default", "deploy"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "default", "deploy"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Forget = %v, want ErrNotFound", err)
	}
	if hits, err := hitsOf(s.Recall(ctx, "default", Query{Text: "staging"})); err != nil || len(hits) != 0 {
		t.Errorf("recall after Forget = %v, %v; want nothing", keys(hits), err)
	}
	if err := s.Forget(ctx, "default", "deploy"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Forget = %v, want ErrNotFound", err)
	}
	if err := s.Forget(ctx, "default", ""); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("Forget of an empty key = %v, want ErrInvalidKey", err)
	}
}

// bulkPut stores many memories quickly: 500 per transaction, each one
// second after the previous (from 2024-01-01), in order.
func bulkPut(tb testing.TB, s *Store, ns string, ms []Memory) {
	tb.Helper()
	ctx := context.Background()
	db, err := s.handle(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < len(ms); start += 500 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			tb.Fatal(err)
		}
		for i := start; i < min(start+500, len(ms)); i++ {
			m := ms[i]
			if err := normalize(&m); err != nil {
				tb.Fatal(err)
			}
			m.Created = base.Add(time.Duration(i) * time.Second)
			m.Updated = m.Created
			if _, err := putTx(ctx, tx, ns, &m, false); err != nil {
				tb.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
}

// seed stores memories whose Updated times are one second apart, in order.
func seed(t testing.TB, s *Store, ns string, ms ...Memory) {
	t.Helper()
	for _, m := range ms {
		mustPut(t, s, ns, m)
	}
}

func TestRecall(t *testing.T) {
	s := newTestStore(t)
	// Updated: 09:00:01, 09:00:02, ... in this order.
	seed(t, s, "default",
		Memory{Key: "editor", Content: "The user prefers Neovim for editing Go code.", Category: "prefs"},
		Memory{Key: "deploy", Content: "Deploys go through the staging cluster first, then production.", Category: "ops", Tags: []string{"release"}},
		Memory{Key: "coffee", Content: "The user drinks coffee without sugar.", Category: "Prefs"},
		Memory{Key: "release-day", Content: "Releases happen on Tuesdays.", Category: "ops"},
		Memory{Key: "tokyo", Content: "チームは東京タワーの近くにあるオフィスで働いています。", Category: "team"},
		Memory{Key: "fullwidth", Content: "ＡＰＩキーは金庫に保管する", Category: "team"},
	)
	since, _ := ParseTime("2024-05-01T09:00:03Z", false)
	until, _ := ParseTime("2024-05-01T09:00:04Z", true)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{name: "recent by default", q: Query{}, want: []string{"fullwidth", "tokyo", "release-day", "coffee", "deploy", "editor"}},
		{name: "recent with limit", q: Query{Limit: 2}, want: []string{"fullwidth", "tokyo"}},
		{name: "keyword", q: Query{Text: "neovim"}, want: []string{"editor"}},
		{name: "keyword is case and stem insensitive", q: Query{Text: "DEPLOYING"}, want: []string{"deploy"}},
		{name: "any word matches, more words rank higher", q: Query{Text: "user coffee"}, want: []string{"coffee", "editor"}},
		{name: "tags are searched; key and content outrank a tag", q: Query{Text: "release"}, want: []string{"release-day", "deploy"}},
		{name: "category filter ignores case", q: Query{Category: "prefs"}, want: []string{"coffee", "editor"}},
		{name: "keyword within category", q: Query{Text: "user", Category: "PREFS", Limit: 1}, want: []string{"coffee"}},
		{name: "since and until", q: Query{Since: since, Until: until}, want: []string{"release-day", "coffee"}},
		{name: "recent with query filters and sorts by time", q: Query{Text: "user", Mode: ModeRecent}, want: []string{"coffee", "editor"}},
		{name: "japanese substring", q: Query{Text: "東京タワー"}, want: []string{"tokyo"}},
		{name: "japanese word inside a sentence", q: Query{Text: "オフィス"}, want: []string{"tokyo"}},
		{name: "japanese characters out of order do not match", q: Query{Text: "京東"}, want: nil},
		{name: "full-width letters match half-width", q: Query{Text: "api"}, want: []string{"fullwidth"}},
		{name: "half-width katakana match", q: Query{Text: "ｷｰ"}, want: []string{"fullwidth"}},
		{name: "no match", q: Query{Text: "kubernetes"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := hitsOf(s.Recall(context.Background(), "default", tt.q))
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(hits); !slices.Equal(got, tt.want) {
				t.Errorf("Recall(%+v) = %v, want %v", tt.q, got, tt.want)
			}
			keyword := tt.q.Text != "" && tt.q.Mode != ModeRecent
			for _, h := range hits {
				if keyword != (h.Score > 0) {
					t.Errorf("%s: score %v with query %q", h.Key, h.Score, tt.q.Text)
				}
			}
		})
	}
}

func TestRecallErrors(t *testing.T) {
	s := newTestStore(t)
	later := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		q    Query
		want error
	}{
		{name: "keyword without query", q: Query{Mode: ModeKeyword}, want: ErrNoKeywords},
		{name: "query without words", q: Query{Text: `"*() :`}, want: ErrNoKeywords},
		{name: "unknown mode", q: Query{Mode: "fuzzy"}, want: ErrInvalidQuery},
		{name: "negative limit", q: Query{Limit: -1}, want: ErrInvalidQuery},
		{name: "limit over max", q: Query{Limit: MaxLimit + 1}, want: ErrInvalidQuery},
		{name: "since after until", q: Query{Since: later, Until: later.Add(-time.Hour)}, want: ErrInvalidQuery},
		{name: "query too long", q: Query{Text: strings.Repeat("a", MaxQueryBytes+1)}, want: ErrQueryTooLong},
		{name: "too many words", q: Query{Text: manyWords(MaxQueryWords + 1)}, want: ErrQueryTooLong},
		{name: "bad category", q: Query{Category: "a\x00b"}, want: ErrInvalidCategory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hitsOf(s.Recall(context.Background(), "default", tt.q))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Recall = %v, want %v", err, tt.want)
			}
		})
	}
	// Validation happens before the database is opened.
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid recalls created the database (stat err %v)", err)
	}
}

func manyWords(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(w, " ")
}

// TestInjection stores memories that hold FTS5 operators as plain words and
// checks that queries made of FTS5 syntax search for the words in them
// instead of being interpreted.
func TestInjection(t *testing.T) {
	s := newTestStore(t)
	seed(t, s, "default",
		Memory{Key: "near", Content: "Meet near the station."},
		Memory{Key: "or", Content: "Tea or coffee."},
		Memory{Key: "plain", Content: "Nothing special here."},
		Memory{Key: "secret", Content: "The deploy token lives in the vault."},
	)
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{name: "double quote", query: `"station`, want: []string{"near"}},
		{name: "unbalanced quotes", query: `tea" OR "nothing`, want: []string{"or", "plain"}},
		{name: "star prefix", query: `sta*`, want: nil},
		{name: "NEAR group", query: `NEAR(meet station, 2)`, want: []string{"near"}},
		{name: "OR keyword is a word", query: `OR`, want: []string{"or"}},
		{name: "AND and NOT are words", query: `special NOT here AND`, want: []string{"plain"}},
		{name: "parentheses", query: `(((tea)))`, want: []string{"or"}},
		{name: "column filter", query: `content:vault`, want: []string{"secret"}},
		{name: "column filter on unknown column", query: `namespace:default`, want: nil},
		{name: "brace column set", query: `{key content}: vault`, want: []string{"secret"}},
		{name: "caret initial token", query: `^meet`, want: []string{"near"}},
		{name: "minus and plus", query: `-vault +tea`, want: []string{"or", "secret"}},
		{name: "sql quote", query: `'; DROP TABLE memories; --`, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := hitsOf(s.Recall(context.Background(), "default", Query{Text: tt.query, Mode: ModeRecent}))
			if err != nil {
				t.Fatalf("Recall(%q): %v", tt.query, err)
			}
			got := keys(hits)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Recall(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	if hits, err := hitsOf(s.Recall(context.Background(), "default", Query{})); err != nil || len(hits) != 4 {
		t.Errorf("after the injection attempts: %v, %v; want 4 memories", keys(hits), err)
	}
}

func TestNamespacesAreIsolated(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	mustPut(t, s, "default", Memory{Key: "shared-key", Content: "default profile remembers apples"})
	mustPut(t, s, "work", Memory{Key: "shared-key", Content: "work profile remembers oranges"})

	for _, tt := range []struct{ ns, word, other string }{
		{ns: "default", word: "apples", other: "oranges"},
		{ns: "work", word: "oranges", other: "apples"},
	} {
		if hits, err := hitsOf(s.Recall(ctx, tt.ns, Query{Text: tt.word})); err != nil || len(hits) != 1 {
			t.Errorf("%s: recall %q = %v, %v", tt.ns, tt.word, keys(hits), err)
		}
		if hits, err := hitsOf(s.Recall(ctx, tt.ns, Query{Text: tt.other})); err != nil || len(hits) != 0 {
			t.Errorf("%s sees another namespace: recall %q = %v, %v", tt.ns, tt.other, keys(hits), err)
		}
	}
	if err := s.Forget(ctx, "work", "shared-key"); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(ctx, "default", "shared-key"); err != nil || !strings.Contains(m.Content, "apples") {
		t.Errorf("forgetting in work touched default: %+v, %v", m, err)
	}
	if _, err := s.Get(ctx, "empty", "shared-key"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a third namespace sees the key: %v", err)
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	first := NewStore(path, StoreOptions{})
	mustPut(t, first, "default", Memory{Key: "anniversary", Content: "The project started in March."})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := first.Put(ctx, "default", Memory{Content: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	second := NewStore(path, StoreOptions{})
	defer second.Close()
	hits, err := hitsOf(second.Recall(ctx, "default", Query{Text: "march"}))
	if err != nil || len(hits) != 1 || hits[0].Key != "anniversary" {
		t.Fatalf("after reopening: %v, %v", keys(hits), err)
	}
}

func TestNoDataDir(t *testing.T) {
	s := NewStore("", StoreOptions{})
	defer s.Close()
	if _, err := hitsOf(s.Recall(context.Background(), "default", Query{})); !errors.Is(err, ErrNoDataDir) {
		t.Fatalf("Recall = %v, want ErrNoDataDir", err)
	}
}

func TestSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := NewStore(path, StoreOptions{})
	defer s.Close()
	_, err = hitsOf(s.Recall(context.Background(), "default", Query{}))
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade talon") {
		t.Fatalf("Recall = %v, want ErrSchemaTooNew saying to upgrade", err)
	}
}

func TestBusyIsReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	holder := NewStore(path, StoreOptions{})
	defer holder.Close()
	mustPut(t, holder, "default", Memory{Key: "k", Content: "x"})
	db, _ := holder.handle(ctx)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)

	other := NewStore(path, StoreOptions{BusyTimeout: 50 * time.Millisecond})
	defer other.Close()
	_, _, err = other.Put(ctx, "default", Memory{Key: "k2", Content: "y"})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("Put while another handle writes = %v, want ErrBusy", err)
	}
	// Readers are not blocked by a writer under WAL.
	if _, err := other.Get(ctx, "default", "k"); err != nil {
		t.Errorf("Get while another handle writes: %v", err)
	}
}

// TestConcurrentWriters writes from many goroutines through two stores (two
// *sql.DB handles, as two processes would have) on one file, reading all
// the while, and checks that every write landed.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	a := NewStore(path, StoreOptions{})
	b := NewStore(path, StoreOptions{})
	defer a.Close()
	defer b.Close()
	const writers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := fmt.Sprintf("w%d-%d", w, i)
				if _, _, err := s.Put(ctx, "default", Memory{Key: key, Content: fmt.Sprintf("writer %d item %d shared", w, i)}); err != nil {
					errs <- err
				}
				if _, err := hitsOf(s.Recall(ctx, "default", Query{Text: "shared", Limit: 5})); err != nil {
					errs <- err
				}
				// Every writer also replaces one common key.
				if _, _, err := s.Put(ctx, "default", Memory{Key: "common", Content: key}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	hits, err := hitsOf(a.Recall(ctx, "default", Query{Text: "shared", Limit: MaxLimit}))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != writers*each {
		t.Errorf("found %d of %d memories", len(hits), writers*each)
	}
	var n int
	db, _ := b.handle(ctx)
	if err := db.QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil || n != writers*each+1 {
		t.Errorf("rows = %d, %v; want %d", n, err, writers*each+1)
	}
	// The index holds exactly one entry per row: common was replaced many
	// times and matches once.
	hits, err = hitsOf(b.Recall(ctx, "default", Query{Text: "common"}))
	if err != nil || len(hits) != 1 {
		t.Errorf("recall common = %v, %v; want one", keys(hits), err)
	}
}

// TestTwoProcesses writes from this process and a re-executed copy of the
// test binary at once, both opening a new file.
func TestTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := NewStore(path, StoreOptions{})
	defer s.Close()
	ctx := context.Background()
	for i := range processWrites {
		key := fmt.Sprintf("parent-%d", i)
		if _, _, err := s.Put(ctx, DefaultNamespace, Memory{Key: key, Content: "written by the parent process"}); err != nil {
			t.Error(err)
		}
		if _, _, err := s.Put(ctx, DefaultNamespace, Memory{Key: "common", Content: fmt.Sprint("turn ", i)}); err != nil {
			t.Error(err)
		}
		if _, err := s.Recall(ctx, DefaultNamespace, Query{Text: "process"}); err != nil {
			t.Error(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child process: %v\n%s", err, stderr.String())
	}
	for _, who := range []string{"parent", "child"} {
		r, err := s.Recall(ctx, DefaultNamespace, Query{Text: who, Limit: MaxLimit})
		if err != nil || len(r.Hits) != processWrites {
			t.Errorf("%s: %d memories, %v; want %d", who, len(r.Hits), err, processWrites)
		}
	}
	if r, err := s.Recall(ctx, DefaultNamespace, Query{Limit: MaxLimit}); err != nil || len(r.Hits) != 2*processWrites+1 {
		t.Errorf("%d memories in all, %v; want %d", len(r.Hits), err, 2*processWrites+1)
	}
}

func TestConcurrentFirstOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	stores := make([]*Store, 4)
	for i := range stores {
		stores[i] = NewStore(path, StoreOptions{})
		defer stores[i].Close()
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(stores))
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := s.Put(ctx, "default", Memory{Key: fmt.Sprint("k", i), Content: "first open"}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	hits, err := hitsOf(stores[0].Recall(ctx, "default", Query{}))
	if err != nil || len(hits) != len(stores) {
		t.Errorf("after concurrent first opens: %v, %v", keys(hits), err)
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		endOfDay bool
		want     string
		wantErr  bool
	}{
		{name: "rfc3339", in: "2024-05-01T09:30:00+09:00", want: "2024-05-01T00:30:00Z"},
		{name: "rfc3339 with fraction", in: "2024-05-01T09:30:00.5Z", want: "2024-05-01T09:30:00.5Z"},
		{name: "date as lower bound", in: "2024-05-01", want: "2024-05-01T00:00:00Z"},
		{name: "date as upper bound", in: "2024-05-01", endOfDay: true, want: "2024-05-01T23:59:59.999999999Z"},
		{name: "spaces", in: " 2024-05-01 ", want: "2024-05-01T00:00:00Z"},
		{name: "garbage", in: "yesterday", wantErr: true},
		{name: "no zone", in: "2024-05-01T09:30:00", wantErr: true},
		{name: "bad day", in: "2024-02-30", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTime(tt.in, tt.endOfDay)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidQuery) {
					t.Fatalf("ParseTime(%q) = %v, %v; want ErrInvalidQuery", tt.in, got, err)
				}
				return
			}
			if err != nil || got.UTC().Format(time.RFC3339Nano) != tt.want {
				t.Fatalf("ParseTime(%q) = %v, %v; want %s", tt.in, got.UTC().Format(time.RFC3339Nano), err, tt.want)
			}
		})
	}
}

// TestRankBudget checks how a keyword recall keeps its scoring bounded:
// common words give way to rarer ones, and a query matching more than
// RankBudget memories ranks the newest of them.
func TestRankBudget(t *testing.T) {
	s := newTestStore(t)
	const budget = 40
	s.rankBudget = budget
	ms := []Memory{
		// Oldest, and the best match for "common" by far.
		{Key: "common", Content: "common common common", Category: "archive"},
		{Key: "rare-old", Content: "a rare bird and a common one"},
	}
	for i := range budget + 20 {
		ms = append(ms, Memory{Key: fmt.Sprintf("filler-%d", i), Content: fmt.Sprintf("a common note number %d", i)})
	}
	ms = append(ms, Memory{Key: "rare-new", Content: "another rare find"})
	bulkPut(t, s, "default", ms)
	ctx := context.Background()

	t.Run("common word ignored beside a rare one", func(t *testing.T) {
		r, err := s.Recall(ctx, "default", Query{Text: "common rare"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Ignored, []string{"common"}) || r.Newest != 0 {
			t.Errorf("Ignored = %v, Newest = %d; want [common], 0", r.Ignored, r.Newest)
		}
		got := keys(r.Hits)
		slices.Sort(got)
		if !slices.Equal(got, []string{"rare-new", "rare-old"}) {
			t.Errorf("hits = %v", got)
		}
	})
	t.Run("only common words rank the newest matches", func(t *testing.T) {
		r, err := s.Recall(ctx, "default", Query{Text: "common", Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if r.Newest != budget || len(r.Ignored) != 0 {
			t.Errorf("Newest = %d, Ignored = %v; want %d, none", r.Newest, r.Ignored, budget)
		}
		if slices.Contains(keys(r.Hits), "common") {
			t.Error("the oldest memory was ranked although it is outside the newest matches")
		}
		if len(r.Hits) != budget {
			t.Errorf("%d hits, want %d", len(r.Hits), budget)
		}
	})
	t.Run("filters apply before the budget", func(t *testing.T) {
		r, err := s.Recall(ctx, "default", Query{Text: "common", Category: "archive"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Newest != 0 || !slices.Equal(keys(r.Hits), []string{"common"}) {
			t.Errorf("Newest = %d, hits = %v; want 0, [common]", r.Newest, keys(r.Hits))
		}
	})
	t.Run("words found nowhere are dropped quietly", func(t *testing.T) {
		r, err := s.Recall(ctx, "default", Query{Text: "zebra rare"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Ignored) != 0 || len(r.Hits) != 2 {
			t.Errorf("Ignored = %v, hits = %v", r.Ignored, keys(r.Hits))
		}
	})
	t.Run("a replacement becomes the newest", func(t *testing.T) {
		mustPut(t, s, "default", Memory{Key: "common", Content: "common common common, revisited"})
		r, err := s.Recall(ctx, "default", Query{Text: "common"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) == 0 || r.Hits[0].Key != "common" {
			t.Errorf("hits = %v; want the replaced memory first", keys(r.Hits))
		}
	})
}
