package receipts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// twoChains returns a store written by two Stores open at once, each
// issuing n receipts with a clock that interleaves them, and the two
// chains' directories.
func twoChains(t *testing.T, n int) (dir string, chains [2]string) {
	t.Helper()
	dir = testDir(t)
	clk := stepClock(goldenStart, time.Second)
	a := openStore(t, Options{Dir: dir, Clock: clk})
	b := openStore(t, Options{Dir: dir, Clock: clk})
	for range n {
		issueN(t, a, 1)
		issueN(t, b, 1)
	}
	chains = [2]string{a.ChainDir(), b.ChainDir()}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, chains
}

func TestKeyIsMadeOnceByWritersStartingTogether(t *testing.T) {
	dir := testDir(t)
	const n = 8
	stores := make([]*Store, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := Open(Options{Dir: dir})
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = s
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	chains := map[string]bool{}
	for _, s := range stores {
		if s == nil {
			t.FailNow()
		}
		ids[s.KeyID()] = true
		chains[s.Chain()] = true
		issueN(t, s, 1)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	pubs, err := ReadPublicKeys(PublicKeyPath(dir))
	if len(ids) != 1 || len(chains) != n || err != nil || len(pubs) != 1 {
		t.Fatalf("%d keys, %d chains, %d public keys (%v); want 1 key, %d chains, 1 public key", len(ids), len(chains), len(pubs), err, n)
	}
	if rep := Verify(dir, pubs[0]); !rep.OK() || rep.Records != n || len(rep.Chains) != n {
		t.Fatalf("verify:\n%s", rep)
	}
}

// TestRotationReachesOtherWriters: a rotation by one writer is noticed by
// the others, whose chains rotate too, endorsed by the key they held.
func TestRotationReachesOtherWriters(t *testing.T) {
	dir := testDir(t)
	a := openStore(t, Options{Dir: dir})
	b := openStore(t, Options{Dir: dir})
	issueN(t, a, 1)
	issueN(t, b, 1)
	old := a.PublicKey()
	id, err := a.RotateKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.RotateKey(context.Background()); !errors.Is(err, ErrRotationPending) {
		t.Fatalf("a second rotation while one is pending: %v, want ErrRotationPending", err)
	}
	if r := issueN(t, b, 1)[0]; r.Rotation != nil || r.KeyID == id {
		t.Fatalf("b rotated before the rotation was durable: key %s rotation %+v", r.KeyID, r.Rotation)
	}
	if r := issueN(t, a, 1)[0]; r.Rotation == nil || r.KeyID != id {
		t.Fatalf("a's first record after rotating: key %s rotation %+v", r.KeyID, r.Rotation)
	}
	r := issueN(t, b, 1)[0]
	if r.KeyID != id || r.Rotation == nil || r.Rotation.FromKeyID != KeyID(old) || r.Endorsement == "" {
		t.Fatalf("b's next record: key %s rotation %+v endorsement %q; want a rotation to %s endorsed by the old key", r.KeyID, r.Rotation, r.Endorsement, id)
	}
	if b.KeyID() != id {
		t.Fatalf("b signs with %s after noticing %s", b.KeyID(), id)
	}
	a.Close()
	b.Close()
	pubs, _ := ReadPublicKeys(PublicKeyPath(dir))
	for _, k := range pubs {
		if rep := Verify(dir, k); !rep.OK() || rep.Records != 5 || len(rep.Keys) != 2 {
			t.Fatalf("verify with key %s only:\n%s", KeyID(k), rep)
		}
	}
}

// TestLegacyStoreIsReadNotWritten: a store written before chains existed
// lists, finds and verifies as the legacy chain, next to new chains, and
// no writer touches its segments.
func TestLegacyStoreIsReadNotWritten(t *testing.T) {
	dir := testDir(t)
	for _, name := range []string{PublicKeyFile, segmentName(1), segmentName(2), segmentName(3)} {
		b, err := os.ReadFile(filepath.Join(legacyDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	segsBefore := map[string][]byte{}
	for n := 1; n <= 3; n++ {
		segsBefore[segmentName(n)], _ = os.ReadFile(segPath(dir, n))
	}
	rs, err := List(dir, Filter{})
	if err != nil || len(rs) != 4 {
		t.Fatalf("List: %d receipts, %v", len(rs), err)
	}
	for _, r := range rs {
		if r.Version != 1 || r.Chain != "" {
			t.Fatalf("legacy record: v%d chain %q", r.Version, r.Chain)
		}
	}
	if r, err := Find(dir, "legacy:2"); err != nil || r.Seq != 2 {
		t.Fatalf("Find(legacy:2) = %v, %v", r, err)
	}

	s := openStore(t, Options{Dir: dir})
	issueN(t, s, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, before := range segsBefore {
		if after, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(after, before) {
			t.Fatalf("the legacy segment %s was changed", name)
		}
	}
	if _, err := os.Stat(segPath(dir, 4)); err == nil {
		t.Fatal("a writer added a segment to the legacy chain")
	}
	rep := Verify(dir, nil)
	if !rep.OK() || rep.Records != 6 || len(rep.Chains) != 2 || rep.Chains[0].Chain != "" || rep.Chains[0].Records != 4 || rep.Chains[1].Chain != s.Chain() {
		t.Fatalf("verify:\n%s", rep)
	}
	if !strings.Contains(rep.String(), "chain legacy: seq 1..4") || !strings.Contains(rep.String(), "OK: every signature and all 2 chains verify") {
		t.Fatalf("report:\n%s", rep)
	}
	all, err := List(dir, Filter{})
	if err != nil || len(all) != 6 || all[0].Chain != "" || all[5].Chain != s.Chain() {
		t.Fatalf("List after a new chain: %d receipts, %v", len(all), err)
	}
	if _, err := Find(dir, "1"); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "legacy:1") {
		t.Fatalf("Find(1) with two chains: %v, want ErrAmbiguous naming legacy:1", err)
	}
	var exp bytes.Buffer
	if err := Export(dir, &exp); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testDir(t), "export.jsonl")
	if err := os.WriteFile(file, exp.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	pubs, _ := ReadPublicKeys(PublicKeyPath(dir))
	if rep := VerifyKeys(file, pubs); !rep.OK() || rep.Records != 6 || len(rep.Chains) != 2 {
		t.Fatalf("export:\n%s", rep)
	}
}

// TestListMergesChainsByTime: list and export interleave the chains by
// time, each chain in its own order.
func TestListMergesChainsByTime(t *testing.T) {
	dir, _ := twoChains(t, 3)
	rs, err := List(dir, Filter{})
	if err != nil || len(rs) != 6 {
		t.Fatalf("List: %d, %v", len(rs), err)
	}
	for i := 1; i < len(rs); i++ {
		if !rs[i].Time.After(rs[i-1].Time) {
			t.Fatalf("List is not in time order at %d: %s then %s", i, rs[i-1].Time, rs[i].Time)
		}
	}
	var exp bytes.Buffer
	if err := Export(dir, &exp); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, r := range rs {
		want = append(append(want, r.Canonical()...), '\n')
	}
	if !bytes.Equal(exp.Bytes(), want) {
		t.Fatal("export is not in the order of list")
	}
	if got, _ := List(dir, Filter{Limit: 2}); len(got) != 2 || got[1].ID != rs[5].ID {
		t.Fatal("List with a limit does not keep the newest across chains")
	}
}

// TestOneChainsDamageLeavesTheOthers: a bad record in one chain is that
// chain's problem; the others verify, also in an export.
func TestOneChainsDamageLeavesTheOthers(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, chainDir string)
		reason Reason
		line   int
	}{
		{name: "a byte changed", reason: ReasonBadSignature, line: 2, tamper: func(t *testing.T, cd string) {
			data, _ := os.ReadFile(segPath(cd, 1))
			os.WriteFile(segPath(cd, 1), bytes.Replace(data, []byte(`"seq":2,"session":"sess-1"`), []byte(`"seq":2,"session":"sess-2"`), 1), 0o600)
		}},
		{name: "torn at the end", reason: ReasonTorn, line: 4, tamper: func(t *testing.T, cd string) {
			f, _ := os.OpenFile(segPath(cd, 1), os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(`{"allowed_by":"auto","args_sha`)
			f.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, chains := twoChains(t, 3)
			tt.tamper(t, chains[1])
			bad := filepath.Base(chains[1])
			rep := Verify(dir, nil)
			if rep.OK() || len(rep.Chains) != 2 {
				t.Fatalf("verify:\n%s", rep)
			}
			for _, c := range rep.Chains {
				switch {
				case c.Chain == bad && (c.Problem == nil || c.Problem.Reason != tt.reason || c.Problem.Line != tt.line ||
					c.Problem.Segment != ChainsDir+"/"+bad+"/"+segmentName(1) || c.Problem.Chain != bad):
					t.Fatalf("chain %s: problem %+v, want %s at line %d", bad, c.Problem, tt.reason, tt.line)
				case c.Chain != bad && (c.Problem != nil || c.Records != 3):
					t.Fatalf("the other chain %s: %+v", c.Chain, c)
				}
			}
			text := rep.String()
			if !strings.Contains(text, "FAIL: chains/"+bad+"/"+segmentName(1)) || !strings.Contains(text, "chain "+bad+": ") {
				t.Fatalf("report does not name the chain:\n%s", text)
			}
			if tt.reason == ReasonTorn {
				// The next writer of the chain notes the tail, and all verifies.
				s := openStore(t, Options{Dir: dir})
				r := issueN(t, s, 1)[0]
				s.Close()
				if r.Chain != bad || len(r.Torn) != 1 {
					t.Fatalf("the next writer took chain %s (torn %v), want the torn %s", r.Chain, r.Torn, bad)
				}
				if rep := Verify(dir, nil); !rep.OK() || len(rep.Torn) != 1 || rep.Torn[0].Chain != bad {
					t.Fatalf("after noting:\n%s", rep)
				}
			}
		})
	}
}

// TestRecordsCannotMoveBetweenChains: a record copied into another
// chain's segment is refused there even where its signature holds.
func TestRecordsCannotMoveBetweenChains(t *testing.T) {
	dir, chains := twoChains(t, 2)
	a, _ := os.ReadFile(segPath(chains[0], 1))
	b, _ := os.ReadFile(segPath(chains[1], 1))
	first := bytes.SplitAfter(a, []byte("\n"))[0]
	os.WriteFile(segPath(chains[1], 1), append(append([]byte{}, first...), b...), 0o600)
	rep := Verify(dir, nil)
	var p *Problem
	for _, c := range rep.Chains {
		if c.Chain == filepath.Base(chains[1]) {
			p = c.Problem
		}
	}
	if p == nil || p.Line != 1 || p.Reason != ReasonInserted || !strings.Contains(p.Detail, "chain "+filepath.Base(chains[0])) {
		t.Fatalf("want the moved record refused:\n%s", rep)
	}
}

// TestAChainCopiedAnywhereVerifies: one chain's segments verify on their
// own, in a directory of any name.
func TestAChainCopiedAnywhereVerifies(t *testing.T) {
	dir, chains := twoChains(t, 2)
	pubs, _ := ReadPublicKeys(PublicKeyPath(dir))
	for _, target := range []string{"audit", filepath.Base(chains[0])} {
		to := filepath.Join(testDir(t), target)
		os.MkdirAll(to, 0o700)
		b, _ := os.ReadFile(segPath(chains[0], 1))
		os.WriteFile(segPath(to, 1), b, 0o600)
		rep := VerifyKeys(to, pubs)
		if !rep.OK() || len(rep.Chains) != 1 || rep.Chains[0].Chain != filepath.Base(chains[0]) || rep.Records != 2 {
			t.Fatalf("copy in %s:\n%s", target, rep)
		}
	}
	if rep := Verify(chains[1], nil); !rep.OK() || rep.Records != 2 {
		t.Fatalf("a chain directory of the store, with the store's key file:\n%s", rep)
	}
}

func TestChainsAreListedInOrder(t *testing.T) {
	dir, chains := twoChains(t, 1)
	ids, err := listChains(dir)
	want := []string{filepath.Base(chains[0]), filepath.Base(chains[1])}
	slices.Sort(want)
	if err != nil || !slices.Equal(ids, want) {
		t.Fatalf("listChains = %v, %v; want %v", ids, err, want)
	}
	os.MkdirAll(filepath.Join(dir, ChainsDir, "not-a-chain"), 0o700)
	if ids, _ := listChains(dir); len(ids) != 2 {
		t.Fatalf("a directory that is not named by a chain id was listed: %v", ids)
	}
}
