package receipts

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
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
}

// BenchmarkSign is the writer's serial work per receipt: canonical bytes,
// Ed25519 signature, line and chain hash.
func BenchmarkSign(b *testing.B) {
	k := newSigningKey(make([]byte, ed25519.SeedSize))
	s := &Store{}
	s.w.key = k
	s.w.prev = GenesisPrev
	s.key.Store(k)
	base, err := (&Store{clock: time.Now, rand: seededRand("bench")}).prepare(testEntry(1))
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
	s := &Store{clock: time.Now, rand: seededRand("bench")}
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
	s := &Store{clock: time.Now, rand: seededRand("bench")}
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
