package receipts

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// Subprocess helpers: the test binary re-executes itself with helperEnv set
// to play another process (a writer to SIGKILL, writers at the same time).
const (
	helperEnv    = "TALON_RECEIPTS_TEST_HELPER"
	helperDirEnv = "TALON_RECEIPTS_TEST_DIR"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		goleak.VerifyTestMain(m)
	case "writer":
		os.Exit(helperWriter(os.Getenv(helperDirEnv)))
	case "issue":
		os.Exit(helperIssue(os.Getenv(helperDirEnv)))
	case "bench-store":
		os.Exit(helperBench("store", os.Getenv(helperDirEnv)))
	case "bench-rawfsync":
		os.Exit(helperBench("rawfsync", os.Getenv(helperDirEnv)))
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperWriter issues receipts from several goroutines until it is killed,
// printing each seq on its own line once Issue has returned.
func helperWriter(dir string) int {
	s, err := Open(Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	for g := range 4 {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				r, err := s.Issue(context.Background(), testEntry(g*1_000_000+i))
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				mu.Lock()
				fmt.Fprintf(os.Stdout, "%d\n", r.Seq)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helperIssue opens the store, waits for a line on standard input, issues
// 100 receipts from 4 goroutines and prints each one's stored line once
// Issue has returned.
func helperIssue(dir string) int {
	s, err := Open(Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	if _, err := fmt.Scanln(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				r, err := s.Issue(context.Background(), testEntry(g*25+i))
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				mu.Lock()
				fmt.Printf("%s\n", r.Canonical())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// testEntry returns a plausible entry, varied by i.
func testEntry(i int) Entry {
	tiers := []string{TierLow, TierMedium, TierHigh}
	allowed := []string{AllowedAuto, AllowedByUser, AllowedAlways}
	args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("src/file_%d.go", i), "limit": i % 100})
	return Entry{
		Tool:        "file_read",
		Attribution: "builtin.file_read",
		Channel:     "cli",
		Profile:     "default",
		Session:     "sess-1",
		Tier:        tiers[i%3],
		AllowedBy:   allowed[i%3],
		Args:        args,
		Result:      fmt.Sprintf("contents of file %d\n", i),
		Duration:    time.Duration(i%50) * time.Millisecond,
	}
}

// stepClock returns a clock that starts at start and advances by step on
// every call; safe for concurrent use.
func stepClock(start time.Time, step time.Duration) func() time.Time {
	var n atomic.Int64
	return func() time.Time { return start.Add(time.Duration(n.Add(1)-1) * step) }
}

// seededRand is a reproducible random source.
func seededRand(seed string) io.Reader {
	var s [32]byte
	copy(s[:], seed)
	return rand.NewChaCha8(s)
}

func openStore(t testing.TB, opts Options) *Store {
	t.Helper()
	s, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func issueN(t testing.TB, s *Store, n int) []*Receipt {
	t.Helper()
	var out []*Receipt
	for i := range n {
		r, err := s.Issue(context.Background(), testEntry(i))
		if err != nil {
			t.Fatalf("Issue %d: %v", i, err)
		}
		out = append(out, r)
	}
	return out
}

func segPath(dir string, n int) string { return filepath.Join(dir, segmentName(n)) }

// onlyChain returns the directory of the one chain of a store.
func onlyChain(t testing.TB, dir string) string {
	t.Helper()
	ids, err := listChains(dir)
	if err != nil || len(ids) != 1 {
		t.Fatalf("store %s has chains %v (%v), want one", dir, ids, err)
	}
	return filepath.Join(dir, ChainsDir, ids[0])
}

// testDir returns an empty directory for a test store. Tests check logic,
// not the disk, so they use memory-backed /dev/shm where it exists: fsync
// there costs nothing and the tests stay fast on a busy machine. Set
// TALON_RECEIPTS_TEST_DISK=1 to run them on the real temporary directory.
// (Process-kill tests do not depend on fsync: the page cache outlives the
// process.) Benchmarks always use the disk.
func testDir(t testing.TB) string {
	t.Helper()
	if os.Getenv("TALON_RECEIPTS_TEST_DISK") == "" {
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			if d, err := os.MkdirTemp("/dev/shm", "talon-receipts-test-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(d) })
				return d
			}
		}
	}
	return t.TempDir()
}
