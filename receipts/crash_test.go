package receipts

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// helperCmd re-executes the test binary as a helper process.
func helperCmd(mode, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDirEnv+"="+dir)
	return cmd
}

// runKilledWriter starts a writer process, SIGKILLs it once it has printed
// `after` seqs, and returns every seq it printed (each printed only after
// Issue returned, so each must be durable).
func runKilledWriter(t *testing.T, dir string, after int) []uint64 {
	t.Helper()
	cmd := helperCmd("writer", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		q, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			// The kill can cut the last printed line short; it was not
			// acknowledged to anyone.
			continue
		}
		seqs = append(seqs, q)
		if len(seqs) == after {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if len(seqs) < after {
		t.Fatalf("writer printed %d seqs before exiting (%v): %s", len(seqs), err, stderr.String())
	}
	return seqs
}

// tear appends half of the last record again, without a newline, to the
// last non-empty segment of the store's one chain: what a write cut short
// by a crash leaves. It returns the segment, relative to the store
// directory, and the line where the torn bytes start.
func tear(t *testing.T, dir string) (segment string, line int) {
	t.Helper()
	cd := onlyChain(t, dir)
	rel := ChainsDir + "/" + filepath.Base(cd) + "/"
	segs, err := listSegments(cd)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		data, _ := os.ReadFile(segs[i].path)
		if len(data) == 0 {
			continue
		}
		lines := splitLines(data, 0)
		last := lines[len(lines)-1]
		if !last.complete {
			// The kill itself cut a write short.
			return rel + segs[i].name, len(lines)
		}
		f, err := os.OpenFile(segs[i].path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(last.data[:len(last.data)/2])
		f.Close()
		return rel + segs[i].name, len(lines) + 1
	}
	t.Fatal("no records to tear")
	return "", 0
}

func TestKilledWriterLosesNoAcknowledgedReceipt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	dir := testDir(t)
	rounds := []struct {
		name  string
		after int
		tear  bool
	}{
		{"kill", 40, false},
		{"kill, then tear the tail", 90, true},
		{"reopen after the tear, kill", 25, false},
		{"kill, then tear again", 60, true},
		{"kill right away", 1, false},
	}
	printed := map[uint64]bool{}
	for _, rd := range rounds {
		for _, q := range runKilledWriter(t, dir, rd.after) {
			printed[q] = true
		}
		rs, err := List(dir, Filter{})
		if err != nil {
			t.Fatalf("%s: List: %v", rd.name, err)
		}
		have := map[uint64]bool{}
		for _, r := range rs {
			have[r.Seq] = true
		}
		for q := range printed {
			if !have[q] {
				t.Fatalf("%s: seq %d was acknowledged but is not in the log", rd.name, q)
			}
		}
		rep := Verify(dir, nil)
		if !rep.OK() && rep.Problem.Reason != ReasonTorn {
			t.Fatalf("%s: after the kill:\n%s", rd.name, rep)
		}
		if rd.tear {
			seg, line := tear(t, dir)
			rep := Verify(dir, nil)
			if p := rep.Problem; p == nil || p.Reason != ReasonTorn || p.Segment != seg || p.Line != line {
				t.Fatalf("%s: want a torn record at %s line %d:\n%s", rd.name, seg, line, rep)
			}
		}
	}

	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Issue(context.Background(), testEntry(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rep := Verify(dir, nil)
	if !rep.OK() || rep.LastSeq != r.Seq || rep.Records != int(r.Seq) {
		t.Fatalf("final:\n%s", rep)
	}
	if len(rep.Torn) < 2 {
		t.Fatalf("want both torn tails noted, got %d:\n%s", len(rep.Torn), rep)
	}
	segs, _ := listSegments(onlyChain(t, dir))
	if len(segs) < 3 {
		t.Errorf("each torn tail should have started a new segment; %d segments", len(segs))
	}
}

// TestWritersInSeveralProcesses: processes that open one new store at the
// same time (racing to make its key) all write, each its own chain, and
// every receipt each of them acknowledged is in the log, which verifies.
func TestWritersInSeveralProcesses(t *testing.T) {
	const procs = 3
	dir := testDir(t)
	type helper struct {
		cmd    *exec.Cmd
		in     io.WriteCloser
		out    *bufio.Scanner
		stderr *bytes.Buffer
	}
	var hs []helper
	for range procs {
		cmd := helperCmd("issue", dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		hs = append(hs, helper{cmd: cmd, in: in, out: bufio.NewScanner(out), stderr: &stderr})
	}
	for _, h := range hs {
		if !h.out.Scan() || h.out.Text() != "ready" {
			_ = h.cmd.Wait()
			t.Fatalf("a writer could not open the store: %s", h.stderr.String())
		}
	}
	s := openStore(t, Options{Dir: dir})
	for _, h := range hs {
		fmt.Fprintln(h.in)
	}
	acked := map[string]bool{}
	for _, r := range issueN(t, s, 50) {
		acked[string(r.Canonical())] = true
	}
	for _, h := range hs {
		for h.out.Scan() {
			acked[h.out.Text()] = true
		}
		if err := h.cmd.Wait(); err != nil {
			t.Fatalf("writer: %v: %s", err, h.stderr.String())
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if want := 50 + procs*100; len(acked) != want {
		t.Fatalf("%d distinct receipts acknowledged, want %d", len(acked), want)
	}
	var exp bytes.Buffer
	if err := Export(dir, &exp); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(exp.String(), "\n"), "\n") {
		delete(acked, l)
	}
	if len(acked) > 0 {
		t.Fatalf("%d acknowledged receipts are not in the export", len(acked))
	}
	pubs, err := ReadPublicKeys(PublicKeyPath(dir))
	if err != nil || len(pubs) != 1 {
		t.Fatalf("writers that started together made %d keys (%v), want one", len(pubs), err)
	}
	rep := Verify(dir, pubs[0])
	if !rep.OK() || rep.Records != 50+procs*100 || len(rep.Chains) != procs+1 {
		t.Fatalf("verify:\n%s", rep)
	}
}
