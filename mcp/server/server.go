package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// Defaults of [Options].
const (
	// DefaultMaxInFlight is how many tools/call requests run at once.
	DefaultMaxInFlight = 32
	// DefaultMaxQueued is how many more wait for a slot before a call is
	// refused as busy.
	DefaultMaxQueued = 1024
	// DefaultQueueWait is how long a call waits for a slot before it is
	// refused as busy.
	DefaultQueueWait = time.Minute
	// DefaultName is the server name reported to clients.
	DefaultName = "talon"
)

// Keys talon sets in the _meta of what it sends.
const (
	// MetaReceipt carries the signed receipt of a successful call.
	MetaReceipt = "talon/receipt"
	// MetaDenied is true on a result that policy or a person refused.
	MetaDenied = "talon/denied"
	// MetaTier and MetaAttribution describe a tool in tools/list.
	MetaTier        = "talon/tier"
	MetaAttribution = "talon/attribution"
)

// CodeBusy is the JSON-RPC error code of a call refused because the
// server's queue is full or shutting down; the client may retry. The
// error's data carries retryAfterMs, a hint of when.
const CodeBusy = -32000

// retryAfter is the retry hint of a busy answer.
const retryAfter = time.Second

var (
	// ErrNoRuntime is returned by [New] without a runtime.
	ErrNoRuntime = errors.New("mcp server needs a runtime")
	// ErrBusy refuses a call when the queue for a slot is full, or the
	// call waited in it too long.
	ErrBusy = errors.New("talon is busy")
	// ErrShuttingDown refuses a call that arrives during shutdown.
	ErrShuttingDown = errors.New("talon is shutting down")
)

// Options configure a [Server]. The zero value of each field is its
// documented default.
type Options struct {
	// Runtime runs the calls; required.
	Runtime *runtime.Runtime
	// Profile is the risk profile of every session; "" means "default".
	Profile string
	// Locale is the language of tool descriptions; "" means English.
	Locale string
	// MaxInFlight bounds concurrent tools/call requests across sessions;
	// zero means [DefaultMaxInFlight]. A call beyond it waits for a slot.
	MaxInFlight int
	// MaxQueued bounds the calls waiting for a slot, which get one in
	// arrival order; zero means [DefaultMaxQueued], negative means none
	// wait. A call beyond it is refused with [CodeBusy] and nothing runs.
	MaxQueued int
	// QueueWait bounds how long a call waits for a slot before it is
	// refused with [CodeBusy]; zero means [DefaultQueueWait], negative
	// means it waits as long as its client does.
	QueueWait time.Duration
	// Name and Version are reported to clients; "" means [DefaultName]
	// and "dev".
	Name    string
	Version string
	// Logger receives one line per refused call and per catalog change;
	// the zero value is silent. Calls themselves are logged by the runtime.
	Logger zerolog.Logger
}

// Server serves one runtime's catalog to any number of MCP sessions. It is
// safe for concurrent use.
type Server struct {
	rt    *runtime.Runtime
	log   zerolog.Logger
	gate  *gate
	limit struct{ running, queued int }
	wait  time.Duration
	init  []byte // the result of initialize, after protocolVersion

	// stop ends every call still running when a drain runs out of time.
	stop    context.Context
	stopAll context.CancelFunc

	mu       sync.Mutex // guards draining, profile, locale, sessions
	draining bool
	inflight sync.WaitGroup
	profile  string
	locale   string
	sessions map[*session]struct{}

	syncMu sync.Mutex        // serializes Sync
	listed map[string]string // tool name -> what clients see of it
	list   atomic.Pointer[[]byte]
}

// New builds a server and publishes the runtime's current view.
func New(opts Options) (*Server, error) {
	if opts.Runtime == nil {
		return nil, ErrNoRuntime
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	switch {
	case opts.MaxQueued == 0:
		opts.MaxQueued = DefaultMaxQueued
	case opts.MaxQueued < 0:
		opts.MaxQueued = 0
	}
	switch {
	case opts.QueueWait == 0:
		opts.QueueWait = DefaultQueueWait
	case opts.QueueWait < 0:
		opts.QueueWait = 0
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	stop, stopAll := context.WithCancel(context.Background())
	s := &Server{
		rt: opts.Runtime, log: opts.Logger, gate: newGate(opts.MaxInFlight, opts.MaxQueued, opts.QueueWait),
		wait: opts.QueueWait, stop: stop, stopAll: stopAll, profile: opts.Profile, locale: opts.Locale,
		sessions: map[*session]struct{}{}, listed: map[string]string{},
	}
	s.limit.running, s.limit.queued = opts.MaxInFlight, opts.MaxQueued
	// Tools are announced even while the catalog is empty, so a client
	// connected then still hears about a reload that adds some.
	info, _ := json.Marshal(struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}{opts.Name, opts.Version})
	s.init = append(append([]byte(`,"capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":`), info...), '}')
	if _, err := s.Sync(); err != nil {
		stopAll()
		return nil, err
	}
	return s, nil
}

// SetView changes the profile and locale of the tool list; call [Server.Sync]
// afterwards to publish the change.
func (s *Server) SetView(profile, locale string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profile, s.locale = profile, locale
}

func (s *Server) view() (profile, locale string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.profile, s.locale
}

// Sync publishes the runtime's current view to clients: tools that left
// are removed, new and changed ones added. When anything changed, every
// connected client is sent notifications/tools/list_changed. Call it after
// [runtime.Runtime.Reload].
func (s *Server) Sync() (changed bool, err error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	profile, locale := s.view()
	// One tool list serves every session, so it includes what any session
	// activated through tool_search (deferred discovery).
	specs, err := s.rt.View(runtime.ViewOptions{Profile: profile, Channel: tool.ChannelMCP, Locale: locale, AnyActivated: true})
	if err != nil {
		return false, err
	}
	next := make(map[string]string, len(specs))
	list := []byte(`{"tools":[`)
	for _, spec := range specs {
		t, err := toolJSON(spec)
		if err != nil {
			s.log.Warn().Str("tool", spec.Name).Str("attribution", spec.Attribution.String()).Err(err).Msg("tool left out of tools/list")
			continue
		}
		if _, dup := next[spec.Name]; dup {
			continue
		}
		next[spec.Name] = string(t)
		if len(next) > 1 {
			list = append(list, ',')
		}
		list = append(list, t...)
	}
	list = append(list, "]}"...)
	changed = len(next) != len(s.listed)
	for name, t := range next {
		if s.listed[name] != t {
			changed = true
			break
		}
	}
	s.listed = next
	s.list.Store(&list)
	if changed {
		s.broadcast(appendRequest(nil, "", noteToolsChanged, nil))
	}
	return changed, nil
}

// toolJSON is a spec as MCP clients see it in tools/list.
func toolJSON(spec tool.Spec) ([]byte, error) {
	if err := tool.ValidateName(spec.Name); err != nil {
		return nil, err
	}
	input, err := objectSchema(spec.Input)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	b := append([]byte(`{"name":`), appendString(nil, spec.Name)...)
	if spec.Description != "" {
		b = append(b, `,"description":`...)
		b = appendString(b, spec.Description)
	}
	b = append(b, `,"inputSchema":`...)
	b = append(b, input...)
	if len(bytes.TrimSpace(spec.Output)) > 0 {
		// An output schema is passed on only when it describes an object,
		// the one shape every protocol revision allows for structured
		// content.
		if out, err := objectSchema(spec.Output); err == nil {
			b = append(b, `,"outputSchema":`...)
			b = append(b, out...)
		}
	}
	b = append(b, `,"_meta":{"`+MetaTier+`":`...)
	b = appendString(b, spec.Tier.String())
	b = append(b, `,"`+MetaAttribution+`":`...)
	b = appendString(b, spec.Attribution.String())
	return append(b, "}}"...), nil
}

// objectSchema checks that raw is a JSON Schema for an object and returns
// it compacted; a schema without "type" gets "type": "object", which MCP
// requires.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("not a JSON object")
	}
	switch t := m["type"]; t {
	case "object":
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, errors.New("not a JSON object")
		}
		return buf.Bytes(), nil
	case nil:
		m["type"] = "object"
		return json.Marshal(m)
	default:
		return nil, fmt.Errorf("type is %v, want \"object\"", t)
	}
}

// addSession registers a session for list changes and Close.
func (s *Server) addSession(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[ss] = struct{}{}
}

func (s *Server) removeSession(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
	ss.close()
}

// broadcast pushes msg to every session that can be reached outside a
// request.
func (s *Server) broadcast(msg []byte) {
	s.mu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	for _, ss := range list {
		if ss.ready() && ss.push != nil {
			ss.push(msg)
		}
	}
}

// handle answers one request of ss. out carries what talon sends the
// client while the request runs. It returns the response, or nil when
// the request was cancelled by its client, which expects none.
func (s *Server) handle(ctx context.Context, ss *session, m *message, out sender) []byte {
	switch m.Method {
	case methodInitialize:
		v, rerr := ss.initialize(m.Params)
		if rerr != nil {
			return appendErrorResponse(nil, m.ID, rerr)
		}
		res := append(append([]byte(`{"protocolVersion":`), appendString(nil, v)...), s.init...)
		return appendResponse(nil, m.ID, res)
	case methodPing:
		return appendResponse(nil, m.ID, []byte(`{}`))
	case methodSetLevel:
		if rerr := ss.setLevel(m.Params); rerr != nil {
			return appendErrorResponse(nil, m.ID, rerr)
		}
		return appendResponse(nil, m.ID, []byte(`{}`))
	case methodToolsList, methodToolsCall:
		if !ss.ready() {
			return appendErrorResponse(nil, m.ID, rpcErrorf(codeInvalidRequest, "method %q is invalid before initialize; send initialize first", m.Method))
		}
	default:
		return appendErrorResponse(nil, m.ID, errUnsupported(m.Method))
	}
	if m.Method == methodToolsList {
		return appendResponse(nil, m.ID, *s.list.Load())
	}
	return s.callTool(ctx, ss, m, out)
}

// notify handles a notification of ss.
func (s *Server) notify(ss *session, m *message) {
	if m.Method == noteCancelled {
		ss.cancel(m.Params)
	}
}

// callParams are what talon reads of tools/call.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// callTool runs a tools/call through the runtime.
func (s *Server) callTool(ctx context.Context, ss *session, m *message, out sender) []byte {
	var p callParams
	if len(m.Params) == 0 || json.Unmarshal(m.Params, &p) != nil || p.Name == "" {
		return appendErrorResponse(nil, m.ID, rpcErrorf(codeInvalidParams, "tools/call needs params with the tool's name and its arguments"))
	}
	if err := s.admit(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		s.log.Warn().Str("tool", p.Name).Err(err).Msg("call refused")
		return appendErrorResponse(nil, m.ID, busyError(err))
	}
	defer s.done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	defer context.AfterFunc(ss.ctx, cancel)()
	defer ss.track(m.ID, cancel)()
	ctx = withCaller(ctx, &caller{session: ss, out: out, elicit: ss.canElicit(), progressToken: p.Meta.ProgressToken,
		noticeAfter: s.rt.Config().Tools.Shell.ApprovalRunningNotice()})
	ctx = tool.WithNotifier(ctx, ss.notifier())
	profile, _ := s.view()
	res, err := s.rt.Call(ctx, tool.Call{
		Name: p.Name, Args: p.Arguments, Channel: tool.ChannelMCP, Profile: profile, SessionID: ss.id,
	})
	if err != nil {
		if ctx.Err() != nil && s.stop.Err() == nil {
			return nil
		}
		return appendErrorResponse(nil, m.ID, protocolError(err, s.stop.Err() != nil))
	}
	return appendResponse(nil, m.ID, appendCallResult(nil, res))
}

// admit takes an in-flight slot, waiting in the bounded queue for one, or
// says why there is none.
func (s *Server) admit(ctx context.Context) error {
	if err := s.gate.acquire(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		s.gate.release()
		return errDraining
	}
	s.inflight.Add(1)
	return nil
}

func (s *Server) done() {
	s.inflight.Done()
	s.gate.release()
}

// errDraining is how the gate refuses calls once a drain started.
var errDraining = fmt.Errorf("%w: the call was not started; reconnect once it is back", ErrShuttingDown)

// busyError is the answer to a call that was refused.
func busyError(err error) *rpcError {
	data := []byte(`{"retryAfterMs":` + strconv.FormatInt(retryAfter.Milliseconds(), 10) + `}`)
	switch {
	case errors.Is(err, ErrShuttingDown):
		return &rpcError{Code: CodeBusy, Message: err.Error()}
	case errors.Is(err, errQueueWait):
		return &rpcError{Code: CodeBusy, Data: data, Message: fmt.Sprintf("%v: %v; nothing ran, retry in a few seconds", ErrBusy, err)}
	default:
		return &rpcError{Code: CodeBusy, Data: data, Message: fmt.Sprintf("%v: %v, every slot is taken and the queue is full; nothing ran, retry in a few seconds", ErrBusy, err)}
	}
}

// protocolError maps a hard error of the pipeline to a JSON-RPC error.
func protocolError(err error, stopping bool) *rpcError {
	var code int64
	switch {
	case stopping && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return &rpcError{Code: CodeBusy, Message: fmt.Sprintf("%v: the call was cancelled", ErrShuttingDown)}
	case errors.Is(err, runtime.ErrUnknownTool),
		errors.Is(err, tool.ErrArgumentsNotObject),
		errors.Is(err, tool.ErrArgumentsMalformed):
		code = codeInvalidParams
	default:
		code = codeInternalError
	}
	return &rpcError{Code: code, Message: err.Error()}
}

// Drain stops admitting calls and waits for those in flight; calls waiting
// for a slot are refused without running. When ctx ends first, the
// remaining calls are cancelled and Drain waits up to grace for them to
// return.
//
// # Errors
//
// Drain reports calls that were cancelled, or that still ran after grace.
func (s *Server) Drain(ctx context.Context, grace time.Duration) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	s.gate.close(errDraining)
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.stopAll()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return errors.New("calls still running at the shutdown deadline were cancelled")
	case <-t.C:
		return fmt.Errorf("calls still running %s after they were cancelled; exiting anyway", grace)
	}
}

// Close ends every session and cancels what still runs.
func (s *Server) Close() error {
	s.stopAll()
	s.mu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		list = append(list, ss)
	}
	s.sessions = map[*session]struct{}{}
	s.mu.Unlock()
	for _, ss := range list {
		ss.close()
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Tools returns the names clients currently see, sorted.
func (s *Server) Tools() []string {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	names := make([]string, 0, len(s.listed))
	for n := range s.listed {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
