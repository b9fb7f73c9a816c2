package receipts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// follow reads everything a follower has now, in calls of at most max.
func follow(t *testing.T, f *Follower, max int) []*Receipt {
	t.Helper()
	var out []*Receipt
	for {
		got, err := f.Next(max)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if len(got) > max {
			t.Fatalf("Next(%d) returned %d records", max, len(got))
		}
		if len(got) == 0 {
			return out
		}
		out = append(out, got...)
	}
}

func seqsOf(rs []*Receipt) []uint64 {
	var out []uint64
	for _, r := range rs {
		out = append(out, r.Seq)
	}
	return out
}

func wantSeqs(t *testing.T, got []*Receipt, from, to uint64) {
	t.Helper()
	if len(got) != int(to-from+1) {
		t.Fatalf("got seqs %v, want %d..%d", seqsOf(got), from, to)
	}
	for i, r := range got {
		if r.Seq != from+uint64(i) {
			t.Fatalf("got seqs %v, want %d..%d", seqsOf(got), from, to)
		}
	}
}

func TestFollowChain(t *testing.T) {
	defer func(old int64) { maxSegmentBytes = old }(maxSegmentBytes)
	maxSegmentBytes = 2000 // a few records per segment
	tests := []struct {
		name  string
		after uint64
		max   int
	}{
		{"from the start, one at a time", 0, 1},
		{"from the start, in batches", 0, 7},
		{"from the middle", 11, 4},
		{"from the end", 25, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testDir(t)
			s := openStore(t, Options{Dir: dir})
			rs := issueN(t, s, 25)
			prev := ""
			if tt.after > 0 {
				prev = rs[tt.after-1].Hash()
			}
			f, err := FollowChain(dir, s.Chain(), FollowOptions{After: tt.after, Prev: prev})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := follow(t, f, tt.max)
			if tt.after < 25 {
				wantSeqs(t, got, tt.after+1, 25)
			} else if len(got) != 0 {
				t.Fatalf("got %v after the end", seqsOf(got))
			}
			for i, r := range got {
				if r.Hash() != rs[int(tt.after)+i].Hash() {
					t.Fatalf("seq %d differs from what was issued", r.Seq)
				}
			}
			// Records issued later, a key rotation among them, follow.
			if _, err := s.RotateKey(context.Background()); err != nil {
				t.Fatal(err)
			}
			issueN(t, s, 5)
			wantSeqs(t, follow(t, f, tt.max), 26, 30)
			if f.Seq() != 30 {
				t.Errorf("Seq = %d, want 30", f.Seq())
			}
		})
	}
}

func TestFollowWaitsForALineInProgress(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	f, _ := FollowChain(dir, s.Chain(), FollowOptions{})
	defer f.Close()
	wantSeqs(t, follow(t, f, 10), 1, 2)

	// Take the next record away from the segment and put it back in two
	// writes, as a writer cut into pieces would.
	issueN(t, s, 1)
	seg := lastSegment(t, filepath.Join(dir, ChainsDir, s.Chain()))
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	line := data[len(data)-1-len(lastLine(data)):]
	if err := os.WriteFile(seg, data[:len(data)-len(line)+10], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := follow(t, f, 10); len(got) != 0 {
		t.Fatalf("a partial line was returned: %v", seqsOf(got))
	}
	if err := os.WriteFile(seg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, follow(t, f, 10), 3, 3)
}

func TestFollowSkipsATornTail(t *testing.T) {
	dir := testDir(t)
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	issueN(t, s, 3)
	chain := s.Chain()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	seg := lastSegment(t, filepath.Join(dir, ChainsDir, chain))
	fh, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(`{"allowed_by":"auto","args_sha256":"00`); err != nil {
		t.Fatal(err)
	}
	fh.Close()

	f, _ := FollowChain(dir, chain, FollowOptions{After: 1, NoSync: true})
	defer f.Close()
	wantSeqs(t, follow(t, f, 10), 2, 3)

	// The next writer notes the tail in a new segment and goes on.
	s2 := openStore(t, Options{Dir: dir})
	if s2.Chain() != chain {
		t.Fatalf("the torn chain %s was not continued (got %s)", chain, s2.Chain())
	}
	issueN(t, s2, 2)
	got := follow(t, f, 10)
	wantSeqs(t, got, 4, 5)
	if len(got[0].Torn) != 1 {
		t.Errorf("seq 4 does not note the torn tail: %+v", got[0].Torn)
	}
}

func TestFollowRefusesABrokenChain(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 3)
	tests := []struct {
		name  string
		after uint64
		prev  string
	}{
		{"prev does not match", 1, GenesisPrev},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := FollowChain(dir, s.Chain(), FollowOptions{After: tt.after, Prev: tt.prev})
			defer f.Close()
			got, err := f.Next(10)
			if !errors.Is(err, ErrChainBroken) || len(got) != 0 {
				t.Fatalf("Next = %v, %v; want nothing and ErrChainBroken", seqsOf(got), err)
			}
			if f.Seq() != tt.after {
				t.Errorf("the follower moved to %d", f.Seq())
			}
		})
	}

	// A record cut out of the middle of a segment is a gap.
	seg := lastSegment(t, filepath.Join(dir, ChainsDir, s.Chain()))
	data, _ := os.ReadFile(seg)
	lines := splitLines(data, 0)
	cut := append(append([]byte{}, data[:lines[1].off]...), data[lines[2].off:]...)
	if err := os.WriteFile(seg, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ := FollowChain(dir, s.Chain(), FollowOptions{})
	defer f.Close()
	got, err := f.Next(10)
	if !errors.Is(err, ErrChainBroken) {
		t.Fatalf("Next = %v, %v; want ErrChainBroken", seqsOf(got), err)
	}
	wantSeqs(t, got, 1, 1)
}

func TestFollowLegacyAndMissingChains(t *testing.T) {
	f, err := FollowChain("testdata/legacy", LegacyChain, FollowOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := follow(t, f, 2)
	wantSeqs(t, got, 1, 4)
	for _, r := range got {
		if r.Chain != "" || r.Version != 1 {
			t.Fatalf("seq %d: chain %q, version %d", r.Seq, r.Chain, r.Version)
		}
	}
	chains, err := ListChains("testdata/legacy")
	if err != nil || len(chains) != 1 || chains[0] != "" {
		t.Errorf("ListChains(legacy) = %q, %v", chains, err)
	}

	m, _ := FollowChain(t.TempDir(), "0123456789abcdef", FollowOptions{})
	if got, err := m.Next(5); err != nil || len(got) != 0 {
		t.Errorf("a chain that does not exist yet: %v, %v", seqsOf(got), err)
	}
	if _, err := FollowChain(t.TempDir(), "../etc", FollowOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("a chain name that is no id: %v", err)
	}
}

func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	segs, err := listSegments(dir)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments of %s: %v %v", dir, segs, err)
	}
	return segs[len(segs)-1].path
}

// lastLine returns the last complete line of data, without its newline.
func lastLine(data []byte) []byte {
	ls := splitLines(data, 0)
	return ls[len(ls)-1].data
}

func TestFollowOnlyWhatIsOnDisk(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	if s.Synced() != 0 {
		t.Fatalf("Synced = %d before any receipt", s.Synced())
	}
	issueN(t, s, 5)
	if s.Synced() != 5 {
		t.Fatalf("Synced = %d after 5 durable receipts", s.Synced())
	}
	limit := uint64(3)
	f, _ := FollowChain(dir, s.Chain(), FollowOptions{Durable: func() uint64 { return limit }})
	defer f.Close()
	wantSeqs(t, follow(t, f, 10), 1, 3)
	limit = s.Synced()
	wantSeqs(t, follow(t, f, 10), 4, 5)
}
