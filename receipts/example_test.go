package receipts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/talonhq/talon/receipts"
)

// Open a store, issue a receipt for a successful call, and verify the log
// offline with the store's public key.
func Example() {
	dir, err := os.MkdirTemp("", "receipts-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := receipts.Open(receipts.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	r, err := s.Issue(context.Background(), receipts.Entry{
		Tool:        "file_read",
		Attribution: "builtin.file_read",
		Channel:     "cli",
		Profile:     "default",
		Tier:        receipts.TierLow,
		AllowedBy:   receipts.AllowedAuto,
		Args:        json.RawMessage(`{"path":"README.md"}`),
		Result:      "# talon\n",
		Duration:    3 * time.Millisecond,
	})
	if err != nil {
		log.Fatal(err)
	}
	pub := s.PublicKey()
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	fmt.Println("seq:", r.Seq)
	fmt.Println("token starts with tr1.1.:", strings.HasPrefix(r.Token(), "tr1.1."))
	report := receipts.Verify(dir, pub)
	fmt.Println("verified:", report.OK(), report.Records)
	// Output:
	// seq: 1
	// token starts with tr1.1.: true
	// verified: true 1
}

// Open makes a signing key on first use; its public half is what an
// auditor needs.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	s, err := receipts.Open(receipts.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	line := receipts.FormatPublicKey(s.PublicKey())
	fmt.Println(strings.HasPrefix(line, "talon-receipt-key-v1 ed25519 "))
	fmt.Println(strings.HasSuffix(line, "key_id="+s.KeyID()))
	// Output:
	// true
	// true
}

// Rotating the key starts a new segment whose first receipt names the
// previous key and is endorsed by it.
func ExampleStore_RotateKey() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	s, _ := receipts.Open(receipts.Options{Dir: dir})
	old := s.KeyID()
	if _, err := s.RotateKey(context.Background()); err != nil {
		log.Fatal(err)
	}
	r, _ := s.Issue(context.Background(), receipts.Entry{
		Tool: "calculator", Attribution: "builtin.calculator",
		Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Result: "4",
	})
	s.Close()
	fmt.Println(r.Rotation.FromKeyID == old, r.KeyID == s.KeyID(), r.Endorsement != "")
	// Output: true true true
}

// List the receipts of one tool and print them as a table.
func ExampleList() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, _ := receipts.Open(receipts.Options{Dir: dir, Clock: func() time.Time { return at }})
	for _, tool := range []string{"shell", "file_read", "shell"} {
		s.Issue(context.Background(), receipts.Entry{
			Tool: tool, Attribution: "builtin." + tool, Session: "s1",
			Tier: receipts.TierMedium, AllowedBy: receipts.AllowedByUser,
		})
	}
	s.Close()

	rs, err := receipts.List(dir, receipts.Filter{Tool: "shell"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rs), rs[0].Seq, rs[1].Seq)
	// Output: 2 1 3
}

// Find a receipt by the token that was appended to a tool result.
func ExampleFind() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	s, _ := receipts.Open(receipts.Options{Dir: dir})
	r, _ := s.Issue(context.Background(), receipts.Entry{
		Tool: "calculator", Attribution: "builtin.calculator",
		Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Result: "4",
	})
	s.Close()

	found, err := receipts.Find(dir, r.Token())
	fmt.Println(found.Tool, found.Seq, err)
	// Output: calculator 1 <nil>
}

// Export a log and verify the copy with nothing but the public key text.
func ExampleExport() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	s, _ := receipts.Open(receipts.Options{Dir: dir})
	s.Issue(context.Background(), receipts.Entry{
		Tool: "calculator", Attribution: "builtin.calculator",
		Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Result: "4",
	})
	keyLine := receipts.FormatPublicKey(s.PublicKey())
	s.Close()

	out, _ := os.Create(dir + "/export.jsonl")
	if err := receipts.Export(dir, out); err != nil {
		log.Fatal(err)
	}
	out.Close()

	pub, err := receipts.ParsePublicKey(keyLine)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(receipts.Verify(dir+"/export.jsonl", pub).OK())
	// Output: true
}

// Verify names the first bad record and why.
func ExampleVerify() {
	dir, _ := os.MkdirTemp("", "receipts-example-")
	defer os.RemoveAll(dir)
	s, _ := receipts.Open(receipts.Options{Dir: dir})
	for _, result := range []string{"1", "2", "3"} {
		s.Issue(context.Background(), receipts.Entry{
			Tool: "calculator", Attribution: "builtin.calculator",
			Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Result: result,
		})
	}
	s.Close()

	// Someone edits the second receipt after the fact.
	seg := filepath.Join(s.ChainDir(), "segment-000001.jsonl")
	data, _ := os.ReadFile(seg)
	lines := strings.Split(string(data), "\n")
	lines[1] = strings.Replace(lines[1], `"tier":"low"`, `"tier":"high"`, 1)
	os.WriteFile(seg, []byte(strings.Join(lines, "\n")), 0o600)

	report := receipts.Verify(dir, nil)
	p := report.Problem
	fmt.Println(report.OK(), p.Chain == s.Chain(), filepath.Base(p.Segment), p.Line, p.Seq, p.Reason)
	// Output: false true segment-000001.jsonl 2 2 bad signature
}
