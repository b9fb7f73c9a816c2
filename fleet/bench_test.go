package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/fleet/fleettest"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/telemetry"
	"github.com/talonhq/talon/tool"
)

// Benchmarks run against a cluster of their own that flushes its WAL at
// every commit, as a production database does.

// benchHelperEnv makes the test binary a shipper process of
// BenchmarkShip: it ships the data directory named by benchDirEnv to
// benchURLEnv until killed.
const (
	benchHelperEnv = "TALON_FLEET_BENCH_HELPER"
	benchDirEnv    = "TALON_FLEET_BENCH_DIR"
	benchURLEnv    = "TALON_FLEET_BENCH_URL"
)

func init() {
	if os.Getenv(benchHelperEnv) != "ship" {
		return
	}
	f, err := New(Options{URL: os.Getenv(benchURLEnv), DataDir: os.Getenv(benchDirEnv), Poll: 10 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Start()
	select {}
}

func durableCluster(b *testing.B) *fleettest.Cluster {
	b.Helper()
	c, err := fleettest.Start(fleettest.Options{Durable: true})
	if err != nil {
		b.Skipf("no PostgreSQL: %v", err)
	}
	b.Cleanup(func() { _ = c.Stop() })
	return c
}

func benchDB(b *testing.B, c *fleettest.Cluster) (*DB, string) {
	b.Helper()
	ctx := context.Background()
	url, err := c.CreateDatabase(ctx)
	if err != nil {
		b.Fatal(err)
	}
	db, err := Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(db.Close)
	if _, err := db.Migrate(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	return db, url
}

// corpus makes a receipt store of n records once, for copies.
func corpus(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "receipts")
	s, err := receipts.Open(receipts.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := g; i < n; i += 16 {
				args, _ := json.Marshal(map[string]any{"command": "go test ./...", "n": i})
				if _, err := s.Issue(context.Background(), receipts.Entry{Tool: "shell", Attribution: "builtin.shell", Channel: "mcp",
					Profile: "default", Session: "bench-session", Tier: receipts.TierMedium, AllowedBy: receipts.AllowedAuto,
					Args: args, Result: "ok\n", Duration: time.Millisecond}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

func copyTree(b *testing.B, from, to string) {
	b.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
}

// BenchmarkShip measures shipping throughput: four processes (this test
// binary re-executed), each a host with a receipt log of perProc records
// already written, ship to one database at once; the figure is records
// in the database per second of wall time, from the processes' start to
// the last record committed.
func BenchmarkShip(b *testing.B) {
	const procs, perProc = 4, 25000
	c := durableCluster(b)
	src := corpus(b, perProc)
	var rates []float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		db, url := benchDB(b, c)
		var dirs []string
		for range procs {
			d := b.TempDir()
			copyTree(b, src, filepath.Join(d, "receipts"))
			dirs = append(dirs, d)
		}
		b.StartTimer()
		start := time.Now()
		var cmds []*exec.Cmd
		for _, d := range dirs {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), benchHelperEnv+"=ship", benchDirEnv+"="+d, benchURLEnv+"="+url)
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for {
			var n int64
			if err := db.pool.QueryRow(context.Background(), `SELECT coalesce(sum(shipped_seq), 0) FROM talon.chains`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			if n == procs*perProc {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		for _, cmd := range cmds {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		rates = append(rates, float64(procs*perProc)/elapsed.Seconds())
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(rates)
	b.ReportMetric(rates[len(rates)/2], "receipts/s")
}

// BenchmarkShipLag measures how long a receipt takes to reach the
// database while four hosts issue 10,000 receipts per second between them
// (2,500 each, 32 callers per host): for every record, the time from its
// issue to the commit that shipped it. p50 and p99 in milliseconds.
func BenchmarkShipLag(b *testing.B) {
	const hosts, perSecond, callers = 4, 10000, 32
	const run = 3 * time.Second
	c := durableCluster(b)
	var lags []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for range b.N {
		_, url := benchDB(b, c)
		var stores []*receipts.Store
		var fleets []*Fleet
		for range hosts {
			d := b.TempDir()
			s, err := receipts.Open(receipts.Options{Dir: filepath.Join(d, "receipts")})
			if err != nil {
				b.Fatal(err)
			}
			f, err := New(Options{URL: url, DataDir: d})
			if err != nil {
				b.Fatal(err)
			}
			f.ShipStore(s)
			f.ship.onShipped = func(recs []*receipts.Receipt) {
				now := time.Now()
				mu.Lock()
				for _, r := range recs {
					lags = append(lags, now.Sub(r.Time))
				}
				mu.Unlock()
			}
			f.Start()
			stores, fleets = append(stores, s), append(fleets, f)
		}
		var wg sync.WaitGroup
		every := time.Second * hosts * callers / perSecond
		deadline := time.Now().Add(run)
		issued := make([]int, len(stores))
		var imu sync.Mutex
		for i, s := range stores {
			for range callers {
				wg.Go(func() {
					tick := time.NewTicker(every)
					defer tick.Stop()
					for time.Now().Before(deadline) {
						<-tick.C
						// The record's time is taken as it is issued.
						if _, err := s.Issue(context.Background(), receipts.Entry{Tool: "shell", Attribution: "builtin.shell",
							Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Args: json.RawMessage(`{"command":"ls"}`), Result: "ok"}); err != nil {
							b.Error(err)
							return
						}
						imu.Lock()
						issued[i]++
						imu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		for i, f := range fleets {
			for f.Stats().Shipped < uint64(issued[i]) {
				time.Sleep(5 * time.Millisecond)
			}
			_ = f.Close()
		}
		for _, s := range stores {
			_ = s.Close()
		}
	}
	b.StopTimer()
	slices.Sort(lags)
	if len(lags) == 0 {
		b.Fatal("nothing shipped")
	}
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(lags))/float64(b.N)/run.Seconds(), "receipts/s")
}

// nop is a tool that does nothing, low tier.
type nop struct{}

func (nop) Spec() tool.Spec {
	return tool.Spec{Name: "nop", Description: "does nothing", Input: json.RawMessage(`{"type":"object"}`), Tier: tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "nop"}}
}

func (nop) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("done"), nil
}

func benchRuntime(b *testing.B, store *receipts.Store, obs runtime.Observer) *runtime.Runtime {
	b.Helper()
	none := []string{}
	cfg := &config.Config{}
	cfg.Tools.Optional = &none
	var rec runtime.Recorder
	if store != nil {
		rec = store
	}
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: b.TempDir(), DataDir: b.TempDir(), Tools: []tool.Tool{nop{}},
		Receipts: rec, Logger: zerolog.Nop(), Observer: obs})
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

// BenchmarkCallOverhead compares a call through the runtime, durable
// receipts on, with the fleet and telemetry on (the receipts shipped to
// PostgreSQL, a span and metrics per call exported over OTLP to a
// receiver in this process) against the same call with both off, the two
// taking turns in one loop, with one caller (an agent's calls one after
// the other) and with 8 at once. cpu-on/off is the ratio of
// this process's CPU time per call, the "on" turn counting its background
// work too (it ends once its spans are exported and its receipts are in
// the database); on/off is the ratio of wall time. The database runs on
// this machine, but its own CPU is not talon's and is not counted, and it
// does not flush its WAL here: on one machine its disk flushes would stand
// in the way of the receipts' own, which a database elsewhere does not.
// The
// fleet-only and telemetry-only pairs split the cost, and the noreceipts
// pair shows what telemetry costs a call that writes no receipt.
func BenchmarkCallOverhead(b *testing.B) {
	c, err := fleettest.Start(fleettest.Options{})
	if err != nil {
		b.Skipf("no PostgreSQL: %v", err)
	}
	b.Cleanup(func() { _ = c.Stop() })
	_, url := benchDB(b, c)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer sink.Close()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sink.URL)
	tel, err := telemetry.New(context.Background(), telemetry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(context.Background())

	open := func() (*receipts.Store, string) {
		d := b.TempDir()
		s, err := receipts.Open(receipts.Options{Dir: filepath.Join(d, "receipts")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s, d
	}
	type side struct {
		rt    *runtime.Runtime
		fleet *Fleet // nil: nothing shipped
		tel   bool
		calls uint64
	}
	plain := func(receiptsOn, telOn bool) *side {
		var obs runtime.Observer
		if telOn {
			obs = tel.Observer()
		}
		if !receiptsOn {
			return &side{rt: benchRuntime(b, nil, obs), tel: telOn}
		}
		s, _ := open()
		return &side{rt: benchRuntime(b, s, obs), tel: telOn}
	}
	shipped := func(telOn bool) *side {
		s, d := open()
		f, err := New(Options{URL: url, DataDir: d})
		if err != nil {
			b.Fatal(err)
		}
		f.ShipStore(s)
		f.Start()
		b.Cleanup(func() { _ = f.Close() })
		var obs runtime.Observer
		if telOn {
			obs = tel.Observer()
		}
		return &side{rt: benchRuntime(b, s, obs), fleet: f, tel: telOn}
	}
	pairs := []struct {
		name    string
		off, on *side
	}{
		{"receipts", plain(true, false), shipped(true)},
		{"receipts/fleet-only", plain(true, false), shipped(false)},
		{"receipts/telemetry-only", plain(true, false), plain(true, true)},
		{"noreceipts", plain(false, false), plain(false, true)},
	}
	const round = 256
	for _, p := range pairs {
		for _, callers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/c=%d", p.name, callers), func(b *testing.B) {
				// run makes one round of calls and waits for what they
				// left to do in the background.
				run := func(sd *side) (wall, cpu time.Duration) {
					c0, start := cpuTime(), time.Now()
					var wg sync.WaitGroup
					for range callers {
						wg.Go(func() {
							for range round / callers {
								if res, err := sd.rt.Call(context.Background(), tool.Call{Name: "nop"}); err != nil || !res.Success {
									b.Errorf("call: %+v %v", res, err)
									return
								}
							}
						})
					}
					wg.Wait()
					wall = time.Since(start)
					sd.calls += round
					if sd.tel {
						_ = tel.Flush(context.Background())
					}
					for sd.fleet != nil && sd.fleet.Stats().Shipped < sd.calls {
						time.Sleep(time.Millisecond)
					}
					return wall, cpuTime() - c0
				}
				var offWall, onWall, offCPU, onCPU time.Duration
				b.ResetTimer()
				for i := range b.N {
					order := []*side{p.off, p.on}
					if i%2 == 1 {
						order = []*side{p.on, p.off}
					}
					for _, sd := range order {
						w, c := run(sd)
						if sd == p.on {
							onWall, onCPU = onWall+w, onCPU+c
						} else {
							offWall, offCPU = offWall+w, offCPU+c
						}
					}
				}
				b.StopTimer()
				calls := float64(b.N * round)
				b.ReportMetric(float64(offWall.Nanoseconds())/calls, "off-ns/call")
				b.ReportMetric(float64(onWall.Nanoseconds())/calls, "on-ns/call")
				b.ReportMetric(float64(onWall)/float64(offWall), "on/off")
				b.ReportMetric(float64(offCPU.Nanoseconds())/calls, "off-cpu-ns/call")
				b.ReportMetric(float64(onCPU.Nanoseconds())/calls, "on-cpu-ns/call")
				b.ReportMetric(float64(onCPU)/float64(offCPU), "cpu-on/off")
			})
		}
	}
}

// BenchmarkApprovalRoundTrip measures an approval answered from another
// host: from the answer (talon approvals approve --fleet on the second
// host) to the waiting call on the first host getting it, through the
// database and LISTEN/NOTIFY.
func BenchmarkApprovalRoundTrip(b *testing.B) {
	c := durableCluster(b)
	db, url := benchDB(b, c)
	d := b.TempDir()
	q := approval.NewQueue(approval.QueueOptions{Timeout: time.Minute})
	f, err := New(Options{URL: url, DataDir: d})
	if err != nil {
		b.Fatal(err)
	}
	f.Attach(q, time.Minute)
	f.Start()
	defer f.Close()
	by := Approver{User: "bench", Host: "elsewhere"}
	req := approval.Request{Tool: "shell", Attribution: "builtin.shell", Tier: tool.High, Args: `{"command":"make deploy"}`,
		Plan: &tool.Plan{Summary: "make deploy"}}
	var times []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		got := make(chan time.Time, 1)
		go func() {
			_, _ = q.Approve(context.Background(), req)
			got <- time.Now()
		}()
		var id string
		for id == "" {
			list, err := db.Pending(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if len(list) == 1 {
				id = list[0].ID
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		b.StartTimer()
		start := time.Now()
		if _, err := db.Answer(context.Background(), id, approval.Yes, by, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		times = append(times, (<-got).Sub(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}
