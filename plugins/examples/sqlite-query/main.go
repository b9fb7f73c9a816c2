// Command sqlite-query is an example subprocess tool plugin: read-only SQL
// over one SQLite database file the operator names in the plugin's
// config:
//
//	[[plugins.entries]]
//	name = "sqlite-query"
//	config = { database = "data/app.db" }
//
// A relative path is resolved against the workspace (the plugin's working
// directory). The database is opened read-only with query_only set and
// ATTACH disabled, so no statement can change it or reach another file. Build it with the standard toolchain:
//
//	go build -o sqlite-query .
//	talon plugins sign .
//
// See docs/process-plugins.md.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/talonhq/talon/plugins/sdk"
)

// defaultMaxRows and maxRowsLimit bound what one query returns.
const (
	defaultMaxRows = 100
	maxRowsLimit   = 1000
)

func main() {
	sdk.Serve(
		sdk.Tool{
			Name:        "sqlite_query",
			Description: "Run one read-only SQL query against the SQLite database the operator configured and return the rows.",
			Input: json.RawMessage(`{
				"type": "object",
				"properties": {
					"sql": {"type": "string", "minLength": 1, "description": "One SQL statement that reads data, such as SELECT."},
					"max_rows": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most rows to return; defaults to 100."}
				},
				"required": ["sql"],
				"additionalProperties": false
			}`),
			Tier: "low",
			Run:  query,
		},
		sdk.Tool{
			Name:        "sqlite_schema",
			Description: "List the tables and views of the configured SQLite database with the SQL that created them.",
			Input:       json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
			Tier:        "low",
			Run:         schema,
		},
	)
}

type config struct {
	Database string `json:"database"`
}

// limitAttached is SQLITE_LIMIT_ATTACHED: with it at zero, ATTACH cannot
// open (or create) another database file.
const limitAttached = 7

// open opens the configured database read-only, on one connection that
// cannot attach other files.
func open(ctx context.Context, c sdk.Call) (*sql.DB, *sql.Conn, error) {
	var cfg config
	if err := c.BindConfig(&cfg); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(cfg.Database) == "" {
		return nil, nil, errors.New(`no database configured: set config = { database = "path/to/file.db" } in this plugin's [[plugins.entries]] and list "database" in config_read`)
	}
	path, err := filepath.Abs(cfg.Database)
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout(2000)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		_ = db.Close()
		return nil, nil, fmt.Errorf("open %s: %w; check the database path in the plugin's config", path, err)
	}
	if _, err := sqlite.Limit(conn, limitAttached, 0); err != nil {
		_ = conn.Close()
		_ = db.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, conn, nil
}

func query(ctx context.Context, c sdk.Call) (sdk.Result, error) {
	var in struct {
		SQL     string `json:"sql"`
		MaxRows int    `json:"max_rows"`
	}
	if err := c.Bind(&in); err != nil {
		return sdk.Result{}, err
	}
	if in.MaxRows <= 0 {
		in.MaxRows = defaultMaxRows
	}
	in.MaxRows = min(in.MaxRows, maxRowsLimit)
	db, conn, err := open(ctx, c)
	if err != nil {
		return sdk.Errorf("%v", err), nil
	}
	defer func() { _ = conn.Close(); _ = db.Close() }()
	rows, err := conn.QueryContext(ctx, in.SQL)
	if err != nil {
		return sdk.Errorf("query failed: %v", err), nil
	}
	defer func() { _ = rows.Close() }()
	cols, err := rows.Columns()
	if err != nil {
		return sdk.Errorf("query failed: %v", err), nil
	}
	out := [][]any{}
	truncated := false
	for rows.Next() {
		if len(out) == in.MaxRows {
			truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return sdk.Errorf("read a row: %v", err), nil
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return sdk.Errorf("query failed: %v", err), nil
	}
	c.Logger.Debug("query done", "rows", len(out), "truncated", truncated)
	return sdk.Result{
		Text: render(cols, out, truncated),
		Data: map[string]any{"columns": cols, "rows": out, "truncated": truncated},
	}, nil
}

// render is the rows as tab-separated lines under a header line.
func render(cols []string, rows [][]any, truncated bool) string {
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t"))
	b.WriteByte('\n')
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprint(&b, v)
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "(%d rows", len(rows))
	if truncated {
		b.WriteString(", more not shown; raise max_rows or narrow the query")
	}
	b.WriteString(")")
	return b.String()
}

func schema(ctx context.Context, c sdk.Call) (sdk.Result, error) {
	db, conn, err := open(ctx, c)
	if err != nil {
		return sdk.Errorf("%v", err), nil
	}
	defer func() { _ = conn.Close(); _ = db.Close() }()
	rows, err := conn.QueryContext(ctx, `SELECT type, name, COALESCE(sql, '') FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return sdk.Errorf("read the schema: %v", err), nil
	}
	defer func() { _ = rows.Close() }()
	var b strings.Builder
	type object struct {
		Type string `json:"type"`
		Name string `json:"name"`
		SQL  string `json:"sql"`
	}
	objs := []object{}
	for rows.Next() {
		var o object
		if err := rows.Scan(&o.Type, &o.Name, &o.SQL); err != nil {
			return sdk.Errorf("read the schema: %v", err), nil
		}
		objs = append(objs, o)
		fmt.Fprintf(&b, "%s %s: %s\n", o.Type, o.Name, o.SQL)
	}
	if err := rows.Err(); err != nil {
		return sdk.Errorf("read the schema: %v", err), nil
	}
	if len(objs) == 0 {
		b.WriteString("(the database has no tables)")
	}
	return sdk.Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"objects": objs}}, nil
}
