package wasm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
)

func TestLoadRefusesBadModules(t *testing.T) {
	tests := []struct {
		name string
		want error
		text string
	}{
		{name: "version2", want: ErrABIVersion, text: "talon_abi_version returned 2"},
		{name: "noexport", want: ErrMissingExport, text: "does not export talon_call"},
		{name: "badimport", want: ErrImport, text: "talon_host_v1.spawn"},
		{name: "baddescribe", want: ErrBadResponse, text: "bad name"},
	}
	h := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := load(t, h, fixture{name: tt.name, wasm: watPlugin(t, tt.name)})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			for _, part := range []string{"wasm." + tt.name + ":", tt.text} {
				if !strings.Contains(err.Error(), part) {
					t.Fatalf("error %q does not contain %q", err, part)
				}
			}
		})
	}
	// The host still loads a good plugin.
	l, _ := mustLoad(t, h, fixture{name: "wat-echo", wasm: pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")})
	wantText(t, call(t, l, "echo_args", `{}`), `"name":"echo_args"`)
}

func TestBadResponsesAreFailedResults(t *testing.T) {
	tests := []struct {
		name   string
		limits manifest.Limits
		text   []string
	}{
		{name: "garbage", text: []string{"bad response from plugin", "talon_call"}},
		{name: "badptr", text: []string{"outside its", "bytes of memory"}},
		{name: "bigout", text: []string{"output over the cap", "limit is 1048576"}},
		{name: "trap", text: []string{"plugin crashed", "unreachable"}},
		{name: "loop", limits: manifest.Limits{TimeoutMS: 200}, text: []string{"timed out after 200ms", "discarded"}},
	}
	h := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := mustLoad(t, h, fixture{name: tt.name, wasm: watPlugin(t, tt.name), limits: tt.limits})
			for range 2 { // the second call gets a fresh instance and fails the same way
				wantFailure(t, call(t, l, "run", `{}`), append([]string{"wasm." + tt.name + ": run:"}, tt.text...)...)
			}
			pl := l.(*plugin)
			if idle, inUse := pl.pool.Stats(); idle != 0 || inUse != 0 {
				t.Fatalf("idle %d, in use %d: a failed instance was kept", idle, inUse)
			}
			if got := pl.pool.Created(); got != 2 { // describe's, then a new one for the second call
				t.Fatalf("created %d instances, want 2", got)
			}
		})
	}
}

// probe loads testdata/probe with the given limits and grants.
func probe(t *testing.T, h *Host, limits manifest.Limits, grants manifest.Grants, ws string) (*plugin, *syncBuffer) {
	t.Helper()
	l, logs := mustLoad(t, h, fixture{name: "probe", wasm: goPlugin(t, "testdata/probe"), limits: limits, grants: grants, ws: ws,
		read: []string{"units", "optional"}})
	return l.(*plugin), logs
}

func TestMisbehavingGoPlugin(t *testing.T) {
	h := New(Options{})
	// The hog reaches 24 MiB long before 2 min; spin always runs to the end.
	p, _ := probe(t, h, manifest.Limits{TimeoutMS: 120000, MaxMemoryMB: 24}, manifest.Grants{}, "")
	spinner, _ := probe(t, h, manifest.Limits{TimeoutMS: 1500}, manifest.Grants{}, "")
	tests := []struct {
		tool string
		p    *plugin
		text []string
	}{
		{tool: "spin", p: spinner, text: []string{"wasm.probe: spin:", "timed out after 1.5s", "limits.timeout_ms", "discarded"}},
		{tool: "hog", text: []string{"wasm.probe: hog:", "plugin crashed", "memory limit 24 MiB"}},
		{tool: "exit", text: []string{"wasm.probe: exit:", "plugin crashed", "exited with code 3"}},
		{tool: "panic", text: []string{"tool panic panicked: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			pl := p
			if tt.p != nil {
				pl = tt.p
			}
			wantFailure(t, call(t, pl, tt.tool, `{}`), tt.text...)
			// The plugin keeps working with a fresh instance.
			wantText(t, call(t, pl, "echo", `{"data":"after `+tt.tool+`"}`), "after "+tt.tool)
		})
	}
}

func TestGrants(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret.txt"), "outside")
	mustWrite(t, filepath.Join(ws, "in", "note.txt"), "inside")
	mustWrite(t, filepath.Join(ws, "elsewhere.txt"), "not granted")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "in", "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "in", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	resolver := mapResolver{"api.test": "127.0.0.1", "other.test": "127.0.0.1"}
	grants := manifest.Grants{
		AllowedHosts: []string{"api.test"},
		FSRead:       []string{filepath.Join(ws, "in")},
		FSWrite:      []string{filepath.Join(ws, "out")},
		Secrets:      []string{"API_TOKEN"},
		Config:       map[string]any{"units": "metric"},
	}
	secret := func(name string) (string, bool) {
		if name == "API_TOKEN" {
			return "s3cr3t", true
		}
		return "", false
	}
	open, _ := probe(t, New(Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: resolver, Secret: secret}), manifest.Limits{}, grants, ws)
	closed, _ := probe(t, New(Options{Resolver: resolver, Secret: secret}), manifest.Limits{}, grants, ws)
	operatorGrants := grants
	operatorGrants.AllowPrivate = []string{"127.0.0.1"}
	granted, _ := probe(t, New(Options{Resolver: resolver, Secret: secret}), manifest.Limits{}, operatorGrants, ws)
	none, logs := probe(t, New(Options{Secret: secret}), manifest.Limits{}, manifest.Grants{}, ws)
	url := func(host string) string { return fmt.Sprintf("http://%s:%d/", host, port) }
	tests := []struct {
		name string
		p    *plugin
		tool string
		args string
		ok   string   // wanted output text
		fail []string // or wanted error parts
	}{
		{name: "http allowed", p: open, tool: "http", args: `{"url":"` + url("api.test") + `"}`, ok: "200 hello from api.test"},
		{name: "http private address granted by the operator", p: granted, tool: "http", args: `{"url":"` + url("api.test") + `"}`, ok: "200 hello from api.test"},
		{name: "http allow_private never widens allowed_hosts", p: granted, tool: "http", args: `{"url":"` + url("other.test") + `"}`, fail: []string{"host not allowed"}},
		{name: "http host not allowed", p: open, tool: "http", args: `{"url":"` + url("other.test") + `"}`, fail: []string{"host not allowed", "allowed_hosts (api.test)"}},
		{name: "http private address", p: closed, tool: "http", args: `{"url":"` + url("api.test") + `"}`, fail: []string{"address refused", "loopback"}},
		{name: "http literal loopback", p: closed, tool: "http", args: `{"url":"http://127.0.0.1:` + fmt.Sprint(port) + `/"}`, fail: []string{"refused"}},
		{name: "http not granted", p: none, tool: "http", args: `{"url":"` + url("api.test") + `"}`, fail: []string{"wasm.probe: http:", "no hosts allowed", "allowed_hosts (none)"}},
		{name: "read granted", p: open, tool: "read", args: `{"path":"in/note.txt"}`, ok: "inside"},
		{name: "read absolute granted", p: open, tool: "read", args: `{"path":"` + filepath.Join(ws, "in", "note.txt") + `"}`, ok: "inside"},
		{name: "read outside roots", p: open, tool: "read", args: `{"path":"elsewhere.txt"}`, fail: []string{"outside the directories plugin probe was granted"}},
		{name: "read dotdot", p: open, tool: "read", args: `{"path":"in/../../` + filepath.Base(outside) + `/secret.txt"}`, fail: []string{"outside the directories"}},
		{name: "read absolute outside", p: open, tool: "read", args: `{"path":"` + filepath.Join(outside, "secret.txt") + `"}`, fail: []string{"outside the directories"}},
		{name: "read via file symlink", p: open, tool: "read", args: `{"path":"in/link.txt"}`, fail: []string{"leads outside its granted directory"}},
		{name: "read via dir symlink", p: open, tool: "read", args: `{"path":"in/dirlink/secret.txt"}`, fail: []string{"leads outside its granted directory"}},
		{name: "read not granted", p: none, tool: "read", args: `{"path":"in/note.txt"}`, fail: []string{"no fs_read grant"}},
		{name: "write granted", p: open, tool: "write", args: `{"path":"out/sub/new.txt","data":"made"}`, ok: "written"},
		{name: "write in read-only root", p: open, tool: "write", args: `{"path":"in/new.txt","data":"x"}`, fail: []string{"outside the directories", "fs_write"}},
		{name: "list granted", p: open, tool: "list", args: `{"path":"in"}`, ok: `"name":"note.txt"`},
		{name: "secret granted", p: open, tool: "secret", args: `{"name":"API_TOKEN"}`, ok: "secret length 6"},
		{name: "secret not granted", p: open, tool: "secret", args: `{"name":"OTHER"}`, fail: []string{`secret "OTHER" is not granted to plugin probe`}},
		{name: "secret without grants", p: none, tool: "secret", args: `{"name":"API_TOKEN"}`, fail: []string{"wasm.probe: secret:", "not granted"}},
		{name: "config granted", p: open, tool: "config", args: `{"name":"units"}`, ok: `"metric"`},
		{name: "config not granted", p: open, tool: "config", args: `{"name":"other"}`, fail: []string{`host refused: config key "other" is not granted`}},
		{name: "config requested, not set", p: open, tool: "config", args: `{"name":"optional"}`, fail: []string{`not set by the operator: config key "optional"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tt.p, tt.tool, tt.args)
			if tt.fail != nil {
				wantFailure(t, res, tt.fail...)
				return
			}
			wantText(t, res, tt.ok)
		})
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out", "sub", "new.txt")); err != nil || string(b) != "made" {
		t.Fatalf("written file = %q, %v", b, err)
	}
	if strings.Contains(logs.String(), "s3cr3t") {
		t.Fatal("a secret reached the log")
	}
}

func TestSecretsOnlyDuringACall(t *testing.T) {
	p, _ := probe(t, New(Options{Secret: func(string) (string, bool) { return "v", true }}), manifest.Limits{}, manifest.Grants{Secrets: []string{"S"}}, "")
	st := &callState{p: p, inst: &instance{}}
	if _, err := st.secretGet(context.Background(), []byte("S")); err == nil || !strings.Contains(err.Error(), "only while a tool call runs") {
		t.Fatalf("secret outside a call: %v", err)
	}
	st.inCall = true
	if v, err := st.secretGet(context.Background(), []byte("S")); err != nil || v != "v" {
		t.Fatalf("secret during a call = %v, %v", v, err)
	}
	st.abandon()
	if _, err := st.secretGet(context.Background(), []byte("S")); err == nil {
		t.Fatal("secret handed to an abandoned call")
	}
}

func TestGuestOutputIsRelogged(t *testing.T) {
	p, logs := probe(t, New(Options{}), manifest.Limits{}, manifest.Grants{}, "")
	wantText(t, call(t, p, "print", `{"data":"hi"}`), "printed")
	out := logs.String()
	for _, want := range []string{
		`"attribution":"wasm.probe","stream":"stdout","message":"to stdout: hi"`,
		`"attribution":"wasm.probe","stream":"stderr","message":"to stderr: hi"`,
		`"attribution":"wasm.probe","tool":"print","message":"via log: hi"`,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("logs lack %s:\n%s", want, out)
		}
	}
}

func TestDeadlineEnforcementOff(t *testing.T) {
	off := manifest.Limits{TimeoutMS: 10, EnforceDeadline: ptrBool(false)}
	t.Run("trusted publisher", func(t *testing.T) {
		l, _ := mustLoad(t, New(Options{}), fixture{name: "busy", wasm: watPlugin(t, "busy"), limits: off, sig: manifest.SignedTrusted})
		p := l.(*plugin)
		if p.enforce {
			t.Fatal("enforcement stayed on for a trusted publisher")
		}
		wantFailure(t, call(t, p, "run", `{}`), "wasm.busy: run:", "timed out after 10ms", "quarantined")
		// The quarantined instance holds its slot until the guest returns,
		// then is closed, never reused.
		waitIdle(t, p)
		if idle, _ := p.pool.Stats(); idle != 0 {
			t.Fatalf("%d idle instances: the quarantined one was kept", idle)
		}
		if err := p.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("guest calling the host", func(t *testing.T) {
		// Without enforcement a guest is stopped at its next host call
		// once its caller has given up; this one would run forever.
		l, _ := mustLoad(t, New(Options{}), fixture{name: "logloop", wasm: watPlugin(t, "logloop"), limits: off, sig: manifest.SignedTrusted})
		p := l.(*plugin)
		wantFailure(t, call(t, p, "run", `{}`), "wasm.logloop: run:", "timed out", "quarantined")
		waitIdle(t, p)
	})
	t.Run("unsigned", func(t *testing.T) {
		l, _ := mustLoad(t, New(Options{}), fixture{name: "busy", wasm: watPlugin(t, "busy"), limits: off, sig: manifest.SignedUntrusted})
		p := l.(*plugin)
		if !p.enforce {
			t.Fatal("enforcement turned off for an untrusted plugin")
		}
		wantFailure(t, call(t, p, "run", `{}`), "timed out after 10ms", "discarded")
	})
}

// waitIdle waits for every instance in use to be released.
func waitIdle(t *testing.T, p *plugin) {
	t.Helper()
	for {
		if _, inUse := p.pool.Stats(); inUse == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPoolConcurrentCalls(t *testing.T) {
	const max = 3
	p, _ := probe(t, New(Options{MaxCalls: 7}), manifest.Limits{MaxInstances: max}, manifest.Grants{}, "")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				want := fmt.Sprintf("g%d-%d", g, i)
				res, err := find(t, p, "echo").Execute(context.Background(), []byte(`{"data":"`+want+`"}`))
				if err != nil || !res.Success || !strings.Contains(res.Output.Text, want) {
					errs <- fmt.Errorf("call %s: %+v, %v", want, res, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	idle, inUse := p.pool.Stats()
	if inUse != 0 || idle > max {
		t.Fatalf("idle %d, in use %d, max %d", idle, inUse, max)
	}
	// 96 calls + describe, recycled every 7 calls: more than 97/7 instances.
	if c := p.pool.Created(); c < 97/7 {
		t.Fatalf("created %d instances: instances were not recycled", c)
	}
}

func TestClose(t *testing.T) {
	p, _ := probe(t, New(Options{}), manifest.Limits{}, manifest.Grants{}, "")
	wantText(t, call(t, p, "echo", `{}`), "{")
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, call(t, p, "echo", `{}`), "wasm.probe: echo:", "plugin closed")
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mapResolver resolves the names it holds to fixed addresses.
type mapResolver map[string]string

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := m[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

func TestRecycling(t *testing.T) {
	t.Run("after max calls", func(t *testing.T) {
		l, _ := mustLoad(t, New(Options{MaxCalls: 2}), fixture{name: "wat-echo", wasm: pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")})
		p := l.(*plugin)
		for range 5 {
			wantText(t, call(t, p, "echo_args", `{}`), `"name":"echo_args"`)
		}
		// calls 1-2 on the first instance (describe's), 3-4 on a second,
		// 5 on a third.
		if c := p.pool.Created(); c != 3 {
			t.Fatalf("created %d instances, want 3", c)
		}
	})
	t.Run("after memory growth", func(t *testing.T) {
		l, _ := mustLoad(t, New(Options{}), fixture{name: "grower", wasm: watPlugin(t, "grower")})
		p := l.(*plugin)
		for range 2 {
			wantText(t, call(t, p, "run", `{}`), "grown")
		}
		if idle, _ := p.pool.Stats(); idle != 0 || p.pool.Created() != 2 {
			t.Fatalf("idle %d, created %d: a grown instance was kept", idle, p.pool.Created())
		}
	})
}

// TestCallerCancellation: the caller's cancellation stops a guest that
// never returns, is an error rather than a result, and costs the instance.
func TestCallerCancellation(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "loop", wasm: watPlugin(t, "loop")})
	p := l.(*plugin)
	ctx, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(50*time.Millisecond, cancel) // the loop never ends, so this always lands inside it
	defer stop.Stop()
	_, err := find(t, p, "run").Execute(ctx, []byte(`{}`))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "wasm.loop: run:") {
		t.Fatalf("err = %v", err)
	}
	if idle, inUse := p.pool.Stats(); idle != 0 || inUse != 0 {
		t.Fatalf("idle %d, in use %d: the cancelled instance was kept", idle, inUse)
	}
}

// TestAssemblyScriptAbort: a module importing AssemblyScript's env.abort
// loads, and an abort is a failed result carrying its message and place.
func TestAssemblyScriptAbort(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "abort", wasm: watPlugin(t, "abort")})
	wantFailure(t, call(t, l, "explode", `{}`), "wasm.abort: explode: talon_call: plugin crashed: abort: boom at index.ts:3:5")
}

// TestStartSection: a start section runs when each instance is created.
func TestStartSection(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "start", wasm: watPlugin(t, "start")})
	wantText(t, call(t, l, "started", `{}`), "the start function ran")
}
