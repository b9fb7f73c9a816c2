package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
// server is at its in-flight limit or shutting down; the client may retry.
const CodeBusy = -32000

var (
	// ErrNoRuntime is returned by [New] without a runtime.
	ErrNoRuntime = errors.New("mcp server needs a runtime")
	// ErrBusy refuses a call beyond the in-flight limit.
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
	// MaxQueued bounds the calls waiting for a slot; zero means
	// [DefaultMaxQueued], negative means none wait. A call beyond it is
	// refused with [CodeBusy] and nothing runs.
	MaxQueued int
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
	sdk   *sdk.Server
	log   zerolog.Logger
	sem   chan struct{} // a slot per running call
	queue chan struct{} // a slot per accepted call, running or waiting

	// stop ends every call still running when a drain runs out of time.
	stop    context.Context
	stopAll context.CancelFunc

	mu       sync.Mutex // guards draining, profile, locale
	draining bool
	drainCh  chan struct{} // closed when a drain starts
	inflight sync.WaitGroup
	profile  string
	locale   string

	syncMu sync.Mutex        // serializes Sync
	listed map[string]string // tool name -> fingerprint of what clients see

	sessionIDs sync.Map // *sdk.ServerSession -> string, for transports without ids
	requests   sync.Map // request token -> context of the HTTP request carrying a call
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
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	stop, stopAll := context.WithCancel(context.Background())
	s := &Server{
		rt: opts.Runtime, log: opts.Logger, sem: make(chan struct{}, opts.MaxInFlight),
		queue: make(chan struct{}, opts.MaxInFlight+opts.MaxQueued), drainCh: make(chan struct{}),
		stop: stop, stopAll: stopAll, profile: opts.Profile, locale: opts.Locale,
		listed: map[string]string{},
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		// Tools are announced even while the catalog is empty, so a client
		// connected then still hears about a reload that adds some.
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
		SupportedProtocolVersions: protocolVersions(),
	})
	if _, err := s.Sync(); err != nil {
		stopAll()
		return nil, err
	}
	return s, nil
}

// protocolVersions are the protocol revisions talon serves: those with a
// session and the initialize handshake. Approvals ask the client in the
// middle of a call and list changes are pushed to the session, which the
// stateless revisions (2026-07-28 and later) do differently; their clients
// fall back to the newest revision listed here.
func protocolVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
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
	var add []*sdk.Tool
	for _, spec := range specs {
		t, err := mcpTool(spec)
		if err != nil {
			s.log.Warn().Str("tool", spec.Name).Str("attribution", spec.Attribution.String()).Err(err).Msg("tool left out of tools/list")
			continue
		}
		fp, err := json.Marshal(t)
		if err != nil {
			continue
		}
		next[t.Name] = string(fp)
		if s.listed[t.Name] != string(fp) {
			add = append(add, t)
		}
	}
	var remove []string
	for name := range s.listed {
		if _, ok := next[name]; !ok {
			remove = append(remove, name)
		}
	}
	sort.Strings(remove)
	if len(remove) > 0 {
		s.sdk.RemoveTools(remove...)
	}
	for _, t := range add {
		if err := s.addTool(t); err != nil {
			s.log.Warn().Str("tool", t.Name).Err(err).Msg("tool left out of tools/list")
			delete(next, t.Name)
		}
	}
	s.listed = next
	return len(add) > 0 || len(remove) > 0, nil
}

// addTool registers t with the SDK, which panics on schemas it rejects;
// mcpTool has checked them, and a panic is still turned into an error.
func (s *Server) addTool(t *sdk.Tool) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("rejected by the MCP library: %v", v)
		}
	}()
	s.sdk.AddTool(t, s.callTool)
	return nil
}

// mcpTool is a spec as MCP clients see it.
func mcpTool(spec tool.Spec) (*sdk.Tool, error) {
	input, err := objectSchema(spec.Input)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	t := &sdk.Tool{
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: input,
		Meta:        sdk.Meta{MetaTier: spec.Tier.String(), MetaAttribution: spec.Attribution.String()},
	}
	if len(bytes.TrimSpace(spec.Output)) > 0 {
		// An output schema is passed on only when it describes an object,
		// the one shape every protocol revision allows for structured
		// content.
		if out, err := objectSchema(spec.Output); err == nil {
			t.OutputSchema = out
		}
	}
	return t, nil
}

// objectSchema checks that raw is a JSON Schema for an object; a schema
// without "type" gets "type": "object", which MCP requires.
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
		return raw, nil
	case nil:
		m["type"] = "object"
		return json.Marshal(m)
	default:
		return nil, fmt.Errorf("type is %v, want \"object\"", t)
	}
}

// callTool handles every tools/call.
func (s *Server) callTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	release, err := s.admit(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if err != nil {
		s.log.Warn().Str("tool", req.Params.Name).Err(err).Msg("call refused")
		return nil, &jsonrpc.Error{Code: CodeBusy, Message: err.Error()}
	}
	defer release()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	if rctx := s.requestContext(req); rctx != nil {
		// The HTTP request that carries the call went away: nobody can
		// receive the result, so the call is cancelled.
		defer context.AfterFunc(rctx, cancel)()
	}
	id := s.sessionID(req.Session)
	ctx = withCaller(ctx, &caller{session: req.Session, id: id, elicit: canElicit(req)})
	profile, _ := s.view()
	res, err := s.rt.Call(ctx, tool.Call{
		Name: req.Params.Name, Args: req.Params.Arguments, Channel: tool.ChannelMCP, Profile: profile, SessionID: id,
	})
	if err != nil {
		return nil, protocolError(err)
	}
	return callResult(res), nil
}

// admit takes an in-flight slot, waiting in a bounded queue for one, or
// says why there is none.
func (s *Server) admit(ctx context.Context) (release func(), err error) {
	refuse := func() error {
		return fmt.Errorf("%w: the call was not started; reconnect once it is back", ErrShuttingDown)
	}
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		return nil, refuse()
	}
	select {
	case s.queue <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: %d calls are running and %d waiting; nothing ran, retry shortly", ErrBusy, cap(s.sem), cap(s.queue)-cap(s.sem))
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		<-s.queue
		return nil, ctx.Err()
	case <-s.drainCh:
		<-s.queue
		return nil, refuse()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		<-s.sem
		<-s.queue
		return nil, refuse()
	}
	s.inflight.Add(1)
	return func() {
		<-s.sem
		<-s.queue
		s.inflight.Done()
	}, nil
}

// protocolError maps a hard error of the pipeline to a JSON-RPC error.
func protocolError(err error) error {
	var code int64
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, runtime.ErrUnknownTool),
		errors.Is(err, tool.ErrArgumentsNotObject),
		errors.Is(err, tool.ErrArgumentsMalformed):
		code = jsonrpc.CodeInvalidParams
	default:
		code = jsonrpc.CodeInternalError
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// callResult maps a runtime result to MCP: text content always, structured
// content when the data is a JSON object, isError for a failed result.
func callResult(res tool.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Meta: resultMeta(res)}
	if !res.Success {
		out.IsError = true
		out.Content = []sdk.Content{&sdk.TextContent{Text: res.Error}}
		if res.Denied {
			if out.Meta == nil {
				out.Meta = sdk.Meta{}
			}
			out.Meta[MetaDenied] = true
		}
		return out
	}
	text := res.Output.Text
	if res.Output.Data != nil {
		if b, err := json.Marshal(res.Output.Data); err == nil {
			if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
				out.StructuredContent = json.RawMessage(b)
			}
			if text == "" {
				text = string(b)
			}
		}
	}
	out.Content = []sdk.Content{&sdk.TextContent{Text: text}}
	return out
}

// Drain stops admitting calls and waits for those in flight. When ctx ends
// first, the remaining calls are cancelled and Drain waits up to grace for
// them to return.
//
// # Errors
//
// Drain reports calls that were cancelled, or that still ran after grace.
func (s *Server) Drain(ctx context.Context, grace time.Duration) error {
	s.mu.Lock()
	if !s.draining {
		s.draining = true
		close(s.drainCh)
	}
	s.mu.Unlock()
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
	var errs []error
	for ss := range s.sdk.Sessions() {
		if err := ss.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ServeStdio serves one session over in and out (newline-delimited
// JSON-RPC) until the client closes in or ctx ends. At the end of in, every
// request already read is answered before ServeStdio returns; a malformed
// message is answered with a JSON-RPC error and the session goes on. Cancel
// ctx only after [Server.Drain]: ending it closes the session at once.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	ss, err := s.sdk.Connect(ctx, &stdioTransport{in: rc, out: out}, nil)
	if err != nil {
		return fmt.Errorf("start stdio session: %w", err)
	}
	defer s.sessionIDs.Delete(ss)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = ss.Close()
		err = <-done
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// sessionID names a session for the runtime ("always" answers, logs).
// Streamable HTTP sessions carry their own id; a stdio session is given
// one on its first call.
func (s *Server) sessionID(ss *sdk.ServerSession) string {
	if ss == nil {
		return ""
	}
	if id := ss.ID(); id != "" {
		return id
	}
	if v, ok := s.sessionIDs.Load(ss); ok {
		return v.(string)
	}
	v, _ := s.sessionIDs.LoadOrStore(ss, "stdio-"+randomHex(8))
	return v.(string)
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
