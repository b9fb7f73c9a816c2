package memory

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQueryPhrases checks the recall query builder on any text: it either
// refuses the text with one of its errors, or builds an FTS5 query made
// only of quoted strings that SQLite accepts and runs.
func FuzzQueryPhrases(f *testing.F) {
	for _, seed := range []string{
		"", "editor preferences", `"`, `""`, `a"b`, "sta*", "^start", "NEAR(a b, 2)", "a OR b", "NOT x AND y",
		"((a))", "content:x", "{key content}: x", "-a +b", "'; DROP TABLE memories; --", "東京タワー",
		"ｶﾀｶﾅ ＡＢＣ", "e\u0301", "\u0301\u0302", "a\x00b", "\xff\xfe", strings.Repeat("w ", 40),
	} {
		f.Add(seed)
	}
	db, err := sql.Open("sqlite", "file:fuzz?mode=memory&cache=private")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	f.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(migrations[0][3]); err != nil {
		f.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO memories_fts (rowid, key, category, tags, content) VALUES (1, 'k', 'c', 't', ?)`,
		indexText("near or not and 東京タワー content key")); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := queryPhrases(text)
		if err != nil {
			if !errors.Is(err, ErrNoKeywords) && !errors.Is(err, ErrQueryTooLong) {
				t.Fatalf("queryPhrases(%q): unexpected error %v", text, err)
			}
			return
		}
		if len(ps) == 0 || len(ps) > MaxQueryWords {
			t.Fatalf("queryPhrases(%q) = %d phrases", text, len(ps))
		}
		for _, p := range ps {
			inner, ok := strings.CutPrefix(p.expr, `"`)
			inner, ok2 := strings.CutSuffix(inner, `"`)
			if !ok || !ok2 || strings.Contains(strings.ReplaceAll(inner, `""`, ""), `"`) {
				t.Fatalf("phrase %q of %q is not one quoted string", p.expr, text)
			}
			if !utf8.ValidString(p.expr) {
				t.Fatalf("phrase %q of %q is not UTF-8", p.expr, text)
			}
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, orExpression(ps)).Scan(&n); err != nil {
			t.Fatalf("FTS5 refused the query built from %q (%s): %v", text, orExpression(ps), err)
		}
	})
}
