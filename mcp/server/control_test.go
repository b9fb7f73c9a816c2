package server

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// peersNamed says whether the control socket can name its peers here;
// elsewhere it refuses them all.
const peersNamed = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

// shortDir is a temporary directory with a path short enough for a socket.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "tc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

func TestControlListAndDecide(t *testing.T) {
	if !peersNamed {
		t.Skip("the control socket refuses every peer on " + runtime.GOOS + " (TestControlRefusesEveryPeer)")
	}
	dir := shortDir(t)
	q := approval.NewQueue(approval.QueueOptions{})
	c, err := ListenControl(dir, q, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{ControlDir(dir), 0o700}, {c.Path(), 0o600}} {
		fi, err := os.Stat(p.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != p.mode {
			t.Errorf("%s has mode %o, want %o", p.path, fi.Mode().Perm(), p.mode)
		}
	}
	// A socket left by a server that exited is skipped and removed.
	stalePath := filepath.Join(ControlDir(dir), "1.sock")
	ln, err := net.Listen("unix", stalePath)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = ln.Close()

	ctx := context.Background()
	if list, err := ListPending(ctx, dir); err != nil || len(list) != 0 {
		t.Fatalf("ListPending = %v, %v", list, err)
	}
	if _, err := os.Stat(stalePath); err == nil {
		t.Error("stale socket not removed")
	}

	type result struct {
		ans approval.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := q.Approve(ctx, approval.Request{Tool: "shell", Attribution: "builtin.shell", Tier: tool.High,
			Plan: &tool.Plan{Commands: []tool.PlannedCommand{{Argv: []string{"rm", "-r", "build"}}}}})
		done <- result{a, err}
	}()
	var list []PendingApproval
	for deadline := time.Now().Add(5 * time.Second); len(list) == 0 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if list, err = ListPending(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	if len(list) != 1 {
		t.Fatalf("pending = %v", list)
	}
	p := list[0]
	if p.Tool != "shell" || p.Tier != tool.High || p.Summary() != "rm -r build" || p.Server != os.Getpid() {
		t.Fatalf("pending = %+v (summary %q)", p, p.Summary())
	}
	if err := Decide(ctx, dir, "nosuchid", approval.Yes); !errors.Is(err, approval.ErrNotPending) {
		t.Fatalf("Decide(unknown) = %v", err)
	}
	if err := Decide(ctx, dir, p.ID, approval.Always); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.ans != approval.Always {
		t.Fatalf("Approve = %v, %v", r.ans, r.err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Path()); err == nil {
		t.Error("socket left after Close")
	}
	if _, err := ListPending(ctx, dir); !errors.Is(err, ErrNoServer) {
		t.Fatalf("ListPending without a server = %v", err)
	}
	if err := Decide(ctx, dir, p.ID, approval.Yes); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Decide without a server = %v", err)
	}
}

func TestListenControlRefusesLongPaths(t *testing.T) {
	deep := filepath.Join(shortDir(t), string(make([]byte, 0)))
	for len(deep) < maxSocketPath {
		deep = filepath.Join(deep, "abcdefghij")
	}
	if _, err := ListenControl(deep, approval.NewQueue(approval.QueueOptions{}), zerolog.Nop()); !errors.Is(err, ErrSocketPath) {
		t.Fatalf("err = %v", err)
	}
	if _, err := ListenControl("", approval.NewQueue(approval.QueueOptions{}), zerolog.Nop()); err == nil {
		t.Fatal("no data dir accepted")
	}
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		in   string
		want approval.Answer
		ok   bool
	}{
		{"yes", approval.Yes, true}, {"Y", approval.Yes, true}, {" always ", approval.Always, true},
		{"a", approval.Always, true}, {"no", approval.No, true}, {"n", approval.No, true}, {"maybe", approval.No, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAnswer(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseAnswer(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

// TestControlRefusesEveryPeer: where the platform cannot say which
// process connected, the socket refuses every client, this process too,
// and the request keeps waiting.
func TestControlRefusesEveryPeer(t *testing.T) {
	if peersNamed {
		t.Skip("the control socket names its peers on " + runtime.GOOS)
	}
	dir := shortDir(t)
	q := approval.NewQueue(approval.QueueOptions{})
	var log syncBuffer
	c, err := ListenControl(dir, q, zerolog.New(&log))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = q.Approve(ctx, approval.Request{Tool: "file_write", Tier: tool.Medium})
	}()
	defer func() { cancel(); <-done }()
	var id string
	for deadline := time.Now().Add(5 * time.Second); id == ""; time.Sleep(2 * time.Millisecond) {
		if list := q.List(); len(list) == 1 {
			id = list[0].ID
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never became pending")
		}
	}
	if _, err := ListPending(ctx, dir); !errors.Is(err, ErrRefusedPeer) {
		t.Fatalf("ListPending = %v, want ErrRefusedPeer", err)
	}
	if err := Decide(ctx, dir, id, approval.Yes); !errors.Is(err, ErrRefusedPeer) || !strings.Contains(err.Error(), "cannot tell which process connected") {
		t.Fatalf("Decide = %v, want ErrRefusedPeer naming the platform", err)
	}
	if list := q.List(); len(list) != 1 || list[0].ID != id {
		t.Fatalf("pending = %+v", list)
	}
	if !strings.Contains(log.String(), `"check":"identity"`) {
		t.Fatalf("the refusals were not logged as attempts:\n%s", log.String())
	}
}
