package receipts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestConcurrentIssueKeepsSeqDenseAndChainIntact(t *testing.T) {
	const goroutines, each = 64, 50
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	var mu sync.Mutex
	var seqs []uint64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				r, err := s.Issue(context.Background(), testEntry(g*each+i))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seqs = append(seqs, r.Seq)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	syncs := s.syncs.Load()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seqs)
	for i, q := range seqs {
		if q != uint64(i+1) {
			t.Fatalf("seqs are not 1..%d: position %d holds %d", goroutines*each, i, q)
		}
	}
	if syncs >= goroutines*each {
		t.Errorf("%d fsyncs for %d receipts: group commit did not batch", syncs, goroutines*each)
	}
	t.Logf("%d receipts, %d fsyncs", goroutines*each, syncs)
	rep := Verify(dir, nil)
	if !rep.OK() || rep.Records != goroutines*each {
		t.Fatalf("verify:\n%s", rep)
	}
}

func TestReopenContinuesTheChain(t *testing.T) {
	dir := testDir(t)
	for round := range 3 {
		s := openStore(t, Options{Dir: dir})
		rs := issueN(t, s, 2)
		if want := uint64(round*2 + 1); rs[0].Seq != want {
			t.Fatalf("round %d: first seq %d, want %d", round, rs[0].Seq, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	segs, _ := listSegments(onlyChain(t, dir))
	if len(segs) != 1 {
		t.Errorf("a clean reopen should append to the same segment; have %d segments", len(segs))
	}
	if rep := Verify(dir, nil); !rep.OK() || rep.Records != 6 {
		t.Fatalf("verify:\n%s", rep)
	}
}

func TestTornTailStartsANewSegment(t *testing.T) {
	tails := []struct {
		name string
		tail func(last []byte) []byte
	}{
		{"partial line", func(last []byte) []byte { return last[:len(last)/2] }},
		{"bad JSON", func([]byte) []byte { return []byte("{\"v\":1,\n") }},
		{"bad signature", func(last []byte) []byte {
			b := bytes.Replace(last, []byte(`"seq":3`), []byte(`"seq":4`), 1)
			return append(b, '\n')
		}},
		{"zeros", func([]byte) []byte { return make([]byte, 512) }},
	}
	for _, tt := range tails {
		t.Run(tt.name, func(t *testing.T) {
			dir := testDir(t)
			s := openStore(t, Options{Dir: dir})
			rs := issueN(t, s, 3)
			s.Close()
			cd := s.ChainDir()
			before, _ := os.ReadFile(segPath(cd, 1))
			tail := tt.tail(rs[2].Canonical())
			os.WriteFile(segPath(cd, 1), append(bytes.Clone(before), tail...), 0o600)

			rep := Verify(dir, nil)
			if rep.Problem == nil || rep.Problem.Reason != ReasonTorn && rep.Problem.Reason != ReasonBadSignature {
				t.Fatalf("before reopening, want the torn tail reported:\n%s", rep)
			}

			s = openStore(t, Options{Dir: dir})
			r, err := s.Issue(context.Background(), testEntry(9))
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if s.ChainDir() != cd {
				t.Fatalf("reopening wrote chain %s, not the torn one", s.Chain())
			}
			if r.Seq != 4 || r.Prev != rs[2].Hash() {
				t.Errorf("seq %d prev %s: want 4 chained to seq 3", r.Seq, short(r.Prev))
			}
			if len(r.Torn) != 1 || r.Torn[0].Segment != segmentName(1) || r.Torn[0].Offset != int64(len(before)) || r.Torn[0].Length != int64(len(tail)) {
				t.Errorf("torn note = %+v, want segment 1 offset %d length %d", r.Torn, len(before), len(tail))
			}
			after, _ := os.ReadFile(segPath(cd, 1))
			if !bytes.Equal(after, append(before, tail...)) {
				t.Error("the torn segment was modified")
			}
			if _, err := os.Stat(segPath(cd, 2)); err != nil {
				t.Error("no new segment")
			}
			rep = Verify(dir, nil)
			if !rep.OK() || rep.Records != 4 || len(rep.Torn) != 1 || rep.Torn[0].NotedBy != 4 {
				t.Fatalf("after reopening:\n%s", rep)
			}
		})
	}
}

func TestCrashBetweenSegmentCreateAndWrite(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	s.Close()
	os.WriteFile(segPath(s.ChainDir(), 2), nil, 0o600) // created, nothing written
	s = openStore(t, Options{Dir: dir})
	r, err := s.Issue(context.Background(), testEntry(1))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if r.Seq != 3 {
		t.Errorf("seq %d, want 3", r.Seq)
	}
	if rep := Verify(dir, nil); !rep.OK() || rep.Records != 3 {
		t.Fatalf("verify:\n%s", rep)
	}
}

func TestRotation(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	old := s.KeyID()
	id, err := s.RotateKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if id == old || s.KeyID() != id {
		t.Fatalf("KeyID %s after rotating from %s to %s", s.KeyID(), old, id)
	}
	if _, err := s.RotateKey(context.Background()); !errors.Is(err, ErrRotationPending) {
		t.Fatalf("second rotation before a receipt: %v, want ErrRotationPending", err)
	}
	r := issueN(t, s, 1)[0]
	if r.KeyID != id || r.Rotation == nil || r.Rotation.FromKeyID != old || r.Endorsement == "" {
		t.Fatalf("first record after rotation: key %s rotation %+v endorsement %q", r.KeyID, r.Rotation, r.Endorsement)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, nextKeyFile)); !os.IsNotExist(err) {
		t.Errorf("%s still exists after the rotation record is durable", nextKeyFile)
	}
	k, err := loadKeyFile(filepath.Join(dir, PrivateKeyFile))
	if err != nil || k.id != id {
		t.Fatalf("private key file holds %v (%v), want %s", k, err, id)
	}
	if rep := Verify(dir, nil); !rep.OK() || len(rep.Keys) != 2 {
		t.Fatalf("verify:\n%s", rep)
	}
}

// TestRotationSurvivesAReopen covers a process that stops between
// RotateKey and the first receipt signed with the new key.
func TestRotationSurvivesAReopen(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 1)
	old := s.KeyID()
	id, err := s.RotateKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openStore(t, Options{Dir: dir})
	if s.KeyID() != id {
		t.Fatalf("after reopening, KeyID %s, want the pending %s", s.KeyID(), id)
	}
	r := issueN(t, s, 1)[0]
	s.Close()
	if r.Rotation == nil || r.Rotation.FromKeyID != old || r.Endorsement == "" {
		t.Fatalf("rotation record: %+v endorsement %q", r.Rotation, r.Endorsement)
	}
	pubs, _ := ReadPublicKeys(PublicKeyPath(dir))
	if rep := Verify(dir, pubs[0]); !rep.OK() || rep.Records != 2 {
		t.Fatalf("verify with the old key:\n%s", rep)
	}
}

// TestReplacedKeyFile covers an operator who swaps the private key by hand:
// the next record names the old key but cannot carry an endorsement.
func TestReplacedKeyFile(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 1)
	old := s.PublicKey()
	s.Close()
	k := otherKey(t)
	if err := writeKeyFile(filepath.Join(dir, PrivateKeyFile), k); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, Options{Dir: dir})
	r := issueN(t, s, 1)[0]
	s.Close()
	if r.Rotation == nil || r.Rotation.FromKeyID != KeyID(old) || r.Endorsement != "" || r.KeyID != k.id {
		t.Fatalf("rotation %+v endorsement %q key %s", r.Rotation, r.Endorsement, r.KeyID)
	}
	if rep := Verify(dir, nil); !rep.OK() {
		t.Fatalf("with the key file:\n%s", rep)
	}
	rep := Verify(dir, old)
	if rep.Problem == nil || rep.Problem.Reason != ReasonUnknownKey || rep.Problem.Seq != 2 {
		t.Fatalf("with only the old key, the unendorsed key must be unknown:\n%s", rep)
	}
	if rep := Verify(dir, k.pub); !rep.OK() {
		t.Fatalf("with only the new key (which vouches for the old one):\n%s", rep)
	}
}

// TestOpenRefusesUnknownKeys: records whose key the public key file does
// not list are not mistaken for a torn tail.
func TestOpenRefusesUnknownKeys(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	s.Close()
	os.Remove(PublicKeyPath(dir))
	if err := writeKeyFile(filepath.Join(dir, PrivateKeyFile), otherKey(t)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Options{Dir: dir})
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Open: %v, want ErrUnknownKey naming line 2", err)
	}
	segs, _ := listSegments(s.ChainDir())
	if len(segs) != 1 {
		t.Errorf("Open wrote a segment: %d segments", len(segs))
	}
}

func TestSegmentRollover(t *testing.T) {
	defer func(old int64) { maxSegmentBytes = old }(maxSegmentBytes)
	maxSegmentBytes = 2000
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 12)
	s.Close()
	segs, _ := listSegments(s.ChainDir())
	if len(segs) < 3 {
		t.Fatalf("%d segments, want several", len(segs))
	}
	if rep := Verify(dir, nil); !rep.OK() || rep.Records != 12 || rep.Segments != len(segs) {
		t.Fatalf("verify:\n%s", rep)
	}
}

func TestIssueRefusesBadEntries(t *testing.T) {
	s := openStore(t, Options{Dir: testDir(t)})
	ok := testEntry(1)
	tests := []struct {
		name string
		edit func(e *Entry)
		want error
	}{
		{"no tool", func(e *Entry) { e.Tool = "" }, ErrInvalidEntry},
		{"no attribution", func(e *Entry) { e.Attribution = "" }, ErrInvalidEntry},
		{"bad tier", func(e *Entry) { e.Tier = "extreme" }, ErrInvalidEntry},
		{"bad allowed_by", func(e *Entry) { e.AllowedBy = "denied" }, ErrInvalidEntry},
		{"negative duration", func(e *Entry) { e.Duration = -1 }, ErrInvalidEntry},
		{"time before 1970", func(e *Entry) { e.Time = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) }, ErrInvalidEntry},
		{"array args", func(e *Entry) { e.Args = json.RawMessage(`[1]`) }, ErrInvalidArgs},
		{"invalid JSON args", func(e *Entry) { e.Args = json.RawMessage(`{"a":`) }, ErrInvalidArgs},
		{"duplicate keys", func(e *Entry) { e.Args = json.RawMessage(`{"a":1,"a":2}`) }, ErrInvalidArgs},
		{"number out of range", func(e *Entry) { e.Args = json.RawMessage(`{"a":1e400}`) }, ErrInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ok
			tt.edit(&e)
			if _, err := s.Issue(context.Background(), e); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	// Nothing was written: the next receipt is seq 1.
	if r, err := s.Issue(context.Background(), ok); err != nil || r.Seq != 1 {
		t.Fatalf("after refusals: seq %v err %v", r, err)
	}
}

func TestIssueNormalizes(t *testing.T) {
	when := time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 3600))
	s := openStore(t, Options{Dir: testDir(t), Clock: func() time.Time { return when }})
	tests := []struct {
		name  string
		entry Entry
		check func(t *testing.T, r *Receipt)
	}{
		{"empty args hash as {}", Entry{Args: nil}, func(t *testing.T, r *Receipt) {
			if r.ArgsSHA256 != sha256Hex([]byte("{}")) {
				t.Error("args_sha256 is not the hash of {}")
			}
		}},
		{"null args hash as {}", Entry{Args: json.RawMessage(" null ")}, func(t *testing.T, r *Receipt) {
			if r.ArgsSHA256 != sha256Hex([]byte("{}")) {
				t.Error("args_sha256 is not the hash of {}")
			}
		}},
		{"time from the clock in UTC microseconds", Entry{}, func(t *testing.T, r *Receipt) {
			if got := r.Time.Format(TimeLayout); got != "2026-05-06T06:08:09.123456Z" {
				t.Errorf("time %s", got)
			}
		}},
		{"duration in whole milliseconds", Entry{Duration: 1999 * time.Microsecond}, func(t *testing.T, r *Receipt) {
			if r.Duration != time.Millisecond {
				t.Errorf("duration %v", r.Duration)
			}
		}},
		{"invalid UTF-8 replaced", Entry{Session: "a\xffb"}, func(t *testing.T, r *Receipt) {
			if r.Session != "a\uFFFDb" {
				t.Errorf("session %q", r.Session)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.entry
			e.Tool, e.Attribution, e.Tier, e.AllowedBy = "t", "builtin.t", TierLow, AllowedAuto
			r, err := s.Issue(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
			if _, err := ParseRecord(r.Canonical()); err != nil {
				t.Errorf("issued record does not parse: %v", err)
			}
		})
	}
}

func TestStoreArgumentsRedactsSecrets(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir, StoreArguments: true})
	args := `{"url":"https://x","headers":{"Authorization":"Bearer abc","X-Api-Key":"apikey-k1-value"},"auth":[{"accessToken":"token-t1-value"},{"PASSWORD":{"nested":"p"}}],"secret_name":"s","keyboard":"qwerty","count":2}`
	e := testEntry(1)
	e.Args = json.RawMessage(args)
	r, err := s.Issue(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := string(r.Args)
	for _, secret := range []string{"apikey-k1-value", "token-t1-value", `"p"`, `"s"`, "qwerty"} {
		if strings.Contains(got, secret) {
			t.Errorf("stored args leak %s: %s", secret, got)
		}
	}
	for _, kept := range []string{"https://x", "Bearer abc", `"count":2`} {
		if !strings.Contains(got, kept) {
			t.Errorf("stored args lost %s: %s", kept, got)
		}
	}
	canon, _ := CanonicalArgs(json.RawMessage(args))
	if r.ArgsSHA256 != sha256Hex(canon) {
		t.Error("args_sha256 must hash the original arguments")
	}
	seg, _ := os.ReadFile(segPath(s.ChainDir(), 1))
	// The values are long enough that a signature or hash in the segment
	// cannot contain them by chance, as two letters did once in 25 runs.
	if bytes.Contains(seg, []byte("apikey-k1-value")) || bytes.Contains(seg, []byte("token-t1-value")) {
		t.Error("a secret reached the segment file")
	}
}

func TestIssueAfterCloseAndCancel(t *testing.T) {
	s := openStore(t, Options{Dir: testDir(t)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Issue(ctx, testEntry(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Issue(context.Background(), testEntry(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := s.RotateKey(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("rotate after Close: %v", err)
	}
}

func TestWriteFailureStopsTheStore(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 1)
	// Pull the segment out from under the writer.
	s.w.file.Close()
	if _, err := s.Issue(context.Background(), testEntry(2)); !errors.Is(err, ErrStoreFailed) {
		t.Fatalf("Issue after the file failed: %v", err)
	}
	if _, err := s.Issue(context.Background(), testEntry(3)); !errors.Is(err, ErrStoreFailed) {
		t.Fatalf("the store must stay failed: %v", err)
	}
	if err := s.Close(); !errors.Is(err, ErrStoreFailed) {
		t.Fatalf("Close: %v", err)
	}
	if rep := Verify(dir, nil); !rep.OK() || rep.Records != 1 {
		t.Fatalf("verify:\n%s", rep)
	}
}

// TestStoresShareADirectory: Stores open at the same time write chains of
// their own; a Store opened later continues a chain nobody holds.
func TestStoresShareADirectory(t *testing.T) {
	dir := testDir(t)
	a := openStore(t, Options{Dir: dir})
	b := openStore(t, Options{Dir: dir})
	if a.Chain() == b.Chain() || !validChainID(a.Chain()) || !validChainID(b.Chain()) {
		t.Fatalf("chains %q and %q, want two distinct chain ids", a.Chain(), b.Chain())
	}
	ra := issueN(t, a, 3)
	rb := issueN(t, b, 2)
	if ra[2].Seq != 3 || rb[1].Seq != 2 || ra[0].Chain != a.Chain() || rb[0].Chain != b.Chain() {
		t.Fatalf("each chain counts its own seqs: %d/%s, %d/%s", ra[2].Seq, ra[0].Chain, rb[1].Seq, rb[0].Chain)
	}
	if a.KeyID() != b.KeyID() {
		t.Fatal("the chains of one directory must share its key")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c := openStore(t, Options{Dir: dir})
	if c.Chain() != a.Chain() {
		t.Fatalf("a Store opened after one closed took chain %s, want the free %s", c.Chain(), a.Chain())
	}
	if r := issueN(t, c, 1)[0]; r.Seq != 4 || r.Prev != ra[2].Hash() {
		t.Fatalf("continuing chain %s: seq %d, want 4 chained to seq 3", c.Chain(), r.Seq)
	}
	b.Close()
	c.Close()
	rep := Verify(dir, nil)
	if !rep.OK() || rep.Records != 6 || len(rep.Chains) != 2 {
		t.Fatalf("verify:\n%s", rep)
	}
}

func TestOpenRefusesBadOptionsAndKeys(t *testing.T) {
	if _, err := Open(Options{}); !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "Options.Dir") {
		t.Fatalf("empty Dir: %v", err)
	}
	dir := testDir(t)
	os.WriteFile(filepath.Join(dir, PrivateKeyFile), []byte("ssh-ed25519 AAAA\n"), 0o600)
	if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("foreign key file: %v", err)
	}
}

func TestKeyFilePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file modes do not express who may read a file")
	}
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir})
	s.Close()
	path := filepath.Join(dir, PrivateKeyFile)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new key file mode %v (%v), want 0600", st.Mode(), err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		os.Chmod(path, mode)
		_, err := Open(Options{Dir: dir})
		if !errors.Is(err, ErrKeyPermissions) || !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Fatalf("mode %04o: %v, want ErrKeyPermissions with chmod 600 %s", mode, err, path)
		}
	}
	os.Chmod(path, 0o400)
	s = openStore(t, Options{Dir: dir})
	s.Close()
}

func TestListFindExport(t *testing.T) {
	dir := testDir(t)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := openStore(t, Options{Dir: dir, Clock: stepClock(start, time.Hour)})
	for i := range 6 {
		e := testEntry(i)
		if i%2 == 1 {
			e.Tool = "shell"
		}
		if _, err := s.Issue(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	all, err := List(dir, Filter{})
	if err != nil || len(all) != 6 {
		t.Fatalf("List all: %d, %v", len(all), err)
	}
	tests := []struct {
		name string
		f    Filter
		want []uint64
	}{
		{"tool", Filter{Tool: "shell"}, []uint64{2, 4, 6}},
		{"since", Filter{Since: start.Add(3 * time.Hour)}, []uint64{4, 5, 6}},
		{"until", Filter{Until: start.Add(2 * time.Hour)}, []uint64{1, 2}},
		{"limit keeps the latest", Filter{Limit: 2}, []uint64{5, 6}},
		{"tool and limit", Filter{Tool: "file_read", Limit: 1}, []uint64{5}},
		{"session", Filter{Session: "nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := List(dir, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var seqs []uint64
			for _, r := range got {
				seqs = append(seqs, r.Seq)
			}
			if !slices.Equal(seqs, tt.want) {
				t.Errorf("seqs %v, want %v", seqs, tt.want)
			}
		})
	}
	third := all[2]
	for _, q := range []string{"3", third.ID, strings.ToLower(third.ID), third.Token(), third.Chain + ":3"} {
		r, err := Find(dir, q)
		if err != nil || r.Seq != 3 {
			t.Errorf("Find(%q) = %v, %v", q, r, err)
		}
	}
	for _, q := range []string{"99", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "tr1.3." + all[1].Sig, "legacy:3", "0123456789abcdef:3", "nochain:3"} {
		if _, err := Find(dir, q); !errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q): %v, want ErrNotFound", q, err)
		}
	}
	if _, err := Find(dir, "tr1.x"); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("bad token: %v", err)
	}

	var buf bytes.Buffer
	if err := Export(dir, &buf); err != nil {
		t.Fatal(err)
	}
	cd := onlyChain(t, dir)
	seg, _ := os.ReadFile(segPath(cd, 1))
	if !bytes.Equal(buf.Bytes(), seg) {
		t.Error("export of a clean single-segment store differs from the segment")
	}

	// A damaged line: List and Export return what they can, with ErrDamaged.
	lines := bytes.SplitAfter(seg, []byte("\n"))
	lines[1] = []byte("not a record\n")
	os.WriteFile(segPath(cd, 1), bytes.Join(lines, nil), 0o600)
	got, err := List(dir, Filter{})
	if !errors.Is(err, ErrDamaged) || len(got) != 5 || !strings.Contains(err.Error(), "segment-000001.jsonl line 2") {
		t.Fatalf("damaged List: %d receipts, %v", len(got), err)
	}
	buf.Reset()
	if err := Export(dir, &buf); !errors.Is(err, ErrDamaged) || bytes.Count(buf.Bytes(), []byte("\n")) != 5 {
		t.Fatalf("damaged Export: %v", err)
	}
	if _, err := List(filepath.Join(dir, "missing"), Filter{}); err == nil || errors.Is(err, ErrDamaged) {
		t.Fatalf("List of a missing dir: %v", err)
	}
}

func TestRenderers(t *testing.T) {
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir, Clock: stepClock(goldenStart, time.Second)})
	e := testEntry(1)
	e.Session = "evil\x1b[31m\tsession"
	r, err := s.Issue(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	var b bytes.Buffer
	if err := WriteTable(&b, []Receipt{*r}); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(b.Bytes(), 0x1b) || !strings.Contains(b.String(), "SEQ") || !strings.Contains(b.String(), `evil\x1b[31m`) {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	if err := WriteDetail(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seq:", "token:", r.Token(), "args sha256:"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("detail lacks %q:\n%s", want, b.String())
		}
	}
	rep := Verify(dir, nil).String()
	if !strings.Contains(rep, "OK: every signature and the chain verify") {
		t.Errorf("report:\n%s", rep)
	}
}

func TestTokenRoundTrip(t *testing.T) {
	r := &Receipt{Seq: 42, Sig: strings.Repeat("A", 86)}
	seq, sig, err := ParseToken(r.Token())
	if err != nil || seq != 42 || sig != r.Sig {
		t.Fatalf("ParseToken(%q) = %d %q %v", r.Token(), seq, sig, err)
	}
	for _, bad := range []string{"", "tr2.1." + r.Sig, "tr1.0." + r.Sig, "tr1.01." + r.Sig, "tr1.1", "tr1.1.abc", "tr1.-1." + r.Sig} {
		if _, _, err := ParseToken(bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("ParseToken(%q): %v", bad, err)
		}
	}
}

func TestReceiptJSON(t *testing.T) {
	s := openStore(t, Options{Dir: testDir(t)})
	r := issueN(t, s, 1)[0]
	// Embedded in another document, encoding/json escapes and re-indents.
	doc, err := json.MarshalIndent(map[string]any{"_meta": map[string]any{"receipt": r}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Meta struct {
			Receipt Receipt `json:"receipt"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Meta.Receipt.Canonical(), r.Canonical()) {
		t.Fatal("receipt changed through JSON")
	}
	if err := back.Meta.Receipt.VerifySignature(s.PublicKey()); err != nil {
		t.Fatal(err)
	}
	var bad Receipt
	if err := json.Unmarshal([]byte(`{"v":1}`), &bad); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("incomplete record: %v", err)
	}
}
