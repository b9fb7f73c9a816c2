package process

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

func call(t testing.TB, f *fixture, name, args string) (tool.Result, error) {
	t.Helper()
	return find(f.loaded, name).Execute(context.Background(), json.RawMessage(args))
}

// TestCall checks a round trip and what the child is given: the granted
// config, the workspace as its directory, and only the environment the
// host sets (nothing of the host's own).
func TestCall(t *testing.T) {
	t.Setenv("TALON_HOST_CANARY", "secret")
	p, err := pluginFor(misbehave(t), "good", manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p.Grants.Config = map[string]any{"database": "x.db"}
	f, err := load(t, Host{}, p, "")
	if err != nil {
		t.Fatal(err)
	}
	spec := find(f.loaded, "echo").Spec()
	if spec.Attribution.String() != "process.good" || spec.Tier != tool.Low {
		t.Fatalf("spec = %+v", spec)
	}
	r, err := call(t, f, "echo", `{"a":1}`)
	if err != nil || !r.Success {
		t.Fatalf("echo = %+v, %v", r, err)
	}
	if r.Output.Text != `{"a":1}` {
		t.Errorf("text = %q", r.Output.Text)
	}
	data := r.Output.Data.(map[string]any)
	if cfg := data["config"].(map[string]any); cfg["database"] != "x.db" {
		t.Errorf("config = %v", cfg)
	}
	wsReal, _ := filepath.EvalSymlinks(f.ws)
	if cwd := data["cwd"].(string); cwd != f.ws && cwd != wsReal {
		t.Errorf("cwd = %s, want the workspace %s", cwd, f.ws)
	}
	var env []string
	for _, v := range data["env"].([]any) {
		env = append(env, v.(string))
	}
	for _, name := range []string{"TALON_HOST_CANARY", "HOME", "PLUGIN_UNIX_SOCKET_DIR"} {
		if slices.Contains(env, name) {
			t.Errorf("the plugin's environment has %s: %v", name, env)
		}
	}
	for _, name := range []string{"PATH", "TALON_PLUGIN_NAME", "TALON_WORKSPACE", "PLUGIN_CLIENT_CERT"} {
		if !slices.Contains(env, name) {
			t.Errorf("the plugin's environment lacks %s: %v", name, env)
		}
	}

	// A tool's failure names the plugin and the tool, as a WASM plugin's
	// does.
	r, err = call(t, f, "fail", `{}`)
	if err != nil || r.Success || !strings.HasPrefix(r.Error, "process.good: fail: ") || !strings.Contains(r.Error, "failed on purpose") {
		t.Errorf("fail = %+v, %v", r, err)
	}
	r, err = call(t, f, "panic", `{}`)
	if err != nil || r.Success || !strings.HasPrefix(r.Error, "process.good: panic: ") || !strings.Contains(r.Error, "panicked") {
		t.Errorf("panic = %+v, %v", r, err)
	}
	// The panic did not end the plugin.
	if r, err := call(t, f, "echo", `{}`); err != nil || !r.Success {
		t.Errorf("echo after panic = %+v, %v", r, err)
	}
	if f.starts() != 2 {
		t.Errorf("starts = %d, want 2 (one to describe at load, one for the calls)", f.starts())
	}
}

// TestLifecycle checks lazy start (a cached description loads without a
// process), idle stop, and a new start on the next call.
func TestLifecycle(t *testing.T) {
	data := t.TempDir()
	p, err := pluginFor(misbehave(t), "life", manifest.Limits{IdleTimeoutMS: 100})
	if err != nil {
		t.Fatal(err)
	}
	first, err := load(t, Host{}, p, data)
	if err != nil {
		t.Fatal(err)
	}
	if first.starts() != 1 || first.pid() != 0 {
		t.Fatalf("describing on a cache miss: starts = %d, running pid %d; want one start, stopped again", first.starts(), first.pid())
	}
	if _, err := os.Stat(filepath.Join(data, "cache", "process", p.Hash+".json")); err != nil {
		t.Fatalf("no description cache: %v", err)
	}
	f, err := load(t, Host{}, p, data)
	if err != nil {
		t.Fatal(err)
	}
	if f.starts() != 0 || f.pid() != 0 {
		t.Fatalf("load from the cache started the plugin: starts = %d", f.starts())
	}
	if len(f.loaded.Tools()) != len(first.loaded.Tools()) {
		t.Fatalf("cached tools %d, described %d", len(f.loaded.Tools()), len(first.loaded.Tools()))
	}
	r, err := call(t, f, "pid", `{}`)
	if err != nil || !r.Success {
		t.Fatalf("pid = %+v, %v", r, err)
	}
	pid1, _ := strconv.Atoi(r.Output.Text)
	if f.starts() != 1 || !alive(pid1) {
		t.Fatalf("first call: starts = %d, pid %d alive = %v", f.starts(), pid1, alive(pid1))
	}
	eventually(t, "the idle plugin stops", func() bool { return f.pid() == 0 && !alive(pid1) })
	r, err = call(t, f, "pid", `{}`)
	if err != nil || !r.Success {
		t.Fatalf("pid after idle stop = %+v, %v", r, err)
	}
	if pid2, _ := strconv.Atoi(r.Output.Text); pid2 == pid1 || f.starts() != 2 {
		t.Fatalf("after idle stop: pid %d (was %d), starts %d; want a new process", pid2, pid1, f.starts())
	}
}

// TestCrashRestart checks that a crash fails only the call it ran, and
// the next call starts the plugin again.
func TestCrashRestart(t *testing.T) {
	f := mustLoad(t, "crashy", manifest.Limits{})
	r, err := call(t, f, "pid", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	pid1, _ := strconv.Atoi(r.Output.Text)
	_, err = call(t, f, "crash", `{}`)
	if !errors.Is(err, ErrCrashed) || !strings.Contains(err.Error(), `plugin "crashy" (process.crashy)`) {
		t.Fatalf("crash: %v, want %v naming the plugin", err, ErrCrashed)
	}
	eventually(t, "the crash is logged with the plugin's attribution", func() bool {
		return strings.Contains(f.logs.String(), "crashing on purpose") && strings.Contains(f.logs.String(), `"attribution":"process.crashy"`)
	})
	r, err = call(t, f, "pid", `{}`)
	if err != nil || !r.Success {
		t.Fatalf("call after the crash = %+v, %v", r, err)
	}
	if pid2, _ := strconv.Atoi(r.Output.Text); pid2 == pid1 {
		t.Fatal("the crashed process still answers")
	}
}

// TestDeadline checks a tool that ignores both its deadline and Cancel:
// the call fails at the deadline, the process is killed after the grace
// period, and the plugin works again afterwards.
func TestDeadline(t *testing.T) {
	f := mustLoad(t, "hangs", manifest.Limits{TimeoutMS: 300})
	r, err := call(t, f, "pid", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	pid1, _ := strconv.Atoi(r.Output.Text)
	_, err = call(t, f, "hang", `{}`)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "timeout_ms") {
		t.Fatalf("hang: %v, want %v", err, ErrTimeout)
	}
	eventually(t, "the process that ignored Cancel is killed", func() bool { return !alive(pid1) })
	if !strings.Contains(f.logs.String(), "did not stop after Cancel") {
		t.Errorf("the kill is not logged:\n%s", f.logs.String())
	}
	r, err = call(t, f, "pid", `{}`)
	if err != nil || !r.Success || r.Output.Text == strconv.Itoa(pid1) {
		t.Fatalf("after the kill: %+v, %v", r, err)
	}
}

// TestCancel checks a caller's cancellation: the call returns the
// context's error, and a tool that honours Cancel is not killed.
func TestCancel(t *testing.T) {
	f := mustLoad(t, "polite", manifest.Limits{})
	r, err := call(t, f, "pid", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := find(f.loaded, "wait").Execute(ctx, json.RawMessage(`{"ms":600000}`))
		done <- err
	}()
	eventually(t, "the call is in flight", func() bool {
		f.inst.mu.Lock()
		defer f.inst.mu.Unlock()
		return f.inst.busy == 1
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v, want context.Canceled", err)
	}
	eventually(t, "the cancelled call ends", func() bool {
		f.inst.mu.Lock()
		defer f.inst.mu.Unlock()
		return f.inst.busy == 0
	})
	r2, err := call(t, f, "pid", `{}`)
	if err != nil || r2.Output.Text != r.Output.Text {
		t.Fatalf("a plugin that honoured Cancel was restarted: pid %s then %s (%v)", r.Output.Text, r2.Output.Text, err)
	}
}

// TestBadPlugins runs each kind of misbehaving plugin and checks the
// error it gets, while a good plugin loaded beside them keeps working.
func TestBadPlugins(t *testing.T) {
	good := mustLoad(t, "bystander", manifest.Limits{})
	bin := misbehave(t)

	// A binary that records that it ran, to prove a bad hash refuses it
	// before it runs.
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "tampered")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		plugin string
		limits manifest.Limits
		bin    string
		sha    string
		want   error
		says   string
	}{
		{name: "hash mismatch", plugin: "tampered", bin: script, sha: strings.Repeat("ab", 32), want: ErrHashMismatch, says: "talon plugins verify"},
		{name: "stdout before handshake", plugin: "noisy", want: ErrStart, says: "hello from main before the handshake"},
		{name: "no handshake", plugin: "silent", limits: manifest.Limits{StartTimeoutMS: 500}, want: ErrStart, says: "start_timeout_ms"},
		{name: "exits at start", plugin: "exit", want: ErrStart, says: "exited before the handshake; run it by hand to see its error, or read talon's log (its last words on stderr: \"misbehave: cannot start: no configuration\")"},
		{name: "unknown protocol version", plugin: "v99", want: ErrStart, says: "protocol version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bin
			if tt.bin != "" {
				b = tt.bin
			}
			p, err := pluginFor(b, tt.plugin, tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			if tt.sha != "" {
				p.Manifest.SHA256 = tt.sha
			}
			_, err = load(t, Host{}, p, "")
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), `"`+tt.plugin+`"`) {
				t.Fatalf("load: %v\nwant %v naming the plugin and saying %q", err, tt.want, tt.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the binary with the wrong hash ran")
			}
			if r, err := call(t, good, "echo", `{}`); err != nil || !r.Success {
				t.Fatalf("the good plugin stopped working: %+v, %v", r, err)
			}
		})
	}

	callTests := []struct {
		name   string
		plugin string
		limits manifest.Limits
		tool   string
		args   string
		want   error
	}{
		{name: "malformed result", plugin: "malformed", tool: "bad", want: ErrMalformed},
		{name: "oversized result", plugin: "big", limits: manifest.Limits{MaxOutputBytes: 4096}, tool: "big", args: `{"bytes":10000}`, want: ErrOversized},
		{name: "result over the transport limit", plugin: "huge", limits: manifest.Limits{MaxOutputBytes: 4096}, tool: "big", args: `{"bytes":500000}`, want: ErrOversized},
	}
	for _, tt := range callTests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustLoad(t, tt.plugin, tt.limits)
			_, err := call(t, f, tt.tool, tt.args)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "process."+tt.plugin) {
				t.Fatalf("call: %v, want %v naming the plugin", err, tt.want)
			}
			if r, err := call(t, good, "echo", `{}`); err != nil || !r.Success {
				t.Fatalf("the good plugin stopped working: %+v, %v", r, err)
			}
		})
	}
}

// TestStderrFlood checks that a plugin writing far more to stderr than
// the log takes still completes its call, and that the host re-logs a
// bounded number of lines, cut to the line limit, with attribution.
func TestStderrFlood(t *testing.T) {
	f := mustLoad(t, "loud", manifest.Limits{})
	r, err := call(t, f, "flood", `{}`)
	if err != nil || r.Output.Text != "flooded" {
		t.Fatalf("flood = %+v, %v", r, err)
	}
	_ = f.loaded.Close(context.Background())
	logs := f.logs.String()
	lines := strings.Count(logs, `"stream":"stderr"`)
	if lines == 0 || lines > 5000 {
		t.Fatalf("re-logged %d stderr lines of 20001; want some, and far fewer", lines)
	}
	if !strings.Contains(logs, "dropped_lines") || !strings.Contains(logs, `"attribution":"process.loud"`) {
		t.Errorf("the drop is not reported with attribution")
	}
	for _, l := range strings.Split(logs, "\n") {
		if len(l) > maxLogLine+1024 {
			t.Fatalf("a re-logged line is %d bytes long", len(l))
		}
	}
}

// TestConcurrency runs more calls at once than max_instances allows and
// checks the plugin never sees more than the limit. Run with -race.
func TestConcurrency(t *testing.T) {
	f := mustLoad(t, "busy", manifest.Limits{MaxInstances: 2})
	before := f.starts()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	peaks := make(chan int, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := call(t, f, "wait", `{"ms":50}`)
			if err != nil || !r.Success {
				errs <- errors.Join(err, errors.New(r.Error))
				return
			}
			n, _ := strconv.Atoi(r.Output.Text)
			peaks <- n
		}()
	}
	wg.Wait()
	close(errs)
	close(peaks)
	for err := range errs {
		t.Error(err)
	}
	for n := range peaks {
		if n < 1 || n > 2 {
			t.Fatalf("the plugin ran %d calls at once; max_instances is 2", n)
		}
	}
	if n := f.starts() - before; n != 1 {
		t.Errorf("concurrent first calls started the plugin %d times", n)
	}
}

// TestClose checks that Close stops the process and later calls fail.
func TestClose(t *testing.T) {
	f := mustLoad(t, "closing", manifest.Limits{})
	if _, err := call(t, f, "pid", `{}`); err != nil {
		t.Fatal(err)
	}
	pid := f.pid()
	if err := f.loaded.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the closed plugin's process exits", func() bool { return !alive(pid) })
	if _, err := call(t, f, "pid", `{}`); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: %v, want %v", err, ErrClosed)
	}
}

// TestProtocolVersionInManifest checks that a manifest for another
// protocol version is refused before anything starts.
func TestProtocolVersionInManifest(t *testing.T) {
	p, err := pluginFor(misbehave(t), "future", manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p.Manifest.ABIVersion = 2
	if _, err := load(t, Host{}, p, ""); err == nil || !strings.Contains(err.Error(), "protocol version 2") {
		t.Fatalf("load: %v", err)
	}
}

// TestOrphans kills a host process with SIGKILL and checks that its
// plugin does not survive it: through the parent-death signal, and
// through the SDK's watchdog alone.
func TestOrphans(t *testing.T) {
	bin := misbehave(t)
	for _, tt := range []struct {
		name          string
		noParentDeath bool
	}{{"parent-death signal", false}, {"sdk watchdog", true}} {
		t.Run(tt.name, func(t *testing.T) {
			spec, _ := json.Marshal(hostSpec{Binary: bin, Workspace: t.TempDir(), NoParentDeath: tt.noParentDeath})
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir() // the killed host leaves its private copy here
			pid, kill := startHost(t, self, string(spec), tmp)
			if !alive(pid) {
				t.Fatalf("plugin %d is not running", pid)
			}
			kill()
			eventually(t, "the plugin of a killed host exits", func() bool { return !alive(pid) })
			left, _ := filepath.Glob(filepath.Join(tmp, copyPrefix+"*"))
			if len(left) != 1 {
				t.Fatalf("private copies left by the killed host: %v", left)
			}
			t.Setenv("TMPDIR", tmp)
			sweepStale()
			if left, _ := filepath.Glob(filepath.Join(tmp, copyPrefix+"*")); len(left) != 0 {
				t.Fatalf("the sweep left the dead host's copy: %v", left)
			}
		})
	}
}
