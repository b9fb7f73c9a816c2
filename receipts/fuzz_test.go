package receipts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
)

// goldenLines returns every line of the golden segments (version 2, the
// first five) and of the legacy store's (version 1), as fuzz seeds.
func goldenLines(f *testing.F) [][]byte {
	f.Helper()
	var paths []string
	for _, name := range goldenFiles(goldenChain(f))[1:] {
		paths = append(paths, filepath.Join(goldenDir, name))
	}
	for n := 1; n <= 3; n++ {
		paths = append(paths, segPath(legacyDir, n))
	}
	var out [][]byte
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))...)
	}
	return out
}

func FuzzParseRecord(f *testing.F) {
	for _, l := range goldenLines(f) {
		f.Add(l)
		f.Add(l[:len(l)/3])
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":2,"seq":1e400}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseRecord(line)
		if err != nil {
			return
		}
		if got := r.Canonical(); !bytes.Equal(got, line) {
			t.Fatalf("accepted a line that does not round-trip:\n in: %q\nout: %q", line, got)
		}
		if c, err := jcs.Transform(line); err != nil || !bytes.Equal(c, line) {
			t.Fatalf("accepted a line that is not RFC 8785 canonical (%v): %q", err, line)
		}
		if r.raw = nil; !bytes.Equal(appendRecord(nil, r, true), line) {
			t.Fatal("re-encoding the parsed fields changes the bytes")
		}
		if seq, sig, err := ParseToken(r.Token()); err != nil || seq != r.Seq || sig != r.Sig {
			t.Fatalf("token of an accepted record does not parse: %v", err)
		}
		var back Receipt
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatalf("UnmarshalJSON refuses what ParseRecord accepts: %v", err)
		}
	})
}

// FuzzVerify feeds arbitrary segment bytes to Verify, List and Export.
func FuzzVerify(f *testing.F) {
	// Seeds are single records: the fuzzer minimizes every new input, and
	// minimizing whole logs takes longer than a short fuzz run.
	lines := goldenLines(f)
	nl := func(b []byte) []byte { return append(append([]byte{}, b...), '\n') }
	f.Add(nl(lines[0]), []byte(nil))
	f.Add(nl(lines[0])[:300], nl(lines[1]))
	f.Add(nl(lines[2]), nl(lines[4]))
	f.Add(nl(lines[5]), nl(lines[0]))
	f.Add([]byte("\n\n{\n"), []byte("x"))
	pub, err := os.ReadFile(PublicKeyPath(goldenDir))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seg1, seg2 []byte) {
		dir := testDir(t)
		os.WriteFile(PublicKeyPath(dir), pub, 0o644)
		os.WriteFile(segPath(dir, 1), seg1, 0o600)
		if seg2 != nil {
			os.WriteFile(segPath(dir, 2), seg2, 0o600)
		}
		rep := Verify(dir, nil)
		_ = rep.String()
		if rep.Err != nil {
			t.Fatalf("Verify could not run: %v", rep.Err)
		}
		if rep.OK() && rep.Records == 0 && len(bytes.TrimSpace(seg1)) > 0 && len(rep.Torn) == 0 {
			t.Fatalf("non-empty input verified with no records:\n%s", rep)
		}
		_, _ = List(dir, Filter{})
		_ = Verify(segPath(dir, 1), nil)
	})
}

func FuzzCanonicalArgs(f *testing.F) {
	for _, e := range goldenEntries {
		f.Add([]byte(e.Args))
	}
	f.Add([]byte(`{"a":{"b":[{"token":1},{"c":"\u00e9"}]},"key":null}`))
	f.Add([]byte(`{"n":-0.0,"m":1e-7,"big":123456789012345678901234567890}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, args []byte) {
		c, err := CanonicalArgs(args)
		if err != nil {
			return
		}
		if again, err := jcs.Transform(c); err != nil || !bytes.Equal(again, c) {
			t.Fatalf("canonical args are not a fixed point (%v): %q", err, c)
		}
		red, err := RedactArgs(c)
		if err != nil {
			t.Fatalf("RedactArgs refuses canonical args %q: %v", c, err)
		}
		if again, err := jcs.Transform(red); err != nil || !bytes.Equal(again, red) {
			t.Fatalf("redacted args are not canonical (%v): %q", err, red)
		}
		var v any
		if err := json.Unmarshal(red, &v); err != nil {
			t.Fatal(err)
		}
		assertRedacted(t, v)
	})
}

func assertRedacted(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if SecretKey(k) && val != Redacted {
				t.Fatalf("secret-looking key %q kept its value %v", k, val)
			}
			assertRedacted(t, val)
		}
	case []any:
		for _, e := range x {
			assertRedacted(t, e)
		}
	}
}

func FuzzParseToken(f *testing.F) {
	f.Add("tr1.1." + string(bytes.Repeat([]byte("A"), 86)))
	f.Add("tr1.18446744073709551616.x")
	f.Add("tr1..")
	f.Fuzz(func(t *testing.T, tok string) {
		seq, sig, err := ParseToken(tok)
		if err != nil {
			return
		}
		r := Receipt{Seq: seq, Sig: sig}
		if seq2, sig2, err := ParseToken(r.Token()); err != nil || seq2 != seq || sig2 != sig {
			t.Fatalf("token does not round-trip: %q", tok)
		}
	})
}
