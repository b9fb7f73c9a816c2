package process_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	_ "modernc.org/sqlite"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	_ "github.com/talonhq/talon/plugins/process"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// installExample installs the sqlite-query example, built from source,
// into dataDir's plugins_dir with sha256 set, trusts it, and returns the
// config that enables it on the database file db.
func installExample(t *testing.T, dataDir, db string) *config.Config {
	t.Helper()
	src := filepath.Join("..", "examples", "sqlite-query")
	bin := pluginbuild.Binary(t, src)
	dir := filepath.Join(dataDir, "plugins", "sqlite-query")
	for _, d := range []string{"locales/en", "locales/ja"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, bin, filepath.Join(dir, "sqlite-query"), 0o755)
	for _, f := range []string{"locales/en/sqlite-query.ftl", "locales/ja/sqlite-query.ftl"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(dir, f), 0o644)
	}
	sum, err := manifest.HashFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	toml, err := os.ReadFile(filepath.Join(src, "plugin.toml"))
	if err != nil {
		t.Fatal(err)
	}
	toml = []byte(strings.Replace(string(toml), strings.Repeat("0", 64), sum, 1))
	if err := os.WriteFile(filepath.Join(dir, "plugin.toml"), toml, 0o644); err != nil {
		t.Fatal(err)
	}
	trust, err := manifest.OpenTrust(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.Grant("sqlite-query", manifest.HashBytes(toml)); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Plugins.Enabled = true
	cfg.Plugins.Entries = []config.PluginEntry{{Name: "sqlite-query", Config: map[string]any{"database": db}}}
	none := []string{}
	cfg.Tools.Optional = &none
	return cfg
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

func makeDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, q := range []string{
		`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, active INTEGER)`,
		`INSERT INTO users (name, active) VALUES ('ada', 1), ('grace', 1), ('linus', 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExampleEndToEnd installs, trusts and loads the example plugin
// through the loader, and calls it through the runtime (with a receipt)
// and over MCP.
func TestExampleEndToEnd(t *testing.T) {
	ctx := context.Background()
	data, ws := t.TempDir(), t.TempDir()
	makeDB(t, filepath.Join(ws, "app.db"))
	cfg := installExample(t, data, "app.db")

	set, err := plugins.Load(ctx, plugins.Options{Config: cfg, Workspace: ws, DataDir: data, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close(context.Background()) })
	for _, w := range set.Warnings {
		if !strings.Contains(w, "not signed") {
			t.Fatalf("warning: %s", w)
		}
	}
	if len(set.Tools) != 2 {
		t.Fatalf("tools: %d, want 2", len(set.Tools))
	}
	var msgs []runtime.MessageSource
	for _, m := range set.Messages {
		msgs = append(msgs, runtime.MessageSource{FS: m.FS, Source: m.Source})
	}
	store, err := receipts.Open(receipts.Options{Dir: filepath.Join(data, "receipts")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	rt, err := runtime.New(runtime.Options{
		Config: cfg, Workspace: ws, DataDir: data, Tools: set.Tools, Receipts: store, Messages: msgs, Logger: zerolog.Nop(),
	})
	if err != nil {
		t.Fatal(err)
	}

	view, err := rt.View(runtime.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var spec tool.Spec
	for _, s := range view {
		if s.Name == "sqlite_query" {
			spec = s
		}
	}
	if spec.Attribution.String() != "process.sqlite-query" || spec.Tier != tool.Low {
		t.Fatalf("sqlite_query spec: %+v", spec)
	}
	if !strings.Contains(spec.Description, "tab-separated text with a header line") {
		t.Errorf("description is not the plugin's localized message: %q", spec.Description)
	}

	res, err := rt.Call(ctx, tool.Call{Name: "sqlite_query", Args: json.RawMessage(`{"sql":"SELECT name FROM users WHERE active = 1 ORDER BY id"}`), Channel: tool.ChannelCLI})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.Output.Text != "name\nada\ngrace\n(2 rows)" {
		t.Fatalf("query = %+v", res)
	}
	if res.Receipt == nil || res.Receipt.Attribution != "process.sqlite-query" {
		t.Fatalf("receipt = %+v", res.Receipt)
	}

	// Read-only: a write is a failed result, with no receipt.
	res, err = rt.Call(ctx, tool.Call{Name: "sqlite_query", Args: json.RawMessage(`{"sql":"DELETE FROM users"}`), Channel: tool.ChannelCLI})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || res.Receipt != nil || !strings.Contains(strings.ToLower(res.Error), "readonly") {
		t.Fatalf("write = %+v", res)
	}

	// Over MCP.
	srv, err := server.New(server.Options{Runtime: rt})
	if err != nil {
		t.Fatal(err)
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(sctx, toServer, fromServer) }()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(sctx, &mcpsdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cs.CallTool(sctx, &mcpsdk.CallToolParams{Name: "sqlite_query", Arguments: map[string]any{"sql": "SELECT count(*) AS n FROM users"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.IsError || len(out.Content) == 0 || !strings.Contains(out.Content[0].(*mcpsdk.TextContent).Text, "n\n3\n") {
		t.Fatalf("MCP call = %+v", out)
	}
	_ = cs.Close()
	stop()
	<-done
	_ = toServer.Close()
	_ = toClient.Close()

	rs, err := receipts.List(filepath.Join(data, "receipts"), receipts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("receipts: %d, want 2 (CLI and MCP calls)", len(rs))
	}
	for _, r := range rs {
		if r.Attribution != "process.sqlite-query" || r.Tool != "sqlite_query" {
			t.Errorf("receipt %+v", r)
		}
	}
}
