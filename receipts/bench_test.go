package receipts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runCallers runs n operations spread over c goroutines and reports the
// rate as receipts/s.
func runCallers(b *testing.B, c int, op func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	b.ResetTimer()
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := op(int(i)); err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "receipts/s")
}

// BenchmarkDurable compares durable receipts per second through Store.Issue
// (group commit: one write and one fsync per batch) with a raw baseline in
// which every caller appends the same bytes to one file and fsyncs after
// each append, with the same numbers of concurrent callers. Both run on the
// disk behind os.TempDir.
//
// The procs=4 pairs spread the callers over four processes writing one
// store directory (this process and three re-executions of the test
// binary, 16 callers each): the store, where each process writes a chain
// of its own, against each process appending to a file of its own. Target:
// at least 10,000 receipts/s with 64 callers, in one process or in four.
func BenchmarkDurable(b *testing.B) {
	entries := make([]Entry, 256)
	for i := range entries {
		entries[i] = testEntry(i)
	}
	sample := func() []byte {
		s, err := Open(Options{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		r, err := s.Issue(context.Background(), entries[0])
		if err != nil {
			b.Fatal(err)
		}
		return append(r.Canonical(), '\n')
	}()
	for _, callers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("mode=store/callers=%d", callers), func(b *testing.B) {
			s, err := Open(Options{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			runCallers(b, callers, func(i int) error {
				_, err := s.Issue(ctx, entries[i%len(entries)])
				return err
			})
			b.ReportMetric(float64(s.syncs.Load())/float64(b.N), "fsyncs/receipt")
		})
		b.Run(fmt.Sprintf("mode=rawfsync/callers=%d", callers), func(b *testing.B) {
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "raw.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			runCallers(b, callers, func(int) error {
				if _, err := f.Write(sample); err != nil {
					return err
				}
				return f.Sync()
			})
			b.ReportMetric(1, "fsyncs/receipt")
		})
	}
	for _, mode := range []string{"store", "rawfsync"} {
		b.Run(fmt.Sprintf("mode=%s/procs=4/callers=16", mode), func(b *testing.B) {
			runProcs(b, mode, 4, 16, sample)
		})
	}
}

// Settings of a benchmark helper process.
const (
	benchCountEnv   = "TALON_RECEIPTS_BENCH_COUNT"
	benchCallersEnv = "TALON_RECEIPTS_BENCH_CALLERS"
	benchSampleEnv  = "TALON_RECEIPTS_BENCH_SAMPLE"
)

// runProcs runs b.N durable appends spread over procs processes of
// callers goroutines each, all on one directory: this process and
// procs-1 re-executions of the test binary. Starting the processes and
// opening the store are not timed; the clock runs from the moment every
// process has been told to go until the last one is done.
func runProcs(b *testing.B, mode string, procs, callers int, sample []byte) {
	dir := b.TempDir()
	share := b.N / procs
	type helper struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Scanner
	}
	var hs []helper
	for range procs - 1 {
		cmd := helperCmd("bench-"+mode, dir)
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", benchCountEnv, share), fmt.Sprintf("%s=%d", benchCallersEnv, callers),
			benchSampleEnv+"="+string(bytes.TrimSuffix(sample, []byte("\n"))))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		h := helper{cmd: cmd, in: in, out: bufio.NewScanner(out)}
		hs = append(hs, h)
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	}
	for _, h := range hs {
		if !h.out.Scan() || h.out.Text() != "ready" {
			b.Fatalf("a helper process did not start: %v", h.out.Err())
		}
	}
	own := b.N - share*(procs-1)
	work, closeWork, err := benchWork(mode, dir, sample)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for _, h := range hs {
		fmt.Fprintln(h.in, "go")
	}
	if err := appendConcurrently(own, callers, work); err != nil {
		b.Fatal(err)
	}
	for _, h := range hs {
		if !h.out.Scan() || h.out.Text() != "done" {
			b.Fatalf("a helper process failed: %v", h.out.Err())
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := closeWork(); err != nil {
		b.Fatal(err)
	}
	for _, h := range hs {
		_ = h.in.Close()
		if err := h.cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	if mode == "store" {
		rep := Verify(dir, nil)
		if !rep.OK() || rep.Records != b.N || len(rep.Chains) > procs {
			b.Fatalf("verify after the run:\n%s", rep)
		}
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "receipts/s")
}

// benchWork returns one durable append of the given mode on dir: a
// receipt issued through a Store, or the sample appended to a file of this
// process's own and fsynced.
func benchWork(mode, dir string, sample []byte) (work func(i int) error, closeWork func() error, err error) {
	if mode == "store" {
		s, err := Open(Options{Dir: dir})
		if err != nil {
			return nil, nil, err
		}
		ctx := context.Background()
		return func(i int) error {
			_, err := s.Issue(ctx, testEntry(i%256))
			return err
		}, s.Close, nil
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("raw-%d.jsonl", os.Getpid())), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return func(int) error {
		if _, err := f.Write(sample); err != nil {
			return err
		}
		return f.Sync()
	}, f.Close, nil
}

// appendConcurrently runs n appends over c goroutines.
func appendConcurrently(n, c int, work func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) || failed.Load() != nil {
					return
				}
				if err := work(int(i)); err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

// helperBench is a benchmark helper process: it prepares its appends,
// says "ready", waits for "go", runs them and says "done".
func helperBench(mode, dir string) int {
	n, err1 := strconv.Atoi(os.Getenv(benchCountEnv))
	c, err2 := strconv.Atoi(os.Getenv(benchCallersEnv))
	if err := errors.Join(err1, err2); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	work, closeWork, err := benchWork(mode, dir, append([]byte(os.Getenv(benchSampleEnv)), '\n'))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := appendConcurrently(n, c, work); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("done")
	if err := closeWork(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// benchChain is the chain of the Stores the benchmarks build by hand.
var benchChain = &heldChain{id: "0123456789abcdef"}

// BenchmarkSign is the writer's serial work per receipt: canonical bytes,
// Ed25519 signature, line and chain hash.
func BenchmarkSign(b *testing.B) {
	k := newSigningKey(make([]byte, ed25519.SeedSize))
	s := &Store{chain: benchChain}
	s.w.key = k
	s.w.prev = GenesisPrev
	s.key.Store(k)
	base, err := (&Store{clock: time.Now, rand: seededRand("bench"), chain: benchChain}).prepare(testEntry(1))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := *base
		s.appendRecord(&r)
		s.w.buf = s.w.buf[:0]
	}
}

// BenchmarkPrepare is the per-receipt work done on the caller's goroutine
// before queueing: validation, canonical arguments, hashes and the id.
func BenchmarkPrepare(b *testing.B) {
	s := &Store{clock: time.Now, rand: seededRand("bench"), chain: benchChain}
	e := testEntry(1)
	for b.Loop() {
		if _, err := s.prepare(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify measures whole-log verification (parse, signature, chain).
func BenchmarkVerify(b *testing.B) {
	const n = 2000
	dir := b.TempDir()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range n / 16 {
				if _, err := s.Issue(context.Background(), testEntry(g*n+i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	pub := s.PublicKey()
	s.Close()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if rep := Verify(dir, pub); !rep.OK() || rep.Records != n {
			b.Fatalf("verify:\n%s", rep)
		}
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "records/s")
}

// BenchmarkParseRecord is the strict decoder alone.
func BenchmarkParseRecord(b *testing.B) {
	s := &Store{clock: time.Now, rand: seededRand("bench"), chain: benchChain}
	s.w.key = newSigningKey(make([]byte, ed25519.SeedSize))
	s.w.prev = GenesisPrev
	s.key.Store(s.w.key)
	r, _ := s.prepare(testEntry(1))
	s.appendRecord(r)
	line := r.Canonical()
	for b.Loop() {
		if _, err := ParseRecord(line); err != nil {
			b.Fatal(err)
		}
	}
}
