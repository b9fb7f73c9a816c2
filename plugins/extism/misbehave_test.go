package extism

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// TestLoadRefusals: a module that cannot be a plugin is refused at load
// with an error that names the plugin and the cause.
func TestLoadRefusals(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.wasm")
	if err := os.WriteFile(garbage, []byte("\x00asm\x01\x00\x00\x00\x02\x05\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		wasm  string
		tools []manifest.Tool
		is    error
		want  string
	}{
		{name: "neither servlet nor tools", wasm: watModule(t, "noexports"), is: ErrNoTools,
			want: "exports neither describe and call (an MCP servlet) nor does plugin.toml map its exports with [[tools]]; its exports are count_vowels, helper"},
		{name: "tools table names a missing export", wasm: watModule(t, "noexports"), is: ErrNoTools,
			tools: []manifest.Tool{{Name: "count", Export: "count"}}, want: `[[tools]] "count": the module does not export "count"`},
		{name: "tools table without export on a plain module", wasm: watModule(t, "noexports"), is: ErrNoTools,
			tools: []manifest.Tool{{Name: "count_vowels"}}, want: "has no export"},
		{name: "export of the wrong type", wasm: watModule(t, "plain"), is: ErrNoTools,
			tools: []manifest.Tool{{Name: "x", Export: "wrongtype"}}, want: `export "wrongtype" has type (i32) -> (i32)`},
		{name: "describe is not JSON", wasm: watModule(t, "baddescribe"), is: ErrBadResponse, want: "describe"},
		{name: "describe names a tool twice", wasm: watModule(t, "dupdescribe"), is: ErrBadResponse, want: `describe lists tool "twice" twice`},
		{name: "describe lists nothing", wasm: watModule(t, "emptydescribe"), is: ErrBadResponse, want: "describe lists no tools"},
		{name: "servlet with an export in [[tools]]", wasm: watModule(t, "servlet"), is: ErrNoTools,
			tools: []manifest.Tool{{Name: "shout", Export: "call"}}, want: "may set its tier or description but not an export"},
		{name: "servlet with an unknown tool in [[tools]]", wasm: watModule(t, "servlet"), is: ErrNoTools,
			tools: []manifest.Tool{{Name: "whisper", Tier: "low"}}, want: `names "whisper", which describe does not list`},
		{name: "a host function of its own host", wasm: watModule(t, "userimport"), is: ErrImport, want: "extism:host/user.lookup: talon provides no host functions"},
		{name: "a kernel function of the wrong type", wasm: watModule(t, "badkernel"), is: ErrImport, want: "extism:host/env.alloc has type (i32) -> (i32), the Extism kernel's is (i64) -> (i64)"},
		{name: "not a module", wasm: garbage, is: errBinary, want: "it ends early"},
	}
	h := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := load(t, h, fixture{name: "bad", wasm: tt.wasm, tools: tt.tools, dataDir: t.TempDir()})
			if err == nil {
				t.Fatal("loaded")
			}
			if !errors.Is(err, tt.is) || !strings.HasPrefix(err.Error(), "extism.bad: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q; want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

// TestMisbehavingCalls: every way a call can go wrong is a failed result
// naming the plugin and the cause; the plugin's other tools, and other
// plugins, keep answering.
func TestMisbehavingCalls(t *testing.T) {
	h := New(Options{})
	bad, _ := mustLoad(t, h, fixture{name: "misbehave", wasm: watModule(t, "misbehave"),
		limits: manifest.Limits{TimeoutMS: 300, MaxOutputBytes: 1 << 20}})
	good, _ := mustLoad(t, h, fixture{name: "servlet", wasm: watModule(t, "servlet")})
	tests := []struct{ tool, want string }{
		{"garbage", "bad response from plugin: call did not return a CallToolResult"},
		{"object", "call returned neither content nor structuredContent"},
		{"trap", "plugin crashed: wasm error: unreachable"},
		{"loop", "timed out after 300ms (limits.timeout_ms)"},
		{"big", "output over the cap: 2097152 bytes, limits.max_output_bytes is 1048576"},
		{"error", "misbehave failed on purpose"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			wantFailure(t, call(t, bad, tt.tool, `{}`), "extism.misbehave: "+tt.tool+": ", tt.want)
			wantText(t, call(t, bad, "valid", `{}`), "fine")
			wantText(t, call(t, good, "shout", `{}`), `{"params":{"name":"shout","arguments":{}}}`)
		})
	}
}

// TestPlainExports: [[tools]] maps plain exports: the arguments are the
// input, the output the text; an error the export sets is a failed result.
func TestPlainExports(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "plain", wasm: watModule(t, "plain"), tools: []manifest.Tool{
		{Name: "backwards", Export: "reverse", Description: "Reverse the arguments.", Tier: "low",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"s": map[string]any{"type": "string"}}}},
	}})
	spec := find(t, l, "backwards").Spec()
	if spec.Tier != tool.Low || spec.Description != "Reverse the arguments." || !strings.Contains(string(spec.Input), `"s"`) {
		t.Fatalf("spec %+v", spec)
	}
	wantText(t, call(t, l, "backwards", `{"s":"abc"}`), `}"cba":"s"{`)
	res, err := find(t, l, "backwards").Execute(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, res, "}{")
}

// probe loads the probe servlet with the given grants.
func probe(t *testing.T, h *Host, f fixture) (*plugin, *syncBuffer) {
	t.Helper()
	f.name = "probe"
	f.wasm = pluginbuild.GoWASM(t, filepath.Join("testdata", "probe"))
	l, logs := mustLoad(t, h, f)
	return l.(*plugin), logs
}

// TestGrants: config, HTTP and files reach only what the operator granted;
// what a plugin asks for beyond that is a failed result that names the
// plugin and the grant.
func TestGrants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	resolver := mapResolver{"api.test": "127.0.0.1", "other.test": "127.0.0.1"}

	ws := t.TempDir()
	for name, body := range map[string]string{"data/hello.txt": "hi there", "data/secret.txt": "s3cret", "outside.txt": "no"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, "outside.txt"), filepath.Join(ws, "data", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	grants := manifest.Grants{
		AllowedHosts: []string{"api.test"},
		Config:       map[string]any{"greeting": "hi", "n": int64(42)},
		FSRead:       []string{filepath.Join(ws, "data")},
		FSWrite:      []string{filepath.Join(ws, "out")},
	}
	granted, logs := probe(t, New(Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: resolver}),
		fixture{grants: grants, read: []string{"greeting", "n", "unset"}, ws: ws})
	none, _ := probe(t, New(Options{Resolver: resolver}), fixture{ws: ws})

	tests := []struct {
		name, plugin, tool, args string
		want                     string // text of a success
		fail                     string // part of a failure
	}{
		{name: "granted config", tool: "config", args: `{"key":"greeting"}`, want: "value: hi"},
		{name: "config as JSON", tool: "config", args: `{"key":"n"}`, want: "value: 42"},
		{name: "requested but not set", tool: "config", args: `{"key":"unset"}`, want: "not set"},
		{name: "not requested", tool: "config", args: `{"key":"token"}`, fail: `config key "token" is not granted to plugin probe: the manifest must list it`},
		{name: "nothing granted", plugin: "none", tool: "config", args: `{"key":"greeting"}`, fail: `config key "greeting" is not granted`},
		{name: "granted host", tool: "fetch", args: `{"url":"http://api.test` + port + `/x"}`, want: "200 hello from api.test" + port},
		{name: "other host", tool: "fetch", args: `{"url":"http://other.test` + port + `/"}`, fail: "http_request refused"},
		{name: "no hosts", plugin: "none", tool: "fetch", args: `{"url":"http://api.test` + port + `/"}`, fail: "may reach only its granted allowed_hosts (none)"},
		{name: "read granted", tool: "read", args: `{"path":"/data/hello.txt"}`, want: "hi there"},
		{name: "list granted", tool: "list", args: `{"path":"/data"}`, want: "escape,hello.txt,secret.txt"},
		{name: "link out of the grant", tool: "read", args: `{"path":"/data/escape"}`, fail: "Permission denied"},
		{name: "dot-dot out of the grant", tool: "read", args: `{"path":"/data/../outside.txt"}`, fail: "extism.probe: read:"},
		{name: "write to a read grant", tool: "write", args: `{"path":"/data/new.txt","text":"x"}`, fail: "Read-only file system"},
		{name: "write granted", tool: "write", args: `{"path":"/out/new.txt","text":"written"}`, want: "wrote /out/new.txt"},
		{name: "read back", tool: "read", args: `{"path":"/out/new.txt"}`, want: "written"},
		{name: "no files", plugin: "none", tool: "read", args: `{"path":"/data/hello.txt"}`, fail: "extism.probe: read:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := granted
			if tt.plugin == "none" {
				p = none
			}
			res := call(t, p, tt.tool, tt.args)
			if tt.fail != "" {
				wantFailure(t, res, "extism.probe: "+tt.tool+": ", tt.fail)
				return
			}
			wantText(t, res, tt.want)
		})
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out", "new.txt")); err != nil || string(b) != "written" {
		t.Fatalf("out/new.txt: %q, %v", b, err)
	}
	if !strings.Contains(logs.String(), "file access refused") {
		t.Errorf("the refused link is not logged:\n%s", logs)
	}

	// Under a profile's forbidden_paths the mounts refuse them too.
	fp, err := find(t, granted, "read").(tool.Profiled).ForProfile(tool.ProfileSettings{ForbiddenPaths: []string{"data/secret.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fp.Execute(context.Background(), json.RawMessage(`{"path":"/data/secret.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, res, "Permission denied")
	wantText(t, call(t, granted, "read", `{"path":"/data/secret.txt"}`), "s3cret")
}

// TestGuestFailures: a Go guest's panic, running out of memory, spinning
// and setting an error are failed results; the instance is replaced and
// the next call works.
func TestGuestFailures(t *testing.T) {
	p, _ := probe(t, New(Options{}), fixture{limits: manifest.Limits{TimeoutMS: 2000, MaxMemoryMB: 32}})
	tests := []struct{ tool, args, want string }{
		{"panic", `{}`, "plugin crashed: wasm error: unreachable (it wrote to stderr: panic: probe panics on purpose"},
		{"grow", `{"mb":64}`, "(memory limit 32 MiB, limits.max_memory_mb)"},
		{"spin", `{}`, "timed out after 2s"},
		{"fail", `{}`, "probe failed on purpose"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			wantFailure(t, call(t, p, tt.tool, tt.args), "extism.probe: "+tt.tool+": ", tt.want)
			wantText(t, call(t, p, "log", `{"level":"debug","text":"still here"}`), "logged")
		})
	}
}

// TestLogsAndVars: log_* reach talon's log with the plugin's attribution
// and the tool; variables belong to one instance.
func TestLogsAndVars(t *testing.T) {
	p, logs := probe(t, New(Options{}), fixture{limits: manifest.Limits{MaxInstances: 1}})
	wantText(t, call(t, p, "log", `{"level":"warn","text":"careful now"}`), "logged")
	if l := logs.String(); !strings.Contains(l, `"level":"warn"`) || !strings.Contains(l, `"attribution":"extism.probe"`) ||
		!strings.Contains(l, `"tool":"log"`) || !strings.Contains(l, `"message":"careful now"`) {
		t.Fatalf("log line missing:\n%s", l)
	}
	for i := 1; i <= 3; i++ {
		wantText(t, call(t, p, "count", `{}`), fmt.Sprint(i))
	}
	other, _ := probe(t, New(Options{}), fixture{})
	wantText(t, call(t, other, "count", `{}`), "1")
}

// mapResolver resolves the names it holds to fixed addresses.
type mapResolver map[string]string

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := m[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// TestDeadlineNotEnforced: enforce_deadline = false is honoured only for a
// trusted publisher; either way the plugin answers.
func TestDeadlineNotEnforced(t *testing.T) {
	off := false
	for _, sig := range []manifest.SignatureStatus{manifest.SignedTrusted, manifest.Unsigned} {
		l, _ := mustLoad(t, New(Options{}), fixture{name: "servlet", wasm: watModule(t, "servlet"), sig: sig,
			limits: manifest.Limits{EnforceDeadline: &off}})
		if got := l.(*plugin).enforce; got != (sig != manifest.SignedTrusted) {
			t.Errorf("%s: enforce = %v", sig, got)
		}
		wantText(t, call(t, l, "shout", `{}`), `{"params":{"name":"shout","arguments":{}}}`)
	}
}
