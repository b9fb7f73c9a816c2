package cron

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// recorder is a Caller that records calls and succeeds.
type recorder struct {
	mu    sync.Mutex
	calls []tool.Call
}

func (r *recorder) Call(_ context.Context, c tool.Call) (tool.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return tool.Text("ok"), nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func newStore(t *testing.T) *Store {
	t.Helper()
	s := NewStore(filepath.Join(t.TempDir(), FileName), StoreOptions{})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var t0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

func addJob(t *testing.T, s *Store, name, schedule string, created time.Time) {
	t.Helper()
	sc, err := ParseSchedule(schedule)
	if err != nil {
		t.Fatal(err)
	}
	j := Job{Name: name, Schedule: sc.String(), Tool: "t_low", Args: json.RawMessage(`{}`), AllowedTools: []string{"t_low"},
		Profile: "default", Created: created, Next: sc.First(created)}
	if err := s.Add(context.Background(), j); err != nil {
		t.Fatal(err)
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{name: "cron", in: "0 9 * * 1-5", want: "0 9 * * 1-5"},
		{name: "descriptor", in: "@daily", want: "@daily"},
		{name: "zone", in: "CRON_TZ=Asia/Tokyo 0 9 * * *", want: "CRON_TZ=Asia/Tokyo 0 9 * * *"},
		{name: "every", in: "every 5m", want: "every 5m0s"},
		{name: "at", in: "at 2026-12-01T18:00:00+09:00", want: "at 2026-12-01T09:00:00Z"},
		{name: "empty", in: " ", err: "empty"},
		{name: "six fields", in: "0 0 9 * * 1", err: "five fields"},
		{name: "bad field", in: "61 * * * *", err: "five fields"},
		{name: "short interval", in: "every 10s", err: "from 1m0s"},
		{name: "bad duration", in: "every often", err: "not a duration"},
		{name: "bad time", in: "at tomorrow", err: "RFC 3339"},
		{name: "never", in: "0 0 30 2 *", err: "never fires"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSchedule(tt.in)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrInvalidSchedule) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSchedule(%q) = %v, want an error with %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || s.String() != tt.want {
				t.Fatalf("ParseSchedule(%q) = %q, %v; want %q", tt.in, s, err, tt.want)
			}
		})
	}
}

func TestScheduleAfter(t *testing.T) {
	every, _ := ParseSchedule("every 5m")
	next, n := every.After(t0, t0.Add(12*time.Minute))
	if !next.Equal(t0.Add(15*time.Minute)) || n != 3 {
		t.Errorf("every 5m after 12m = %s, %d", next, n)
	}
	hourly, _ := ParseSchedule("0 * * * *")
	if got := hourly.First(t0); !got.Equal(t0.Add(30 * time.Minute)) {
		t.Errorf("hourly first = %s", got)
	}
	next, n = hourly.After(t0.Add(30*time.Minute), t0.Add(3*time.Hour))
	if !next.Equal(t0.Add(3*time.Hour+30*time.Minute)) || n != 3 {
		t.Errorf("hourly after 3h = %s, %d", next, n)
	}
	at, _ := ParseSchedule("at 2026-03-02T10:00:00Z")
	if !at.First(t0).IsZero() {
		t.Error("a past one-shot has a first time")
	}
}

func newScheduler(t *testing.T, s *Store, c *clock, caller *recorder) *Scheduler {
	t.Helper()
	sc := NewScheduler(SchedulerOptions{Store: s, Caller: caller, Now: c.Now, Logger: zerolog.Nop()})
	t.Cleanup(sc.Stop)
	return sc
}

// tick runs one pass at time at and waits for its runs.
func tick(sc *Scheduler, c *clock, at time.Time) {
	c.Set(at)
	sc.Tick(context.Background())
	sc.Wait()
}

func runsOf(t *testing.T, s *Store, job string) []Run {
	t.Helper()
	rs, err := s.Runs(context.Background(), []string{job}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestSchedulerFiresOnTime(t *testing.T) {
	s := newStore(t)
	c := &clock{now: t0}
	caller := &recorder{}
	sc := newScheduler(t, s, c, caller)
	addJob(t, s, "hourly", "0 * * * *", t0)

	tick(sc, c, t0.Add(29*time.Minute)) // 10:59
	if caller.count() != 0 {
		t.Fatal("ran before its time")
	}
	tick(sc, c, t0.Add(30*time.Minute+2*time.Second)) // 11:00:02
	tick(sc, c, t0.Add(30*time.Minute+3*time.Second))
	if caller.count() != 1 {
		t.Fatalf("calls at 11:00 = %d, want 1", caller.count())
	}
	tick(sc, c, t0.Add(90*time.Minute+time.Second)) // 12:00:01
	if caller.count() != 2 {
		t.Fatalf("calls at 12:00 = %d, want 2", caller.count())
	}
	got := caller.calls[0]
	if got.Channel != tool.ChannelCron || got.SessionID != "cron:hourly" || got.Profile != "default" ||
		len(got.CallerAllowlist) != 1 || got.CallerAllowlist[0] != "t_low" {
		t.Errorf("call = %+v", got)
	}
	j, err := s.Get(context.Background(), "hourly")
	if err != nil || !j.Next.Equal(t0.Add(150*time.Minute)) {
		t.Errorf("next = %s, %v; want 13:00", j.Next, err)
	}
	rs := runsOf(t, s, "hourly")
	if len(rs) != 2 || rs[0].Outcome != OutcomeSuccess || rs[0].Trigger != TriggerSchedule {
		t.Errorf("runs = %+v", rs)
	}
}

func TestSchedulerEveryAndAt(t *testing.T) {
	s := newStore(t)
	c := &clock{now: t0}
	caller := &recorder{}
	sc := newScheduler(t, s, c, caller)
	addJob(t, s, "often", "every 5m", t0)
	addJob(t, s, "once", "at 2026-03-02T10:40:00Z", t0)

	for m := 1; m <= 16; m++ {
		tick(sc, c, t0.Add(time.Duration(m)*time.Minute))
	}
	if n := len(runsOf(t, s, "often")); n != 3 { // 10:35, 10:40, 10:45
		t.Errorf("every 5m over 16m ran %d times, want 3", n)
	}
	if n := len(runsOf(t, s, "once")); n != 1 {
		t.Errorf("one-shot ran %d times, want 1", n)
	}
	j, _ := s.Get(context.Background(), "once")
	if !j.Next.IsZero() {
		t.Errorf("one-shot still has a next time %s", j.Next)
	}
}

func TestSchedulerSkipsMissedRuns(t *testing.T) {
	s := newStore(t)
	c := &clock{now: t0}
	caller := &recorder{}
	sc := newScheduler(t, s, c, caller)
	addJob(t, s, "often", "every 5m", t0)

	// The scheduler was not running for an hour.
	late := t0.Add(time.Hour + 2*time.Minute)
	tick(sc, c, late)
	if caller.count() != 0 {
		t.Fatalf("missed runs were replayed: %d calls", caller.count())
	}
	rs := runsOf(t, s, "often")
	if len(rs) != 1 || rs[0].Outcome != OutcomeSkipped || !strings.Contains(rs[0].Error, "missed 12") {
		t.Fatalf("runs = %+v, want one skipped record for 12 missed", rs)
	}
	j, _ := s.Get(context.Background(), "often")
	if !j.Next.Equal(t0.Add(65 * time.Minute)) {
		t.Errorf("next = %s, want 11:35", j.Next)
	}
	tick(sc, c, t0.Add(65*time.Minute))
	if caller.count() != 1 {
		t.Errorf("the next on-time run did not run")
	}
}

func TestSchedulerLoopStartStop(t *testing.T) {
	s := newStore(t)
	caller := &recorder{}
	now := time.Now().UTC()
	sc := NewScheduler(SchedulerOptions{Store: s, Caller: caller, Interval: 5 * time.Millisecond,
		Now: func() time.Time { return time.Now().Add(time.Minute) }})
	addJob(t, s, "soon", "every 1m", now)
	sc.Start()
	deadline := time.Now().Add(5 * time.Second)
	for caller.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	sc.Stop()
	sc.Stop()
	if caller.count() == 0 {
		t.Fatal("the running scheduler never ran the due job")
	}
}

func TestStorePersistsAndLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := NewStore(path, StoreOptions{})
	if s.exists() {
		t.Fatal("a new store touched the disk")
	}
	addJob(t, s, "keep", "every 1h", t0)
	if err := s.Add(context.Background(), Job{Name: "keep"}); !errors.Is(err, ErrJobExists) {
		t.Errorf("duplicate add = %v", err)
	}
	_ = s.Close()
	s2 := NewStore(path, StoreOptions{})
	defer func() { _ = s2.Close() }()
	jobs, err := s2.List(context.Background())
	if err != nil || len(jobs) != 1 || jobs[0].Name != "keep" || !jobs[0].Next.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after reopen: %+v, %v", jobs, err)
	}
	for i := 1; i < MaxJobs; i++ {
		addJob(t, s2, "j"+time.Duration(i).String(), "every 1h", t0)
	}
	if err := s2.Add(context.Background(), Job{Name: "one-too-many", Args: json.RawMessage(`{}`)}); !errors.Is(err, ErrTooManyJobs) {
		t.Errorf("add beyond the limit = %v", err)
	}
	if err := s2.Remove(context.Background(), "nope"); !errors.Is(err, ErrNoJob) {
		t.Errorf("remove missing = %v", err)
	}
}

// fake is a tool for a real runtime.
type fake struct {
	name string
	tier tool.Tier
	runs atomic.Int32
}

func (f *fake) Spec() tool.Spec {
	return tool.Spec{Name: f.name, Description: "fake", Tier: f.tier,
		Input:       json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`),
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: f.name}}
}

func (f *fake) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	f.runs.Add(1)
	return tool.Text(f.name + " ran"), nil
}

// yes approves everything: it stands for a queue or a terminal that would
// say yes, which a cron call must never reach.
type yes struct{ asked atomic.Int32 }

func (y *yes) Approve(context.Context, approval.Request) (approval.Answer, error) {
	y.asked.Add(1)
	return approval.Yes, nil
}

type env struct {
	rt       *runtime.Runtime
	store    *Store
	receipts string
	low, mid *fake
	other    *fake
	approver *yes
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	rs, err := receipts.Open(receipts.Options{Dir: filepath.Join(dir, "receipts")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close() })
	cfg, _, err := config.Parse("talon.toml", []byte(`
[tools]
optional = ["cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs"]
[risk_profiles.default]
level = "supervised"
[risk_profiles.full]
level = "full"
`))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{low: &fake{name: "t_low", tier: tool.Low}, mid: &fake{name: "t_mid", tier: tool.Medium},
		other: &fake{name: "t_other", tier: tool.Low}, approver: &yes{}}
	e.rt, err = runtime.New(runtime.Options{Config: cfg, Workspace: t.TempDir(), DataDir: filepath.Join(dir, "data"),
		Tools: []tool.Tool{e.low, e.mid, e.other}, Approver: Approver{Next: e.approver}, Receipts: rs, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	e.store = sharedStore(filepath.Join(dir, "data"))
	t.Cleanup(func() { _ = e.store.Close() })
	e.receipts = filepath.Join(dir, "receipts")
	return e
}

func (e *env) call(t *testing.T, name, args, profile, channel string) tool.Result {
	t.Helper()
	res, err := e.rt.Call(context.Background(), tool.Call{Name: name, Args: json.RawMessage(args), Profile: profile, Channel: channel, SessionID: "s1"})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

func TestJobsThroughRealRuntime(t *testing.T) {
	e := newEnv(t)
	c := &clock{now: t0}
	sc := NewScheduler(SchedulerOptions{Store: e.store, Caller: e.rt, Now: c.Now})
	t.Cleanup(sc.Stop)

	// cron_add is medium: under the full profile it runs.
	res := e.call(t, AddName, `{"name":"ping","schedule":"every 5m","tool":"t_low","args":{"n":1}}`, "full", tool.ChannelMCP)
	if !res.Success {
		t.Fatalf("cron_add: %s", res.Error)
	}
	// Under supervised, cron_add asks the host's approver (here: yes). The
	// job's own call needs approval, which a scheduled call cannot get.
	res = e.call(t, AddName, `{"name":"mid","schedule":"every 5m","tool":"t_mid"}`, "default", tool.ChannelCLI)
	if !res.Success || !strings.Contains(res.Output.Text, "needs approval") {
		t.Fatalf("cron_add mid: %+v", res)
	}
	// An MCP caller cannot name another profile.
	res = e.call(t, AddName, `{"name":"x","schedule":"every 5m","tool":"t_low","profile":"default"}`, "full", tool.ChannelMCP)
	if res.Success || !strings.Contains(res.Error, "your own profile") {
		t.Fatalf("cron_add with another profile over MCP: %+v", res)
	}
	// The job's tool must be in its allowed_tools, and must exist.
	res = e.call(t, AddName, `{"name":"x","schedule":"every 5m","tool":"t_low","allowed_tools":["t_other"]}`, "full", tool.ChannelMCP)
	if res.Success || !strings.Contains(res.Error, "not in its allowed_tools") {
		t.Fatalf("tool outside allowed_tools: %+v", res)
	}
	res = e.call(t, AddName, `{"name":"x","schedule":"every 5m","tool":"t_nope"}`, "full", tool.ChannelMCP)
	if res.Success || !strings.Contains(res.Error, "unknown tool") {
		t.Fatalf("unknown tool: %+v", res)
	}
	res = e.call(t, AddName, `{"name":"x","schedule":"every 5 minutes","tool":"t_low"}`, "full", tool.ChannelMCP)
	if res.Success || !strings.Contains(res.Error, "invalid schedule") {
		t.Fatalf("bad schedule: %+v", res)
	}
	// A job whose allowlist leaves its tool out (written by hand) is
	// denied by the runtime's intersection.
	if err := e.store.Add(context.Background(), Job{Name: "narrow", Schedule: "every 5m0s", Tool: "t_other",
		Args: json.RawMessage(`{}`), AllowedTools: []string{"t_low"}, Profile: "full", Created: time.Now().UTC(), Next: time.Now().UTC().Add(5 * time.Minute)}); err != nil {
		t.Fatal(err)
	}

	c.Set(time.Now().UTC().Add(5*time.Minute + time.Second))
	sc.Tick(context.Background())
	sc.Wait()

	byJob := map[string]Run{}
	rs, _ := e.store.Runs(context.Background(), nil, 100)
	for _, r := range rs {
		byJob[r.Job] = r
	}
	if r := byJob["ping"]; r.Outcome != OutcomeSuccess || r.ReceiptID == "" || e.low.runs.Load() != 1 {
		t.Errorf("ping run = %+v (t_low ran %d times)", r, e.low.runs.Load())
	}
	if r := byJob["mid"]; r.Outcome != OutcomeDenied || !strings.Contains(r.Error, "no person decided") || e.mid.runs.Load() != 0 {
		t.Errorf("mid run = %+v", r)
	}
	if r := byJob["narrow"]; r.Outcome != OutcomeDenied || e.other.runs.Load() != 0 {
		t.Errorf("narrow run = %+v", r)
	}
	if e.approver.asked.Load() != 1 { // only the CLI's cron_add under default was asked
		t.Errorf("the host approver was asked %d times", e.approver.asked.Load())
	}
	list, err := receipts.List(e.receipts, receipts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var cronReceipts int
	for _, r := range list {
		if r.Channel == tool.ChannelCron {
			cronReceipts++
			if r.Tool != "t_low" || r.Session != "cron:ping" || r.ID != byJob["ping"].ReceiptID {
				t.Errorf("receipt = %+v", r)
			}
		}
	}
	if cronReceipts != 1 {
		t.Errorf("%d cron receipts, want 1", cronReceipts)
	}

	// cron_run runs now through the same path; cron_runs shows it.
	res = e.call(t, RunName, `{"name":"ping"}`, "full", tool.ChannelMCP)
	if !res.Success || !strings.Contains(res.Output.Text, "success") || !strings.Contains(res.Output.Text, "receipt") {
		t.Fatalf("cron_run: %+v", res)
	}
	res = e.call(t, RunsName, `{"name":"ping"}`, "full", tool.ChannelMCP)
	if !res.Success || !strings.Contains(res.Output.Text, "manual success") || !strings.Contains(res.Output.Text, "schedule success") {
		t.Fatalf("cron_runs: %s", res.Output.Text)
	}

	// Another profile's jobs are invisible over MCP.
	res = e.call(t, ListName, `{}`, "default", tool.ChannelMCP)
	if !res.Success || strings.Contains(res.Output.Text, "ping") || !strings.Contains(res.Output.Text, "mid") {
		t.Fatalf("cron_list as default: %s", res.Output.Text)
	}
	res = e.call(t, RunName, `{"name":"ping"}`, "default", tool.ChannelMCP)
	if res.Success {
		t.Fatal("a default-profile caller ran a full-profile job")
	}
	res = e.call(t, RemoveName, `{"name":"ping"}`, "full", tool.ChannelMCP)
	if !res.Success {
		t.Fatalf("cron_remove: %s", res.Error)
	}
	res = e.call(t, ListName, `{}`, "full", tool.ChannelMCP)
	if strings.Contains(res.Output.Text, "ping") {
		t.Fatalf("removed job still listed: %s", res.Output.Text)
	}
}

func TestApproverRouting(t *testing.T) {
	y := &yes{}
	a := Approver{Next: y}
	if ans, err := a.Approve(context.Background(), approval.Request{Channel: tool.ChannelCron}); ans != approval.No || !errors.Is(err, approval.ErrNoApprover) {
		t.Errorf("cron = %v, %v", ans, err)
	}
	if ans, err := a.Approve(context.Background(), approval.Request{Channel: tool.ChannelMCP}); ans != approval.Yes || err != nil {
		t.Errorf("mcp = %v, %v", ans, err)
	}
	if ans, _ := (Approver{}).Approve(context.Background(), approval.Request{}); ans != approval.No {
		t.Error("no next approver said yes")
	}
}

func TestSchedulerCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(filepath.Join(dir, FileName), StoreOptions{})
	defer func() { _ = s.Close() }()
	sc := NewScheduler(SchedulerOptions{Store: s, Caller: &recorder{}})
	sc.Tick(context.Background())
	if s.exists() {
		t.Fatal("a scheduler with no jobs created the database")
	}
}
