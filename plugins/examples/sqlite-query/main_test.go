package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/plugins/sdk"
)

func testDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, q := range []string{
		`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, note BLOB)`,
		`INSERT INTO users (name, note) VALUES ('ada', NULL), ('grace', x'6869'), ('linus', NULL)`,
		`CREATE VIEW names AS SELECT name FROM users`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func callWith(db, args string) sdk.Call {
	cfg, _ := json.Marshal(map[string]string{"database": db})
	return sdk.Call{Tool: "sqlite_query", Args: json.RawMessage(args), Config: cfg, Logger: slog.New(slog.DiscardHandler)}
}

// TestQuery checks rows, NULLs and blobs, the row cap, read-only
// enforcement and a missing database setting.
func TestQuery(t *testing.T) {
	db := testDB(t)
	tests := []struct {
		name    string
		db      string
		args    string
		isError bool
		want    string
	}{
		{name: "rows", db: db, args: `{"sql":"SELECT name, note FROM users ORDER BY id"}`, want: "name\tnote\nada\tNULL\ngrace\thi\nlinus\tNULL\n(3 rows)"},
		{name: "capped", db: db, args: `{"sql":"SELECT id FROM users ORDER BY id","max_rows":2}`, want: "id\n1\n2\n(2 rows, more not shown; raise max_rows or narrow the query)"},
		{name: "write refused", db: db, args: `{"sql":"DELETE FROM users"}`, isError: true, want: "readonly"},
		{name: "attach refused", db: db, args: `{"sql":"ATTACH DATABASE 'other.db' AS o"}`, isError: true, want: "query failed"},
		{name: "bad sql", db: db, args: `{"sql":"SELEC 1"}`, isError: true, want: "syntax error"},
		{name: "no database", db: "", args: `{"sql":"SELECT 1"}`, isError: true, want: "no database configured"},
		{name: "missing file", db: filepath.Join(t.TempDir(), "none.db"), args: `{"sql":"SELECT 1"}`, isError: true, want: "check the database path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := query(context.Background(), callWith(tt.db, tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if r.IsError != tt.isError || !strings.Contains(r.Text, tt.want) {
				t.Fatalf("result = %+v, want isError=%v and %q", r, tt.isError, tt.want)
			}
		})
	}
	// The write did not happen.
	r, _ := query(context.Background(), callWith(db, `{"sql":"SELECT count(*) FROM users"}`))
	if !strings.Contains(r.Text, "\n3\n") {
		t.Fatalf("count = %q", r.Text)
	}
}

func TestSchema(t *testing.T) {
	r, err := schema(context.Background(), callWith(testDB(t), `{}`))
	if err != nil || r.IsError {
		t.Fatalf("schema = %+v, %v", r, err)
	}
	if !strings.Contains(r.Text, "table users: CREATE TABLE users") || !strings.Contains(r.Text, "view names: CREATE VIEW names") {
		t.Fatalf("schema = %q", r.Text)
	}
}
