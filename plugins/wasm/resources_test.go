package wasm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
)

// TestDescribeDeadline: talon_describe runs under the short describe
// deadline, not the plugin's own timeout, so a module that never answers
// fails its load (and so its install) quickly, with an error that says so,
// and leaves nothing in the describe cache.
func TestDescribeDeadline(t *testing.T) {
	data := t.TempDir()
	h := New(Options{DescribeTimeout: 200 * time.Millisecond})
	_, _, err := load(t, h, fixture{name: "loopdescribe", wasm: watPlugin(t, "loopdescribe"), dataDir: data,
		limits: manifest.Limits{TimeoutMS: 600000}})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want %v", err, ErrTimeout)
	}
	for _, want := range []string{"wasm.loopdescribe:", "talon_describe", "200ms", "describe its tools"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(data, "cache", "wasm-describe", "*")); len(files) != 0 {
		t.Errorf("a failed describe was cached: %v", files)
	}
	if d := New(Options{}).opts.DescribeTimeout; d != DefaultDescribeTimeout || DefaultDescribeTimeout != 5*time.Second {
		t.Errorf("default describe deadline %s", d)
	}
}

// TestDescribeCache: the first load describes the module and caches the
// answer under <data dir>/cache/wasm-describe; later loads read the cache
// and run no guest code at all (no instance is made), however slow the
// module is to describe itself. The first call then starts an instance.
func TestDescribeCache(t *testing.T) {
	tests := []struct {
		name string
		wasm func(t *testing.T) string
	}{
		{name: "slowdescribe", wasm: func(t *testing.T) string { return watPlugin(t, "slowdescribe") }},
		{name: "wat-echo", wasm: func(t *testing.T) string { return pluginbuild.WAT(t, "../examples/wat-echo/echo.wat") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			f := fixture{name: tt.name, wasm: tt.wasm(t), dataDir: data, hash: strings.Repeat("ab", 32)}
			h := New(Options{})
			first, _ := mustLoad(t, h, f)
			if c := first.(*plugin).pool.Created(); c != 1 {
				t.Fatalf("the first load made %d instances, want 1 (to describe)", c)
			}
			files, _ := filepath.Glob(filepath.Join(data, "cache", "wasm-describe", "*.json"))
			if len(files) != 1 {
				t.Fatalf("describe cache files %v", files)
			}
			for _, h := range []*Host{h, New(Options{})} { // this host, and a fresh one (a later talon start)
				l, _ := mustLoad(t, h, f)
				p := l.(*plugin)
				if c := p.pool.Created(); c != 0 {
					t.Fatalf("a load with a warm describe cache made %d instances: guest code ran", c)
				}
				if got, want := toolNames(p), toolNames(first.(*plugin)); got != want {
					t.Fatalf("cached tools %s, described %s", got, want)
				}
				res := call(t, p, p.tools[0].Spec().Name, `{}`)
				if !res.Success {
					t.Fatalf("call after a cached describe: %s", res.Error)
				}
				if c := p.pool.Created(); c != 1 {
					t.Fatalf("the call made %d instances, want 1", c)
				}
			}
			// Another manifest (a new version, other limits) describes again.
			g := f
			g.hash = strings.Repeat("cd", 32)
			l, _ := mustLoad(t, h, g)
			if c := l.(*plugin).pool.Created(); c != 1 {
				t.Fatalf("a changed manifest was not described again (%d instances)", c)
			}
		})
	}
}

// TestDescribeCacheDamaged: a cache file that does not decode is ignored
// with a warning and replaced by a fresh description.
func TestDescribeCacheDamaged(t *testing.T) {
	data := t.TempDir()
	f := fixture{name: "wat-echo", wasm: pluginbuild.WAT(t, "../examples/wat-echo/echo.wat"), dataDir: data}
	mustLoad(t, New(Options{}), f)
	files, _ := filepath.Glob(filepath.Join(data, "cache", "wasm-describe", "*.json"))
	if len(files) != 1 {
		t.Fatalf("describe cache files %v", files)
	}
	for _, bad := range []string{"not json", `{"tools":[{"name":"bad name!"}]}`} {
		if err := os.WriteFile(files[0], []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		l, logs := mustLoad(t, New(Options{}), f)
		if c := l.(*plugin).pool.Created(); c != 1 {
			t.Fatalf("a damaged cache was used (%d instances)", c)
		}
		if !strings.Contains(logs.String(), "ignoring an unreadable describe cache") {
			t.Errorf("no warning about the damaged cache:\n%s", logs)
		}
		if b, _ := os.ReadFile(files[0]); string(b) == bad {
			t.Errorf("the damaged cache was not replaced")
		}
	}
}

func toolNames(p *plugin) string {
	var names []string
	for _, t := range p.tools {
		names = append(names, t.Spec().Name+":"+t.Spec().Description)
	}
	return strings.Join(names, ",")
}

// rss returns the process's resident set size from /proc/self/status, or
// under the race detector (whose shadow memory is never returned) the
// memory the Go runtime holds and has not released to the system.
func rss(t *testing.T) int64 {
	t.Helper()
	if raceEnabled {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmRSS in /proc/self/status")
	return 0
}

// settledRSS is the resident set size once the heap has been collected
// and handed back, the level a test compares with.
func settledRSS(t *testing.T) int64 {
	t.Helper()
	debug.FreeOSMemory()
	return rss(t)
}

// waitFor waits until cond holds after a signal on ch; the minute is a
// guard against a hang, not a timing assertion.
func waitFor(t *testing.T, ch <-chan struct{}, what string, cond func() bool) {
	t.Helper()
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for !cond() {
		select {
		case <-ch:
		case <-guard.C:
			t.Fatalf("still waiting for %s after a minute", what)
		}
	}
}

// TestIdleInstancesGiveMemoryBack: instances left idle in the pool are
// closed after the idle timeout and their memory is handed back to the
// operating system, so talon's RSS returns to within twice its level
// before the plugin was loaded.
func TestIdleInstancesGiveMemoryBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads VmRSS from /proc/self/status")
	}
	reaped := make(chan int, 64)
	h := New(Options{IdleTimeout: 100 * time.Millisecond})
	h.onReap = func(left int) { reaped <- left }
	before := settledRSS(t)
	l, _ := mustLoad(t, h, fixture{name: "toucher", wasm: watPlugin(t, "toucher"), dataDir: t.TempDir(),
		limits: manifest.Limits{MaxMemoryMB: 64}})
	p := l.(*plugin)
	// Four instances at once, each of which writes 26 MiB: under the growth
	// that gets an instance replaced, so all four go back to the pool.
	var insts []*instance
	for range 4 {
		inst, err := p.pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
	}
	for _, inst := range insts {
		st := &callState{p: p, inst: inst, tool: "run", inCall: true}
		res, err := p.invoke(context.Background(), st, []byte(`{"name":"run","arguments":{}}`))
		if err != nil || !res.Success {
			t.Fatalf("call: %+v, %v", res, err)
		}
		if inst.grown() {
			t.Fatal("the instance counts as grown; it would not go back to the pool")
		}
	}
	peak := rss(t)
	for _, inst := range insts {
		p.finish(context.Background(), inst, nil)
	}
	if peak < before+80<<20 {
		t.Fatalf("RSS went from %d MiB only to %d MiB: the instances did not take their memory", before>>20, peak>>20)
	}
	// The pass of the reaper that leaves no instance idle has reclaimed
	// their memory by the time it reports.
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for left := -1; left != 0; {
		select {
		case left = <-reaped:
		case <-guard.C:
			t.Fatal("the idle instances were not closed within a minute")
		}
	}
	if idle, inUse := p.pool.Stats(); idle != 0 || inUse != 0 {
		t.Fatalf("idle %d, in use %d after the pool idled", idle, inUse)
	}
	after := rss(t)
	t.Logf("RSS before load %d MiB, with 4 idle instances %d MiB, after they idled out %d MiB", before>>20, peak>>20, after>>20)
	if after > 2*before {
		t.Fatalf("RSS is %d MiB after the pool idled, more than twice the %d MiB before the plugin loaded", after>>20, before>>20)
	}
	// The plugin still works: a call starts a fresh instance.
	wantText(t, call(t, p, "run", `{}`), "grown")
}

// TestGreedyCallsGiveMemoryBack: calls that take all the memory they may
// and hold it until their deadline (the instance is then discarded) leave
// talon's RSS within twice its level before the plugin was loaded, once
// the discarded instances' memory is handed back.
func TestGreedyCallsGiveMemoryBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads VmRSS from /proc/self/status")
	}
	reclaimed := make(chan struct{}, 64)
	h := New(Options{})
	h.reclaimer.delay = 10 * time.Millisecond
	h.reclaimer.notify = func() { reclaimed <- struct{}{} }
	before := settledRSS(t)
	l, _ := mustLoad(t, h, fixture{name: "hog", wasm: watPlugin(t, "hog"), dataDir: t.TempDir(),
		limits: manifest.Limits{MaxMemoryMB: 32, TimeoutMS: 300}})
	p := l.(*plugin)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var peak int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1 {
				res, err := find(t, p, "run").Execute(context.Background(), []byte(`{}`))
				if err != nil || res.Success || !strings.Contains(res.Error, "timed out") {
					t.Errorf("hog call: %+v, %v", res, err)
				}
				mu.Lock()
				peak = max(peak, rss(t))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	waitFor(t, reclaimed, "the discarded instances' memory to be handed back", h.reclaimer.settled)
	after := rss(t)
	t.Logf("RSS before load %d MiB, peak seen %d MiB, after %d MiB", before>>20, peak>>20, after>>20)
	if after > 2*before {
		t.Fatalf("RSS is %d MiB after the greedy calls, more than twice the %d MiB before the plugin loaded", after>>20, before>>20)
	}
}

// TestDescribeKey: install (grants from the manifest alone) and a later
// load (grants resolved against the operator's entry) must find the same
// cache entry when neither has config values; config values, the module
// and plugin.toml each change the key.
func TestDescribeKey(t *testing.T) {
	base := func() *manifest.Plugin {
		return &manifest.Plugin{Manifest: manifest.Manifest{Name: "p"}, Hash: "h"}
	}
	key := func(mod string, edit func(p *manifest.Plugin)) string {
		p := base()
		edit(p)
		return describeKey(p, mod)
	}
	same := key("m", func(p *manifest.Plugin) {})
	if got := key("m", func(p *manifest.Plugin) { p.Grants.Config = map[string]any{} }); got != same {
		t.Error("an empty config map changed the key")
	}
	for name, edit := range map[string]func(p *manifest.Plugin){
		"config":   func(p *manifest.Plugin) { p.Grants.Config = map[string]any{"units": "metric"} },
		"manifest": func(p *manifest.Plugin) { p.Hash = "other" },
		"name":     func(p *manifest.Plugin) { p.Manifest.Name = "q" },
	} {
		if key("m", edit) == same {
			t.Errorf("a different %s kept the key", name)
		}
	}
	if key("other module", func(p *manifest.Plugin) {}) == same {
		t.Error("a different module kept the key")
	}
}
