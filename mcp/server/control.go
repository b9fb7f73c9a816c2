package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// The control endpoint lets `talon approvals` reach the pending queue of a
// running server. Each server process listens on its own Unix socket,
// <data dir>/serve/<pid>.sock, in a directory only the user can enter, so
// several servers (say, one per editor over stdio) can share a data
// directory. The file system decides which user may connect; the peer
// check (control_peer.go) then refuses every process talon started, so
// only a person's terminal answers.

// maxSocketPath is the longest socket path every Unix accepts.
const maxSocketPath = 104

var (
	// ErrNoServer means no running server was found under the data dir.
	ErrNoServer = errors.New("no running talon serve found")
	// ErrSocketPath means the data dir is too deep for a Unix socket.
	ErrSocketPath = errors.New("control socket path too long")
	// ErrRefusedPeer means the server refused the client because it is
	// not a person's terminal: talon started it, or the platform cannot
	// tell who it is.
	ErrRefusedPeer = errors.New("talon serve refused this process")
)

// ControlDir is the directory holding the control sockets of the servers
// that use dataDir.
func ControlDir(dataDir string) string { return filepath.Join(dataDir, "serve") }

// PendingApproval is one waiting request as the control endpoint reports
// it.
type PendingApproval struct {
	ID          string     `json:"id"`
	Tool        string     `json:"tool"`
	Attribution string     `json:"attribution"`
	Tier        tool.Tier  `json:"tier"`
	Reasons     []string   `json:"reasons"`
	Plan        *tool.Plan `json:"plan,omitempty"`
	// Args is the redacted argument summary.
	Args      string    `json:"args"`
	Channel   string    `json:"channel"`
	Profile   string    `json:"profile"`
	SessionID string    `json:"session"`
	AlwaysAsk bool      `json:"always_ask,omitempty"`
	Since     time.Time `json:"since"`
	// Server is the process id of the server holding the request.
	Server int `json:"server"`
}

// Summary is a one-line account of what the call would do: the plan's
// summary, else its commands, else the redacted arguments.
func (p PendingApproval) Summary() string {
	if p.Plan != nil {
		if p.Plan.Summary != "" {
			return p.Plan.Summary
		}
		var cmds []string
		for _, c := range p.Plan.Commands {
			cmds = append(cmds, strings.Join(c.Argv, " "))
		}
		if len(cmds) > 0 {
			return strings.Join(cmds, " && ")
		}
	}
	return p.Args
}

// Control is a running control endpoint.
type Control struct {
	path string
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// ListenControl serves q on this process's control socket under dataDir.
// Every connection is checked: a process this server or another talon
// started (a tool process, or a `talon approvals` run by one) is refused
// and logged as an attempt, and so is every peer where the platform cannot
// say which process connected.
//
// # Errors
//
// It fails when talon cannot describe its own process for that check,
// leaving the caller without a queue to answer: approvals then fail
// closed.
func ListenControl(dataDir string, q *approval.Queue, log zerolog.Logger) (*Control, error) {
	if dataDir == "" {
		return nil, errors.New("no data directory: set data_dir or --data-dir so talon approvals can reach this server")
	}
	tree, err := newProcTree()
	if err != nil {
		return nil, err
	}
	dir := ControlDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil { //nolint:gosec // a directory needs its search bit; 0700 is owner-only

		return nil, fmt.Errorf("restrict %s: %w", dir, err)
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock")
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d; use a shorter --data-dir", ErrSocketPath, path, len(path), maxSocketPath)
	}
	_ = os.Remove(path) // a socket left by an earlier process with our pid
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("restrict %s: %w", path, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/approvals", func(w http.ResponseWriter, _ *http.Request) {
		list := q.List()
		out := make([]PendingApproval, len(list))
		for i, p := range list {
			out[i] = pendingApproval(p)
		}
		writeControlJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("POST /v1/approvals/{id}", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Answer string `json:"answer"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil {
			writeControlJSON(w, http.StatusBadRequest, controlError{Error: "body must be {\"answer\": \"yes\"|\"no\"|\"always\"|\"permanent\"}"})
			return
		}
		ans, err := ParseAnswer(body.Answer)
		if err != nil {
			writeControlJSON(w, http.StatusBadRequest, controlError{Error: err.Error()})
			return
		}
		id := r.PathValue("id")
		if err := q.Decide(id, ans); err != nil {
			writeControlJSON(w, http.StatusNotFound, controlError{Error: err.Error()})
			return
		}
		log.Info().Str("approval", id).Str("answer", ans.String()).Msg("approval decided through talon approvals")
		w.WriteHeader(http.StatusNoContent)
	})
	c := &Control{path: path, ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: onlyPeople(mux, log), ConnContext: peerContext(tree), ReadHeaderTimeout: 5 * time.Second}}
	go func() {
		defer close(c.done)
		_ = c.srv.Serve(ln)
	}()
	return c, nil
}

// Path is the socket's path.
func (c *Control) Path() string { return c.path }

// Close stops the endpoint and removes its socket.
func (c *Control) Close() error {
	err := c.srv.Close()
	<-c.done
	_ = os.Remove(c.path)
	return err
}

type controlError struct {
	Error string `json:"error"`
}

func writeControlJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func pendingApproval(p approval.Pending) PendingApproval {
	r := p.Request
	reasons := r.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	return PendingApproval{
		ID: p.ID, Tool: r.Tool, Attribution: r.Attribution, Tier: r.Tier, Reasons: reasons, Plan: r.Plan,
		Args: r.Args, Channel: r.Channel, Profile: r.Profile, SessionID: r.SessionID, AlwaysAsk: r.AlwaysAsk,
		Since: p.Since, Server: os.Getpid(),
	}
}

// ParseAnswer reads "yes", "no", "always" or "permanent" (also "y",
// "n", "a", "p").
func ParseAnswer(s string) (approval.Answer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes":
		return approval.Yes, nil
	case "n", "no":
		return approval.No, nil
	case "a", "always":
		return approval.Always, nil
	case "p", "permanent":
		return approval.Permanent, nil
	}
	return approval.No, fmt.Errorf("unknown answer %q: use yes, no, always or permanent", s)
}

// controlSockets lists the sockets under dataDir.
func controlSockets(dataDir string) []string {
	paths, _ := filepath.Glob(filepath.Join(ControlDir(dataDir), "*.sock"))
	sort.Strings(paths)
	return paths
}

func controlClient(path string) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", path)
			},
			DisableKeepAlives: true,
		},
	}
}

// stale reports a socket nobody listens on any more: its server exited
// without removing it.
func stale(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// ListPending asks every server running under dataDir for its pending
// approvals, oldest first. Sockets left by servers that exited are removed.
//
// # Errors
//
// With no server reachable it returns [ErrNoServer].
func ListPending(ctx context.Context, dataDir string) ([]PendingApproval, error) {
	var out []PendingApproval
	reached := 0
	var errs []error
	for _, path := range controlSockets(dataDir) {
		var list []PendingApproval
		err := controlDo(ctx, path, http.MethodGet, "/v1/approvals", nil, &list)
		if stale(err) {
			_ = os.Remove(path)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		reached++
		out = append(out, list...)
	}
	if reached == 0 {
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, fmt.Errorf("%w under %s: start one with talon serve (using the same --data-dir)", ErrNoServer, dataDir)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, nil
}

// Decide answers the pending approval id on whichever server holds it.
//
// # Errors
//
// An id no server holds wraps [approval.ErrNotPending]; with no server
// reachable it returns [ErrNoServer].
func Decide(ctx context.Context, dataDir, id string, ans approval.Answer) error {
	body, _ := json.Marshal(map[string]string{"answer": ans.String()})
	reached := 0
	for _, path := range controlSockets(dataDir) {
		err := controlDo(ctx, path, http.MethodPost, "/v1/approvals/"+url.PathEscape(id), body, nil)
		var nf *notFoundError
		switch {
		case err == nil:
			return nil
		case stale(err):
			_ = os.Remove(path)
			continue
		case errors.As(err, &nf):
			reached++
			continue
		default:
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if reached == 0 {
		return fmt.Errorf("%w under %s: start one with talon serve (using the same --data-dir)", ErrNoServer, dataDir)
	}
	return fmt.Errorf("%w: %q; run `talon approvals list` to see what is waiting", approval.ErrNotPending, id)
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// refusedError is the server's refusal, as it worded it.
type refusedError struct{ msg string }

func (e *refusedError) Error() string        { return e.msg }
func (e *refusedError) Is(target error) bool { return target == ErrRefusedPeer }

func controlDo(ctx context.Context, path, method, target string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://talon"+target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := controlClient(path).Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var ce controlError
		_ = json.Unmarshal(data, &ce)
		if ce.Error == "" {
			ce.Error = resp.Status
		}
		switch resp.StatusCode {
		case http.StatusNotFound:
			return &notFoundError{msg: ce.Error}
		case http.StatusForbidden:
			return &refusedError{msg: ce.Error}
		}
		return errors.New(ce.Error)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("unreadable answer from the server: %w", err)
		}
	}
	return nil
}
