package mcpbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Settings, from the environment:
//
//	MCPBENCH_ROUNDS       rounds of every contender at every concurrency (default 3)
//	MCPBENCH_DURATION     measured time of one run (default 1s), after a tenth
//	                      of it as warm-up
//	MCPBENCH_CONTENDERS   the servers to run, comma-separated (default all:
//	                      talon, mcpgo, gosdk, talon-noreceipts)
//	MCPBENCH_CONCURRENCY  the concurrencies to run, comma-separated (default
//	                      1,8,64 over HTTP and 1,8 over stdio)
func settings() (rounds int, d time.Duration) {
	rounds, d = 3, time.Second
	if v, err := strconv.Atoi(os.Getenv("MCPBENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := time.ParseDuration(os.Getenv("MCPBENCH_DURATION")); err == nil && v > 0 {
		d = v
	}
	return rounds, d
}

// protocolVersion is the newest revision all three servers negotiate
// through initialize.
const protocolVersion = "2025-11-25"

// callBody is the tools/call every server answers; %d is the request id.
const callBody = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`

// contenders, in the order of the first round.
var contenders = []string{"talon", "mcpgo", "gosdk", "talon-noreceipts"}

// peersOf are the servers talon is compared with, by ratio rows.
var peersOf = []string{"mcpgo", "gosdk"}

// BenchmarkMCP drives each server with tools/call of its echo tool and
// reports, per transport, concurrency and server: calls/s, cpu-ns/call of
// the server process, each the median over the rounds
// with its -min and -max, peak-rss-bytes (VmHWM) and the resident set at
// the end, anonymous and mapped from files (end-rss-anon-bytes,
// end-rss-file-bytes); and per transport and concurrency, the ratio
// sub-benchmark: talon (and talon-noreceipts) against each peer, and
// talon against talon-noreceipts, round by round (talon/mcpgo is talon's
// calls/s over mcp-go's, cpu-talon/mcpgo its CPU per call over mcp-go's,
// rss-talon/mcpgo its peak RSS over mcp-go's). talon runs with durable
// receipts (the default); talon-noreceipts with [receipts] enabled =
// false.
func BenchmarkMCP(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc for the servers' CPU time and memory")
	}
	bins := buildAll(b)
	contenders := contenders
	if v := os.Getenv("MCPBENCH_CONTENDERS"); v != "" {
		contenders = strings.Split(v, ",")
	}
	for _, tr := range []struct {
		name  string
		conc  []int
		start func(b *testing.B, bins binaries, who string) server
	}{
		{"http", []int{1, 8, 64}, startHTTP},
		{"stdio", []int{1, 8}, startStdio},
	} {
		if v := os.Getenv("MCPBENCH_CONCURRENCY"); v != "" {
			tr.conc = nil
			for _, f := range strings.Split(v, ",") {
				if n, err := strconv.Atoi(f); err == nil && n > 0 {
					tr.conc = append(tr.conc, n)
				}
			}
		}
		b.Run(tr.name, func(b *testing.B) {
			rounds, d := settings()
			servers := map[string]server{}
			for _, who := range contenders {
				servers[who] = tr.start(b, bins, who)
			}
			res := map[string][]sample{} // "c=8/talon" -> one sample per round
			for r := range rounds {
				order := append(slices.Clone(contenders[r%len(contenders):]), contenders[:r%len(contenders)]...)
				for _, c := range tr.conc {
					for _, who := range order {
						s, err := measure(servers[who], c, d)
						if err != nil {
							b.Fatalf("%s %s c=%d: %v", tr.name, who, c, err)
						}
						k := fmt.Sprintf("c=%d/%s", c, who)
						res[k] = append(res[k], s)
					}
				}
			}
			rss, anon, file := map[string]float64{}, map[string]float64{}, map[string]float64{}
			for who, s := range servers {
				rss[who] = statusKB(s.pid(), "VmHWM:")
				anon[who], file[who] = statusKB(s.pid(), "RssAnon:"), statusKB(s.pid(), "RssFile:")
			}
			for _, c := range tr.conc {
				for _, who := range contenders {
					ss := res[fmt.Sprintf("c=%d/%s", c, who)]
					b.Run(fmt.Sprintf("c=%d/%s", c, who), func(b *testing.B) {
						calls := spread(ss, func(s sample) float64 { return s.callsPerSec })
						b.ReportMetric(1e9/calls.med, "ns/op")
						calls.report(b, "calls/s")
						spread(ss, func(s sample) float64 { return s.cpuPerCall }).report(b, "cpu-ns/call")
						spread(ss, func(s sample) float64 { return s.refused }).report(b, "refused/call")
						b.ReportMetric(rss[who], "peak-rss-bytes")
						b.ReportMetric(anon[who], "end-rss-anon-bytes")
						b.ReportMetric(file[who], "end-rss-file-bytes")
					})
				}
				b.Run(fmt.Sprintf("c=%d/ratio", c), func(b *testing.B) {
					b.ReportMetric(0, "ns/op")
					pairs := [][2]string{{"talon", "talon-noreceipts"}}
					for _, peer := range peersOf {
						pairs = append(pairs, [2]string{"talon", peer}, [2]string{"talon-noreceipts", peer})
					}
					for _, p := range pairs {
						mine, base := res[fmt.Sprintf("c=%d/%s", c, p[0])], res[fmt.Sprintf("c=%d/%s", c, p[1])]
						if len(mine) == 0 || len(base) == 0 {
							continue
						}
						name := p[0] + "/" + p[1]
						ratios(mine, base, func(s sample) float64 { return s.callsPerSec }).report(b, name)
						ratios(mine, base, func(s sample) float64 { return s.cpuPerCall }).report(b, "cpu-"+name)
						if rss[p[1]] > 0 {
							b.ReportMetric(rss[p[0]]/rss[p[1]], "rss-"+name)
						}
					}
				})
			}
		})
	}
}

// sample is one measured run.
type sample struct {
	callsPerSec float64
	cpuPerCall  float64 // server CPU, ns per call
	refused     float64 // share of calls answered busy
}

// summary is a median and its range.
type summary struct{ med, min, max float64 }

func (s summary) report(b *testing.B, unit string) {
	b.ReportMetric(s.med, unit)
	b.ReportMetric(s.min, unit+"-min")
	b.ReportMetric(s.max, unit+"-max")
}

func spread(ss []sample, f func(sample) float64) summary {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return summarize(v)
}

// ratios compares two contenders round by round.
func ratios(mine, base []sample, f func(sample) float64) summary {
	var v []float64
	for i := range min(len(mine), len(base)) {
		if d := f(base[i]); d > 0 {
			v = append(v, f(mine[i])/d)
		}
	}
	return summarize(v)
}

func summarize(v []float64) summary {
	if len(v) == 0 {
		return summary{}
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return summary{med: med, min: v[0], max: v[len(v)-1]}
}

// measure runs c callers against s for a tenth of d as warm-up, then d.
func measure(s server, c int, d time.Duration) (sample, error) {
	callers, err := s.callers(c)
	if err != nil {
		return sample{}, err
	}
	defer func() {
		for _, cl := range callers {
			cl.close()
		}
	}()
	var (
		counting      atomic.Bool
		stop          atomic.Bool
		calls, busy   atomic.Int64
		wg            sync.WaitGroup
		firstErr      error
		errOnce       sync.Once
		cpu0, cpu1    time.Duration
		start, finish time.Time
	)
	for _, cl := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				refused, err := cl.call()
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				if counting.Load() {
					calls.Add(1)
					if refused {
						busy.Add(1)
					}
				}
			}
		}()
	}
	time.Sleep(d / 10)
	cpu0, start = cpuTime(s.pid()), time.Now()
	counting.Store(true)
	time.Sleep(d)
	counting.Store(false)
	cpu1, finish = cpuTime(s.pid()), time.Now()
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return sample{}, firstErr
	}
	n := calls.Load()
	if n == 0 {
		return sample{}, errors.New("no call finished")
	}
	return sample{
		callsPerSec: float64(n) / finish.Sub(start).Seconds(),
		cpuPerCall:  float64(cpu1-cpu0) / float64(n),
		refused:     float64(busy.Load()) / float64(n),
	}, nil
}

// server is one running contender.
type server interface {
	pid() int
	// callers opens c independent callers: HTTP sessions, or one stdio
	// session shared by c goroutines.
	callers(c int) ([]caller, error)
}

type caller interface {
	// call makes one tools/call; refused is a busy answer (-32000).
	call() (refused bool, err error)
	close()
}

// binaries are the programs of the contenders.
type binaries struct {
	talon, mcpgo, gosdk string
	dir                 string
}

var (
	buildOnce sync.Once
	built     binaries
	buildErr  error
)

// buildAll compiles talon from the repository root (with the test-only
// echo tool) and the two peers from this module.
func buildAll(b *testing.B) binaries {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpbench")
		if err != nil {
			buildErr = err
			return
		}
		built = binaries{dir: dir, talon: filepath.Join(dir, "talon"), mcpgo: filepath.Join(dir, "mcpgo"), gosdk: filepath.Join(dir, "gosdk")}
		root, err := filepath.Abs("../..")
		if err != nil {
			buildErr = err
			return
		}
		steps := []struct{ dir, out, pkg string }{
			{root, built.talon, "./cmd/talon"},
			{".", built.mcpgo, "./peers/mcpgo"},
			{".", built.gosdk, "./peers/gosdk"},
		}
		for _, s := range steps {
			args := []string{"build", "-o", s.out}
			if s.dir == root {
				args = append(args, "-tags", "talon_testtools")
			}
			cmd := exec.Command("go", append(args, s.pkg)...)
			cmd.Dir = s.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", s.pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// command starts who's server: talon in a fresh data directory with the
// echo tool selected, or a peer.
func command(b *testing.B, bins binaries, who string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	switch who {
	case "mcpgo":
		cmd = exec.Command(bins.mcpgo, args...)
	case "gosdk":
		cmd = exec.Command(bins.gosdk, args...)
	default:
		dir := b.TempDir()
		ws := filepath.Join(dir, "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			b.Fatal(err)
		}
		cfg := "[tools]\noptional = [\"echo\"]\n"
		if who == "talon-noreceipts" {
			cfg += "[receipts]\nenabled = false\n"
		}
		if err := os.WriteFile(filepath.Join(ws, "talon.toml"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		if args[0] == "-stdio" {
			args = []string{"--stdio"}
		} else {
			args = []string{"--listen", "127.0.0.1:0"}
		}
		cmd = exec.Command(bins.talon, append([]string{"serve"}, args...)...)
		cmd.Dir = ws
		cmd.Env = []string{
			"HOME=" + filepath.Join(dir, "home"),
			"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
			"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
			"PATH=" + os.Getenv("PATH"),
		}
	}
	return cmd
}

// proc is a started server process; stop ends it however the benchmark
// ends.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func startProc(b *testing.B, cmd *exec.Cmd) *proc {
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

var urlLine = regexp.MustCompile(`url:\s+(http://\S+)`)

type httpServer struct {
	*proc
	url    string
	client *http.Client
}

func startHTTP(b *testing.B, bins binaries, who string) server {
	cmd := command(b, bins, who, "-listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	p := startProc(b, cmd)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}
		b.Cleanup(tr.CloseIdleConnections)
		return &httpServer{proc: p, url: u, client: &http.Client{Transport: tr}}
	case <-p.exited:
		b.Fatalf("%s exited before it listened", who)
	case <-time.After(30 * time.Second):
		b.Fatalf("%s printed no url", who)
	}
	return nil
}

func (s *httpServer) callers(c int) ([]caller, error) {
	out := make([]caller, 0, c)
	for range c {
		h := &httpCaller{s: s}
		if err := h.initialize(); err != nil {
			for _, o := range out {
				o.close()
			}
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// httpCaller is one streamable HTTP session.
type httpCaller struct {
	s       *httpServer
	session string
	id      int
}

func (h *httpCaller) post(body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, h.s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	return h.s.client.Do(req)
}

func (h *httpCaller) initialize() error {
	resp, err := h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"v0"}}}`)
	if err != nil {
		return err
	}
	h.session = resp.Header.Get("Mcp-Session-Id")
	if _, err := readAnswer(resp, "0"); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	resp, err = h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notifications/initialized: %s", resp.Status)
	}
	return nil
}

func (h *httpCaller) call() (bool, error) {
	h.id++
	resp, err := h.post(fmt.Sprintf(callBody, h.id))
	if err != nil {
		return false, err
	}
	a, err := readAnswer(resp, strconv.Itoa(h.id))
	if err != nil {
		return false, err
	}
	return a.check()
}

func (h *httpCaller) close() {
	if h.session == "" {
		return
	}
	req, err := http.NewRequest(http.MethodDelete, h.s.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", h.session)
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	if resp, err := h.s.client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// answer is a JSON-RPC response.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// check accepts an echo of the arguments and a busy refusal.
func (a *answer) check() (refused bool, err error) {
	switch {
	case a.Error != nil && a.Error.Code == -32000:
		return true, nil
	case a.Error != nil:
		return false, fmt.Errorf("error %d: %s", a.Error.Code, a.Error.Message)
	case a.Result == nil:
		return false, errors.New("neither result nor error")
	case a.Result.IsError || len(a.Result.Content) == 0 || !strings.Contains(a.Result.Content[0].Text, "hello"):
		return false, fmt.Errorf("unexpected result %+v", *a.Result)
	}
	return false, nil
}

// readAnswer reads the response to request id from a JSON body or an
// event stream.
func readAnswer(resp *http.Response, id string) (*answer, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var a answer
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			return nil, err
		}
		return &a, nil
	}
	br := bufio.NewReader(resp.Body)
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			var a answer
			if json.Unmarshal(data, &a) == nil && string(a.ID) == id {
				_, _ = io.Copy(io.Discard, br)
				return &a, nil
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimSpace(line[5:])...)
		}
		if err != nil {
			return nil, fmt.Errorf("event stream ended without the answer to %s: %w", id, err)
		}
	}
}

// stdioServer is one stdio session, shared by its callers.
type stdioServer struct {
	*proc
	wmu     sync.Mutex
	in      io.WriteCloser
	mu      sync.Mutex
	waiting map[string]chan *answer
	nextID  atomic.Int64
	dead    chan struct{}
	readErr error
}

func startStdio(b *testing.B, bins binaries, who string) server {
	cmd := command(b, bins, who, "-stdio")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	s := &stdioServer{in: in, waiting: map[string]chan *answer{}, dead: make(chan struct{})}
	s.proc = startProc(b, cmd)
	b.Cleanup(func() { _ = in.Close() })
	go s.readLoop(out)
	init := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"v0"}}}`
	if _, err := s.roundTrip(`"init"`, init); err != nil {
		b.Fatalf("%s: initialize: %v", who, err)
	}
	if err := s.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		b.Fatal(err)
	}
	return s
}

func (s *stdioServer) readLoop(out io.Reader) {
	defer close(s.dead)
	br := bufio.NewReaderSize(out, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var a answer
			if json.Unmarshal(line, &a) == nil && a.ID != nil {
				s.mu.Lock()
				ch := s.waiting[string(a.ID)]
				delete(s.waiting, string(a.ID))
				s.mu.Unlock()
				if ch != nil {
					ch <- &a
				}
			}
		}
		if err != nil {
			s.readErr = err
			return
		}
	}
}

func (s *stdioServer) write(line string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := io.WriteString(s.in, line+"\n")
	return err
}

func (s *stdioServer) roundTrip(id, line string) (*answer, error) {
	ch := make(chan *answer, 1)
	s.mu.Lock()
	s.waiting[id] = ch
	s.mu.Unlock()
	if err := s.write(line); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		return a, nil
	case <-s.dead:
		return nil, fmt.Errorf("server closed its output: %v", s.readErr)
	}
}

func (s *stdioServer) callers(c int) ([]caller, error) {
	out := make([]caller, c)
	for i := range out {
		out[i] = stdioCaller{s}
	}
	return out, nil
}

type stdioCaller struct{ s *stdioServer }

func (c stdioCaller) call() (bool, error) {
	id := c.s.nextID.Add(1)
	a, err := c.s.roundTrip(strconv.FormatInt(id, 10), fmt.Sprintf(callBody, id))
	if err != nil {
		return false, err
	}
	return a.check()
}

func (stdioCaller) close() {}

// cpuTime is the user and system time of process pid and its threads.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	// Linux reports clock ticks of 1/100 s (USER_HZ) on every platform Go
	// supports.
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// statusKB reads a figure in kB of /proc/<pid>/status (VmHWM: the peak
// resident set; RssAnon and RssFile: what is resident now, anonymous and
// mapped from files such as the executable), in bytes.
func statusKB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}
