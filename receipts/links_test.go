package receipts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// delegated issues two inner receipts and an outer one listing them, and
// returns the store directory and the receipts.
func delegated(t *testing.T) (string, []*Receipt) {
	t.Helper()
	dir := testDir(t)
	s := openStore(t, Options{Dir: dir, Clock: stepClock(goldenStart, time.Second)})
	inner := issueN(t, s, 2)
	e := testEntry(2)
	e.Tool, e.Attribution = "agent__researcher", "agent.researcher"
	e.Delegation = &Delegation{Model: "local/m1", Rounds: 3, InputTokens: 120, OutputTokens: 30, Inner: []string{inner[0].ID, inner[1].ID}}
	outer, err := s.Issue(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, append(inner, outer)
}

func TestDelegationRecord(t *testing.T) {
	dir, rs := delegated(t)
	outer := rs[2]
	line := outer.Canonical()
	if !bytes.Contains(line, []byte(`,"delegation":{"inner":["`+rs[0].ID+`","`+rs[1].ID+`"],"input_tokens":120,"model":"local/m1","output_tokens":30,"rounds":3},"duration_ms":`)) {
		t.Fatalf("record = %s", line)
	}
	back, err := ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	if d := back.Delegation; d == nil || d.Model != "local/m1" || d.Rounds != 3 || !slices.Equal(d.Inner, outer.Delegation.Inner) {
		t.Fatalf("parsed delegation = %+v", back.Delegation)
	}
	if rep := Verify(dir, nil); !rep.OK() {
		t.Fatalf("verify: %s", rep)
	}
	var detail bytes.Buffer
	if err := WriteDetail(&detail, back); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"model:", "local/m1", "rounds:", "120 in, 30 out", "inner:", rs[1].ID} {
		if !strings.Contains(detail.String(), w) {
			t.Errorf("detail lacks %q:\n%s", w, detail.String())
		}
	}
	for _, bad := range []string{
		strings.Replace(string(line), `"rounds":3`, `"rounds":0`, 1),
		strings.Replace(string(line), `,"delegation":{"inner":["`+rs[0].ID+`","`+rs[1].ID+`"],"input_tokens":120,"model":"local/m1","output_tokens":30,"rounds":3}`, `,"delegation":{}`, 1),
		strings.Replace(string(line), rs[0].ID, "not-an-id", 1),
	} {
		if _, err := ParseRecord([]byte(bad)); !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("accepted %s: %v", bad, err)
		}
	}
}

func TestIssueRefusesEmptyDelegation(t *testing.T) {
	s := openStore(t, Options{Dir: testDir(t)})
	for _, d := range []*Delegation{{}, {Inner: []string{"x"}}, {Rounds: -1, Model: "m"}} {
		e := testEntry(0)
		e.Delegation = d
		if _, err := s.Issue(context.Background(), e); !errors.Is(err, ErrInvalidEntry) {
			t.Errorf("Issue(%+v) err = %v", d, err)
		}
	}
}

// TestVerifyChecksLinks: a delegation that names a receipt the chain does
// not hold before it fails verification, even though every signature holds.
func TestVerifyChecksLinks(t *testing.T) {
	dir, rs := delegated(t)
	chain := onlyChain(t, dir)
	key, err := loadKeyFile(dir + "/" + PrivateKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(segPath(chain, 1))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	tests := []struct {
		name string
		edit func(d *Delegation)
		want string
	}{
		{name: "unknown inner", edit: func(d *Delegation) { d.Inner[1] = "01ARZ3NDEKTSV4RRFFQ69G5FAV" }, want: "not a verified record of this store"},
		{name: "inner after the outer", edit: func(d *Delegation) { d.Inner[0] = rs[2].ID }, want: "does not come before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := slices.Clone(lines)
			edited[2] = resign(t, lines[2], key, func(r *Receipt) { tt.edit(r.Delegation) })
			if err := os.WriteFile(segPath(chain, 1), joinLines(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.WriteFile(segPath(chain, 1), data, 0o644) })
			rep := Verify(dir, nil)
			if rep.OK() || rep.Problem == nil || rep.Problem.Reason != ReasonBrokenLink || rep.Problem.Seq != 3 ||
				!strings.Contains(rep.Problem.Detail, tt.want) {
				t.Fatalf("verify: %s", rep)
			}
		})
	}
}

func TestTree(t *testing.T) {
	dir, rs := delegated(t)
	n, err := Tree(dir, rs[2].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Inner) != 2 || n.Inner[0].Receipt.ID != rs[0].ID || n.Inner[1].Missing {
		t.Fatalf("tree = %+v", n)
	}
	var b bytes.Buffer
	if err := WriteTree(&b, n); err != nil {
		t.Fatal(err)
	}
	c := ChainName(rs[2].Chain)
	want := c + ":3 agent__researcher (agent.researcher) " + rs[2].AllowedBy + ", local/m1, 3 rounds, 120+30 tokens\n" +
		"├─ " + c + ":1 " + rs[0].Tool + " (" + rs[0].Attribution + ") " + rs[0].AllowedBy + "\n" +
		"└─ " + c + ":2 " + rs[1].Tool + " (" + rs[1].Attribution + ") " + rs[1].AllowedBy + "\n"
	if b.String() != want {
		t.Errorf("tree:\n%s\nwant:\n%s", b.String(), want)
	}
}
