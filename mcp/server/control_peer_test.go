package server

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/internal/syncbuf"
)

// syncBuffer collects output written from several goroutines.
type syncBuffer = syncbuf.Buffer

// fakeTree is a process tree: parents by pid, the pids that run talon's
// executable, and pids whose parent cannot be read.
type fakeTree struct {
	selfPid, selfUID int
	parents          map[int]int
	talons           map[int]bool
	unreadable       map[int]bool
	talonErr         map[int]bool
}

func (f fakeTree) self() (int, int) { return f.selfPid, f.selfUID }
func (f fakeTree) parent(pid int) (int, error) {
	if f.unreadable[pid] {
		return 0, errors.New("no such process")
	}
	return f.parents[pid], nil
}
func (f fakeTree) talon(pid int) (bool, error) {
	if f.talonErr[pid] {
		return false, errors.New("permission denied")
	}
	return f.talons[pid], nil
}
func (f fakeTree) cmdline(pid int) string { return "cmd of " + string(rune('0'+pid%10)) }

func TestJudge(t *testing.T) {
	// 1 init ─ 10 sshd ─ 11 bash ─┬─ 12 talon approvals (the operator)
	//                             └─ 20 talon serve (this server)
	//                                  └─ 21 sh ─ 22 talon approvals (a tool)
	//      ─ 30 talon tools call (another talon) ─ 31 sh ─ 32 talon approvals
	//      ─ 40 a process whose parent vanished mid-walk ─ 41
	parents := map[int]int{1: 0, 10: 1, 11: 10, 12: 11, 20: 11, 21: 20, 22: 21, 30: 1, 31: 30, 32: 31, 40: 1, 41: 40, 50: 1, 51: 50}
	tree := fakeTree{selfPid: 20, selfUID: 1000, parents: parents,
		talons: map[int]bool{12: true, 20: true, 22: true, 30: true, 32: true}, unreadable: map[int]bool{40: true}, talonErr: map[int]bool{50: true}}
	alive := func() bool { return true }
	dead := func() bool { return false }
	tests := []struct {
		name     string
		cred     peerCred
		tree     procTree
		check    string
		ancestor int
	}{
		{name: "the operator's terminal", cred: peerCred{pid: 12, uid: 1000, alive: alive}},
		{name: "root is allowed as a user", cred: peerCred{pid: 12, uid: 0}},
		{name: "the server itself", cred: peerCred{pid: 20, uid: 1000}},
		{name: "init", cred: peerCred{pid: 1, uid: 0}},
		{name: "a tool process", cred: peerCred{pid: 21, uid: 1000}, check: checkServerDescendant, ancestor: 20},
		{name: "talon approvals run by a tool", cred: peerCred{pid: 22, uid: 1000}, check: checkServerDescendant, ancestor: 20},
		{name: "a tool of another talon", cred: peerCred{pid: 32, uid: 1000}, check: checkTalonDescendant, ancestor: 30},
		{name: "the child of another talon", cred: peerCred{pid: 31, uid: 1000}, check: checkTalonDescendant, ancestor: 30},
		{name: "another user", cred: peerCred{pid: 12, uid: 1001}, check: checkUID},
		{name: "no pid", cred: peerCred{uid: 1000}, check: checkIdentity},
		{name: "exited before the check", cred: peerCred{pid: 12, uid: 1000, gone: true}, check: checkExited},
		{name: "exited during the check", cred: peerCred{pid: 12, uid: 1000, alive: dead}, check: checkExited},
		{name: "an ancestor's parent unreadable", cred: peerCred{pid: 41, uid: 1000}, check: checkProcessTree},
		{name: "an ancestor that cannot be identified", cred: peerCred{pid: 51, uid: 1000}, check: checkProcessTree},
		{name: "a parent loop", cred: peerCred{pid: 60, uid: 1000}, tree: fakeTree{selfPid: 20, selfUID: 1000, parents: map[int]int{60: 61, 61: 60}}, check: checkProcessTree},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := tt.tree
			if tr == nil {
				tr = tree
			}
			v := judge(tt.cred, tr)
			if v.allowed != (tt.check == "") || v.check != tt.check || v.ancestor != tt.ancestor {
				t.Fatalf("judge = %+v, want check %q, ancestor %d", v, tt.check, tt.ancestor)
			}
			if !v.allowed && (v.reason == "" || !strings.HasPrefix(refusalMessage(v), "approvals must come from a person's terminal: ")) {
				t.Fatalf("refusal message %q", refusalMessage(v))
			}
		})
	}
}

func TestOnlyPeople(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	var log syncBuffer
	h := onlyPeople(ok, zerolog.New(&log))
	tests := []struct {
		name    string
		verdict *peerVerdict
		code    int
	}{
		{name: "allowed", verdict: &peerVerdict{allowed: true, pid: 12}, code: http.StatusNoContent},
		{name: "refused", verdict: &peerVerdict{pid: 22, cmdline: "talon approvals approve x", check: checkServerDescendant, ancestor: 20, reason: "r"}, code: http.StatusForbidden},
		{name: "never judged", code: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/approvals/x", nil)
			if tt.verdict != nil {
				r = r.WithContext(contextWithVerdict(r, *tt.verdict))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.code {
				t.Fatalf("code = %d, want %d", w.Code, tt.code)
			}
			if tt.code == http.StatusForbidden && !strings.Contains(w.Body.String(), "person's terminal") {
				t.Fatalf("body = %s", w.Body.String())
			}
		})
	}
	if s := log.String(); !strings.Contains(s, `"peer_pid":22`) || !strings.Contains(s, `"ancestor_pid":20`) || !strings.Contains(s, `"check":"descendant of this server"`) {
		t.Fatalf("log = %s", s)
	}
}

func TestParseProcArgs(t *testing.T) {
	build := func(argc uint32, rest string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, argc)
		return append(b, rest...)
	}
	tests := []struct {
		name string
		in   []byte
		path string
		args []string
		err  bool
	}{
		{name: "typical", in: build(2, "/usr/local/bin/talon\x00\x00\x00\x00talon\x00serve\x00HOME=/x\x00"), path: "/usr/local/bin/talon", args: []string{"talon", "serve"}},
		{name: "no padding", in: build(1, "/bin/sh\x00sh\x00"), path: "/bin/sh", args: []string{"sh"}},
		{name: "argc past the end", in: build(9, "/bin/sh\x00sh\x00-c"), path: "/bin/sh", args: []string{"sh", "-c"}},
		{name: "short", in: []byte{1, 0}, err: true},
		{name: "no path end", in: build(1, "/bin/sh"), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, args, err := parseProcArgs(tt.in)
			if (err != nil) != tt.err || path != tt.path || strings.Join(args, "|") != strings.Join(tt.args, "|") {
				t.Fatalf("parseProcArgs = %q, %q, %v", path, args, err)
			}
		})
	}
}

// FuzzParseProcArgs: no value of kern.procargs2 makes the parser panic,
// and it never returns more arguments than argc.
func FuzzParseProcArgs(f *testing.F) {
	f.Add([]byte("\x02\x00\x00\x00/bin/talon\x00\x00talon\x00serve\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, args, err := parseProcArgs(b)
		if err == nil && len(args) > int(binary.LittleEndian.Uint32(b)) {
			t.Fatalf("%d arguments for argc %d", len(args), binary.LittleEndian.Uint32(b))
		}
	})
}

func contextWithVerdict(r *http.Request, v peerVerdict) context.Context {
	return context.WithValue(r.Context(), peerKey{}, v)
}
