package receipts

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goldenDir holds the golden store FORMAT.md quotes; legacyDir a store
// written before chains existed (version 1 records in the store
// directory), which must keep verifying and listing.
const (
	goldenDir = "testdata/golden"
	legacyDir = "testdata/legacy"
)

var goldenStart = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

// goldenEntries are the calls of the golden store, in order.
var goldenEntries = []Entry{
	{
		Tool: "file_read", Attribution: "builtin.file_read", Channel: "cli", Profile: "default", Session: "s-42",
		Tier: TierLow, AllowedBy: AllowedAuto,
		Args:   json.RawMessage(`{ "path": "README.md", "limit": 1.50e1 }`),
		Result: "# talon\n", Duration: 3 * time.Millisecond,
	},
	{
		Tool: "shell", Attribution: "builtin.shell", Channel: "mcp", Profile: "dev", Session: "s-42",
		Tier: TierMedium, AllowedBy: AllowedByUser,
		Args:   json.RawMessage(`{"command":"mkdir build","env":{"API_TOKEN":"s3cr3t","LANG":"C"},"steps":[{"Password":"hunter2"}]}`),
		Result: "", Duration: 27 * time.Millisecond,
	},
	{
		Tool: "http_request", Attribution: "wasm.weather", Channel: "mcp", Profile: "dev", Session: "s-43",
		Tier: TierHigh, AllowedBy: AllowedAlways,
		Args:   json.RawMessage(`{"url":"https://example.com/\u00e9t\u00e9","method":"POST"}`),
		Result: "{\"ok\":true}", Duration: 1500 * time.Millisecond,
	},
	{
		Tool: "file_write", Attribution: "builtin.file_write", Channel: "cli", Profile: "default", Session: "s-44",
		Tier: TierMedium, AllowedBy: AllowedAuto,
		Args:   json.RawMessage(`{"path":"notes.txt","content":"line one\nline \"two\"\t\u0001"}`),
		Result: "wrote 27 bytes", Duration: 0,
	},
}

// buildGoldenStore writes the golden store into dir: two receipts, a key
// rotation, a third receipt, a torn tail, a reopen and a fourth receipt,
// all in one chain. It returns the two keys, the first receipt and the
// chain's directory.
func buildGoldenStore(t *testing.T, dir string) (keys [2]*signingKey, first *Receipt, chainDir string) {
	t.Helper()
	opts := Options{Dir: dir, Clock: stepClock(goldenStart, 1500*time.Millisecond), StoreArguments: true, rand: seededRand("talon receipts golden vector")}
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	keys[0] = s.w.key
	ctx := context.Background()
	for i, e := range goldenEntries[:2] {
		r, err := s.Issue(ctx, e)
		if err != nil {
			t.Fatalf("Issue %d: %v", i, err)
		}
		if i == 0 {
			first = r
		}
	}
	if _, err := s.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	r3, err := s.Issue(ctx, goldenEntries[2])
	if err != nil {
		t.Fatal(err)
	}
	keys[1] = s.w.key
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	chainDir = s.ChainDir()
	// A crash that cut the next write short: half a line, no newline.
	f, err := os.OpenFile(segPath(chainDir, 2), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(r3.raw[:len(r3.raw)/2]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Issue(ctx, goldenEntries[3]); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.ChainDir() != chainDir {
		t.Fatalf("reopening wrote chain %s, not the torn one", s.Chain())
	}
	return keys, first, chainDir
}

// goldenFiles are the files of the golden store, relative to its directory.
func goldenFiles(chain string) []string {
	out := []string{PublicKeyFile}
	for n := 1; n <= 3; n++ {
		out = append(out, ChainsDir+"/"+chain+"/"+segmentName(n))
	}
	return out
}

// goldenChain is the chain id of the committed golden store.
func goldenChain(t testing.TB) string {
	t.Helper()
	ids, err := listChains(goldenDir)
	if err != nil || len(ids) != 1 {
		t.Fatalf("golden store chains %v (%v), want one", ids, err)
	}
	return ids[0]
}

// goldenVector is the worked example FORMAT.md quotes.
func goldenVector(keys [2]*signingKey, r *Receipt) string {
	canonArgs, _ := CanonicalArgs(goldenEntries[0].Args)
	var b strings.Builder
	p := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, v) }
	b.WriteString("# Receipt format worked example. Regenerate: go test ./receipts -run TestGolden -update\n")
	p("key seed (hex)", hex.EncodeToString(keys[0].priv.Seed()))
	p("public key line", FormatPublicKey(keys[0].pub))
	p("public key (hex)", hex.EncodeToString(keys[0].pub))
	p("key_id", keys[0].id)
	p("args as called", string(goldenEntries[0].Args))
	p("canonical args", string(canonArgs))
	p("chain", r.Chain)
	p("args_sha256", r.ArgsSHA256)
	p("result text (Go syntax)", fmt.Sprintf("%q", goldenEntries[0].Result))
	p("result_sha256", r.ResultSHA256)
	p("signing bytes", string(r.SigningBytes()))
	p("sig", r.Sig)
	p("sig (hex)", hex.EncodeToString(mustSig(r.Sig)))
	p("line", string(r.Canonical()))
	p("line sha256 (prev of seq 2)", r.Hash())
	p("token", r.Token())
	p("rotated key line", FormatPublicKey(keys[1].pub))
	return b.String()
}

func mustSig(s string) []byte {
	b, err := decodeSig(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestGolden(t *testing.T) {
	dir := testDir(t)
	keys, first, _ := buildGoldenStore(t, dir)
	files := map[string][]byte{"vector.txt": []byte(goldenVector(keys, first))}
	for _, name := range goldenFiles(first.Chain) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	if *update {
		if err := os.RemoveAll(goldenDir); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			path := filepath.Join(goldenDir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, got := range files {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(goldenDir, name))
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

// TestGoldenVerifies checks the committed golden store and the legacy
// store (version 1, no chains) themselves, with each way of choosing the
// trusted key.
func TestGoldenVerifies(t *testing.T) {
	for _, store := range []struct {
		dir, chain string
		torn       string
	}{
		{dir: goldenDir, chain: goldenChain(t), torn: ChainsDir + "/" + goldenChain(t) + "/" + segmentName(2)},
		{dir: legacyDir, chain: "", torn: segmentName(2)},
	} {
		pubs, err := ReadPublicKeys(PublicKeyPath(store.dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(pubs) != 2 {
			t.Fatalf("%s public key file lists %d keys, want 2", store.dir, len(pubs))
		}
		tests := []struct {
			name string
			keys []ed25519.PublicKey
		}{
			{"public key file", nil},
			{"first key only, trusting the endorsement", pubs[:1]},
			{"rotated key only, trusting from_pubkey", pubs[1:]},
		}
		for _, tt := range tests {
			t.Run(store.dir+"/"+tt.name, func(t *testing.T) {
				rep := VerifyKeys(store.dir, tt.keys)
				if !rep.OK() {
					t.Fatalf("store does not verify:\n%s", rep)
				}
				if rep.Records != 4 || rep.LastSeq != 4 || len(rep.Keys) != 2 || len(rep.Chains) != 1 || rep.Chains[0].Chain != store.chain {
					t.Errorf("records=%d last=%d keys=%v chains=%+v, want 4, 4, two keys and chain %q", rep.Records, rep.LastSeq, rep.Keys, rep.Chains, store.chain)
				}
				if len(rep.Torn) != 1 || rep.Torn[0].Segment != store.torn || rep.Torn[0].NotedBy != 4 {
					t.Errorf("torn tails = %+v, want one in %s noted by seq 4", rep.Torn, store.torn)
				}
			})
		}
	}
}

// TestFormatDocQuotesGolden keeps FORMAT.md's worked example true: every
// value it quotes must be the golden one.
func TestFormatDocQuotesGolden(t *testing.T) {
	doc, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	vec, err := os.ReadFile(filepath.Join(goldenDir, "vector.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(vec), "\n") {
		k, v, ok := strings.Cut(l, ": ")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		if !bytes.Contains(doc, []byte(v)) {
			t.Errorf("FORMAT.md does not quote the golden %s:\n%s", k, v)
		}
	}
	for _, name := range goldenFiles(goldenChain(t))[1:] {
		seg, err := os.ReadFile(filepath.Join(goldenDir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(bytes.TrimSuffix(seg, []byte("\n")), []byte("\n")) {
			if !bytes.Contains(doc, l) {
				t.Errorf("FORMAT.md does not quote this line of %s:\n%s", name, l)
			}
		}
	}
}
