package receipts

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pristine builds a store with n receipts in one segment and returns its
// chain's directory, lines and signing key.
func pristine(t *testing.T, n int) (dir string, lines [][]byte, key *signingKey) {
	t.Helper()
	store := testDir(t)
	s := openStore(t, Options{Dir: store, Clock: stepClock(goldenStart, time.Second)})
	issueN(t, s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dir = s.ChainDir()
	data, err := os.ReadFile(segPath(dir, 1))
	if err != nil {
		t.Fatal(err)
	}
	key, err = loadKeyFile(filepath.Join(store, PrivateKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	return dir, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")), key
}

func joinLines(lines [][]byte) []byte {
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

// resign returns line re-signed by k after edit changed the record.
func resign(t *testing.T, line []byte, k *signingKey, edit func(r *Receipt)) []byte {
	t.Helper()
	r, err := ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	r.raw = nil
	if edit != nil {
		edit(r)
	}
	r.Sig = encodeSig(ed25519.Sign(k.priv, r.SigningBytes()))
	return r.Canonical()
}

// flipBase64 changes the base64 character at i to another valid one.
func flipBase64(b []byte, i int) {
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
}

func hashOf(line []byte) string { return sha256Hex(line) }

func otherKey(t *testing.T) *signingKey {
	t.Helper()
	k, err := generateKey(seededRand("another key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestVerifyNamesTheDamage(t *testing.T) {
	other := otherKey(t)
	tests := []struct {
		name   string
		tamper func(t *testing.T, lines [][]byte, key *signingKey) []byte
		keys   func(key *signingKey) []ed25519.PublicKey // nil: the public key file
		line   int                                       // 0: the log must verify
		seq    uint64
		reason Reason
		last   uint64 // with line 0: the expected head seq
	}{
		{
			name: "untouched",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(l)
			},
			last: 6,
		},
		{
			name: "truncated inside the last record",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				d := joinLines(l)
				return d[:len(d)-40]
			},
			line: 6, reason: ReasonTorn,
		},
		{
			name: "truncated at a record boundary is not detectable",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(l[:5])
			},
			last: 5,
		},
		{
			name: "one byte flipped inside a value",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[2] = bytes.Replace(l[2], []byte(`"sess-1"`), []byte(`"sess-2"`), 1)
				return joinLines(l)
			},
			line: 3, seq: 3, reason: ReasonBadSignature,
		},
		{
			name: "one byte flipped in the signature",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				flipBase64(l[2], bytes.Index(l[2], []byte(`"sig":"`))+10)
				return joinLines(l)
			},
			line: 3, seq: 3, reason: ReasonBadSignature,
		},
		{
			name: "one byte flipped so the line is not JSON",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[2][0] = 'x'
				return joinLines(l)
			},
			line: 3, reason: ReasonMalformed,
		},
		{
			name: "last record garbled",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[5][len(l[5])-1] = ']'
				return joinLines(l)
			},
			line: 6, reason: ReasonTorn,
		},
		{
			name: "two lines reordered",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[2], l[3] = l[3], l[2]
				return joinLines(l)
			},
			line: 3, seq: 4, reason: ReasonReordered,
		},
		{
			name: "a record removed",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(append(l[:2:2], l[3:]...))
			},
			line: 3, seq: 4, reason: ReasonRemoved,
		},
		{
			name: "the first record removed",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(l[1:])
			},
			line: 1, seq: 2, reason: ReasonRemoved,
		},
		{
			name: "a forged record inserted",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				forged := bytes.Replace(l[2], []byte(`"tool":"file_read"`), []byte(`"tool":"file_rm"`), 1)
				return joinLines(append(l[:3:3], append([][]byte{forged}, l[3:]...)...))
			},
			line: 4, seq: 3, reason: ReasonInserted,
		},
		{
			name: "a record replayed",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(append(l[:3:3], append([][]byte{l[2]}, l[3:]...)...))
			},
			line: 4, seq: 3, reason: ReasonInserted,
		},
		{
			name: "a record re-signed with another key",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[2] = resign(t, l[2], other, func(r *Receipt) { r.KeyID = other.id; r.Tool = "shell" })
				return joinLines(l)
			},
			line: 3, seq: 3, reason: ReasonUnknownKey,
		},
		{
			name: "a record re-signed with another key under the real key id",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				l[2] = resign(t, l[2], other, func(r *Receipt) { r.Tool = "shell" })
				return joinLines(l)
			},
			line: 3, seq: 3, reason: ReasonBadSignature,
		},
		{
			name: "a signed record skips a seq",
			tamper: func(t *testing.T, l [][]byte, k *signingKey) []byte {
				next := resign(t, l[5], k, func(r *Receipt) { r.Seq = 8; r.Prev = hashOf(l[5]) })
				return joinLines(append(l, next))
			},
			line: 7, seq: 8, reason: ReasonGap,
		},
		{
			name: "a signed record breaks the chain",
			tamper: func(t *testing.T, l [][]byte, k *signingKey) []byte {
				next := resign(t, l[5], k, func(r *Receipt) { r.Seq = 7; r.Prev = hashOf(l[4]) })
				return joinLines(append(l, next))
			},
			line: 7, seq: 7, reason: ReasonBrokenChain,
		},
		{
			name: "the key changes without a rotation record",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				next := resign(t, l[5], other, func(r *Receipt) { r.Seq = 7; r.Prev = hashOf(l[5]); r.KeyID = other.id })
				return joinLines(append(l, next))
			},
			keys: func(k *signingKey) []ed25519.PublicKey { return []ed25519.PublicKey{k.pub, other.pub} },
			line: 7, seq: 7, reason: ReasonUnknownKey,
		},
		{
			name: "verified with the wrong public key",
			tamper: func(t *testing.T, l [][]byte, _ *signingKey) []byte {
				return joinLines(l)
			},
			keys: func(*signingKey) []ed25519.PublicKey { return []ed25519.PublicKey{other.pub} },
			line: 1, seq: 1, reason: ReasonUnknownKey,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, lines, key := pristine(t, 6)
			if err := os.WriteFile(segPath(dir, 1), tt.tamper(t, lines, key), 0o600); err != nil {
				t.Fatal(err)
			}
			var keys []ed25519.PublicKey
			if tt.keys != nil {
				keys = tt.keys(key)
			}
			rep := VerifyKeys(dir, keys)
			if rep.Err != nil {
				t.Fatalf("Verify: %v", rep.Err)
			}
			if tt.line == 0 {
				if !rep.OK() || rep.LastSeq != tt.last {
					t.Fatalf("want OK with head seq %d, got:\n%s", tt.last, rep)
				}
				return
			}
			p := rep.Problem
			if p == nil {
				t.Fatalf("want a problem at line %d, got:\n%s", tt.line, rep)
			}
			if p.Segment != segmentName(1) || p.Line != tt.line || (tt.seq != 0 && p.Seq != tt.seq) || p.Reason != tt.reason {
				t.Fatalf("problem = %s\nwant line %d seq %d: %s", p, tt.line, tt.seq, tt.reason)
			}
			if !strings.Contains(rep.String(), "FAIL: "+segmentName(1)) {
				t.Errorf("report text does not name the record:\n%s", rep)
			}
		})
	}
}

// multiSegment builds a store whose records span three segments: three
// records, a key rotation, two records and a torn tail, then two records
// after reopening (the first noting the tail). It returns the chain's
// directory.
func multiSegment(t *testing.T) string {
	t.Helper()
	store := testDir(t)
	s := openStore(t, Options{Dir: store})
	issueN(t, s, 3)
	if _, err := s.RotateKey(context.Background()); err != nil {
		t.Fatal(err)
	}
	issueN(t, s, 2)
	s.Close()
	dir := s.ChainDir()
	f, err := os.OpenFile(segPath(dir, 2), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"allowed_by":"auto","args_sha`)
	f.Close()
	s = openStore(t, Options{Dir: store})
	issueN(t, s, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerifyAcrossSegments(t *testing.T) {
	tests := []struct {
		name    string
		tamper  func(t *testing.T, dir string)
		segment string
		line    int
		reason  Reason
	}{
		{name: "untouched", tamper: func(*testing.T, string) {}},
		{
			name: "a middle segment removed",
			tamper: func(t *testing.T, dir string) {
				if err := os.Remove(segPath(dir, 2)); err != nil {
					t.Fatal(err)
				}
			},
			segment: segmentName(3), line: 1, reason: ReasonRemoved,
		},
		{
			name: "the last segment removed leaves the torn tail unnoted",
			tamper: func(t *testing.T, dir string) {
				os.Remove(segPath(dir, 3))
			},
			segment: segmentName(2), line: 3, reason: ReasonTorn,
		},
		{
			name: "the first segment removed",
			tamper: func(t *testing.T, dir string) {
				os.Remove(segPath(dir, 1))
			},
			segment: segmentName(2), line: 1, reason: ReasonRemoved,
		},
		{
			name: "the noted torn bytes changed",
			tamper: func(t *testing.T, dir string) {
				data, _ := os.ReadFile(segPath(dir, 2))
				data[len(data)-3] = 'X'
				os.WriteFile(segPath(dir, 2), data, 0o600)
			},
			segment: segmentName(2), line: 3, reason: ReasonTorn,
		},
		{
			name: "the noted torn bytes removed",
			tamper: func(t *testing.T, dir string) {
				data, _ := os.ReadFile(segPath(dir, 2))
				i := bytes.LastIndexByte(data, '\n')
				os.WriteFile(segPath(dir, 2), data[:i+1], 0o600)
			},
			segment: segmentName(3), line: 1, reason: ReasonTorn,
		},
		{
			name: "the segments swapped",
			tamper: func(t *testing.T, dir string) {
				os.Rename(segPath(dir, 2), segPath(dir, 9))
				os.Rename(segPath(dir, 3), segPath(dir, 2))
				os.Rename(segPath(dir, 9), segPath(dir, 3))
			},
			segment: segmentName(2), line: 1, reason: ReasonReordered,
		},
		{
			name: "the endorsement changed",
			tamper: func(t *testing.T, dir string) {
				data, _ := os.ReadFile(segPath(dir, 2))
				flipBase64(data, bytes.Index(data, []byte(`"endorsement":"`))+20)
				os.WriteFile(segPath(dir, 2), data, 0o600)
			},
			segment: segmentName(2), line: 1, reason: ReasonBadSignature,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := multiSegment(t)
			tt.tamper(t, dir)
			rep := Verify(dir, nil)
			if rep.Err != nil {
				t.Fatal(rep.Err)
			}
			if tt.line == 0 {
				if !rep.OK() || rep.Records != 7 || len(rep.Torn) != 1 || len(rep.Keys) != 2 {
					t.Fatalf("want OK, 7 records, 1 torn tail, 2 keys; got:\n%s", rep)
				}
				return
			}
			p := rep.Problem
			if p == nil || p.Segment != tt.segment || p.Line != tt.line || p.Reason != tt.reason {
				t.Fatalf("got:\n%s\nwant %s line %d: %s", rep, tt.segment, tt.line, tt.reason)
			}
		})
	}
}

func TestVerifyWithoutThePrivateKey(t *testing.T) {
	dir := multiSegment(t)
	pubs, err := ReadPublicKeys(PublicKeyPath(filepath.Dir(filepath.Dir(dir))))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := testDir(t)
	segs, _ := listSegments(dir)
	for _, s := range segs {
		b, _ := os.ReadFile(s.path)
		os.WriteFile(filepath.Join(elsewhere, s.name), b, 0o600)
	}

	rep := Verify(elsewhere, nil)
	if !errors.Is(rep.Err, ErrNoPublicKey) || !strings.Contains(rep.Err.Error(), "--pubkey") {
		t.Fatalf("without a key file: want ErrNoPublicKey naming --pubkey, got %v", rep.Err)
	}
	if rep := Verify(elsewhere, pubs[0]); !rep.OK() || rep.Records != 7 {
		t.Fatalf("with the first public key:\n%s", rep)
	}

	var exp bytes.Buffer
	if err := Export(dir, &exp); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(elsewhere, "export.jsonl")
	os.WriteFile(file, exp.Bytes(), 0o600)
	if rep := Verify(file, pubs[1]); !rep.OK() || rep.Records != 7 || rep.FirstSeq != 1 {
		t.Fatalf("export with the rotated key:\n%s", rep)
	}

	// A slice of the export starts mid-chain: it verifies from its first record.
	lines := bytes.SplitAfter(exp.Bytes(), []byte("\n"))
	os.WriteFile(file, bytes.Join(lines[3:], nil), 0o600)
	if rep := Verify(file, pubs[0]); !rep.OK() || rep.FirstSeq != 4 {
		t.Fatalf("export slice:\n%s", rep)
	}
}

func TestVerifyUnreadable(t *testing.T) {
	rep := Verify(filepath.Join(testDir(t), "missing"), nil)
	if rep.Err == nil || rep.OK() || !strings.HasPrefix(rep.String(), "receipts: ") {
		t.Fatalf("missing dir: %s", rep)
	}
	if rep := Verify(testDir(t), make(ed25519.PublicKey, 3)); !errors.Is(rep.Err, ErrInvalidKey) {
		t.Fatalf("short key: %v", rep.Err)
	}
	empty := testDir(t)
	pub, _, _ := ed25519.GenerateKey(nil)
	if rep := Verify(empty, pub); !rep.OK() || rep.Records != 0 {
		t.Fatalf("empty dir: %s", rep)
	}
}
