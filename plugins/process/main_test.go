package process

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// envHost makes the test binary an orphan-test host: it loads the plugin
// described by the variable's JSON, starts it with one call, prints the
// plugin's pid and waits to be killed.
const envHost = "TALON_PROCESS_TEST_HOST"

func TestMain(m *testing.M) {
	// The sandbox re-executes this test binary as its helper.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if spec := os.Getenv(envHost); spec != "" {
		os.Exit(orphanHost(spec))
	}
	code := m.Run()
	pluginbuild.Cleanup()
	if code == 0 {
		// The spawning thread's goroutine lives as long as the process.
		if err := goleak.Find(goleak.IgnoreTopFunction("github.com/talonhq/talon/plugins/process.spawner")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

type hostSpec struct {
	Binary        string `json:"binary"`
	Workspace     string `json:"workspace"`
	NoParentDeath bool   `json:"no_parent_death"`
}

func orphanHost(spec string) int {
	var s hostSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	p, err := pluginFor(s.Binary, "orphan", manifest.Limits{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	l, err := Host{NoParentDeath: s.NoParentDeath}.Load(ctx, p, plugins.Env{Workspace: s.Workspace})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r, err := find(l, "pid").Execute(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("PID", r.Output.Text)
	time.Sleep(time.Hour)
	return 0
}

func pluginFor(bin, name string, lim manifest.Limits) (*manifest.Plugin, error) {
	sum, err := manifest.HashFile(bin)
	if err != nil {
		return nil, err
	}
	return &manifest.Plugin{
		Manifest: manifest.Manifest{
			Name: name, Version: "1.0.0", ABIVersion: manifest.ProtocolVersion, Kind: manifest.KindProcess,
			Entry: filepath.Base(bin), SHA256: sum, Limits: lim,
		},
		Dir: filepath.Dir(bin), EntryPath: bin, Hash: manifest.HashBytes([]byte(name + sum)),
	}, nil
}

// misbehave builds the fixture plugin.
func misbehave(t testing.TB) string {
	t.Helper()
	return pluginbuild.Binary(t, filepath.Join("testdata", "misbehave"))
}

// logBuf collects output written from several goroutines.
type logBuf = syncbuf.Buffer

// fixture is one loaded plugin under test.
type fixture struct {
	loaded plugins.Loaded
	inst   *instance
	logs   *logBuf
	ws     string
}

func load(t testing.TB, h Host, p *manifest.Plugin, dataDir string) (*fixture, error) {
	t.Helper()
	logs := &logBuf{}
	ws := t.TempDir()
	l, err := h.Load(context.Background(), p, plugins.Env{
		Workspace: ws, DataDir: dataDir,
		Logger: zerolog.New(logs).With().Str("attribution", "process."+p.Manifest.Name).Logger(),
	})
	if err != nil {
		return &fixture{logs: logs}, err
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return &fixture{loaded: l, inst: l.(*instance), logs: logs, ws: ws}, nil
}

func mustLoad(t testing.TB, name string, lim manifest.Limits) *fixture {
	t.Helper()
	p, err := pluginFor(misbehave(t), name, lim)
	if err != nil {
		t.Fatal(err)
	}
	f, err := load(t, Host{KillGrace: 300 * time.Millisecond}, p, "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func find(l plugins.Loaded, name string) tool.Tool {
	for _, t := range l.Tools() {
		if t.Spec().Name == name {
			return t
		}
	}
	panic("no tool " + name)
}

// pidOf returns the running process's pid, or 0.
func (f *fixture) pid() int {
	f.inst.mu.Lock()
	defer f.inst.mu.Unlock()
	if f.inst.cur == nil {
		return 0
	}
	n, _ := strconv.Atoi(f.inst.cur.pid())
	return n
}

func (f *fixture) starts() int {
	f.inst.mu.Lock()
	defer f.inst.mu.Unlock()
	return f.inst.starts
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// eventually waits for cond, failing after a generous bound. It asserts
// that something happens, never how fast.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
