package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// Separator joins a server's name and its tool's name: <server>__<tool>.
const Separator = "__"

// terminateAfter is how long a stdio server may take to exit once its
// input is closed, before it is sent SIGTERM.
const terminateAfter = 2 * time.Second

var (
	// ErrUndefinedVariable reports a ${VAR} in env or headers that is not
	// set in talon's environment.
	ErrUndefinedVariable = errors.New("undefined environment variable")
	// ErrClosed reports a call on a manager that was closed.
	ErrClosed = errors.New("mcp client closed")
)

// Options configure [Start]. The zero value of each field is its
// documented default.
type Options struct {
	// Servers are the [mcp.servers.<name>] tables.
	Servers map[string]config.MCPServer
	// Dir is the working directory of stdio servers; "" means talon's.
	Dir string
	// LookupEnv reads talon's environment, for PATH, HOME and ${VAR}
	// references; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives connection events and each line a stdio server
	// writes to stderr, attributed mcp.<server>; the zero value is silent.
	Logger zerolog.Logger
	// OnToolsChanged, when set, is called after a server announced a
	// change of its tool list and the new list was fetched; rebuild the
	// catalog from [Manager.Tools] then. It runs on its own goroutine.
	OnToolsChanged func(server string)
	// Version is reported to servers as talon's version; "" means "dev".
	Version string
}

// State is where a configured server stands.
type State string

// States of a server.
const (
	StateConnected State = "connected"
	StateFailed    State = "failed"
	StateDisabled  State = "disabled"
	// StateExited is a server that ran and stopped; its tools stay in the
	// catalog and the next call starts it again.
	StateExited State = "exited"
)

// Status reports one configured server.
type Status struct {
	Name  string
	State State
	// Tools is how many of its tools joined the catalog.
	Tools int
	// Err says why the server failed to start.
	Err error
	// Problems name tools left out of the catalog, and why.
	Problems []string
}

// Manager holds the connections to the configured servers. It is safe for
// concurrent use.
type Manager struct {
	opts Options
	log  zerolog.Logger

	mu      sync.Mutex // guards servers, closed
	servers map[string]*remote
	closed  bool

	life sync.Mutex     // guards done; never held with mu or a remote's mu
	done bool           // no more tracked goroutines
	wg   sync.WaitGroup // session watchers, list refreshes, closes
}

// Start connects to every enabled server at once, each within its
// startup_timeout_seconds, and returns when all have connected or failed.
// It never fails as a whole: see [Manager.Status].
func Start(ctx context.Context, opts Options) *Manager {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	m := &Manager{opts: opts, log: opts.Logger, servers: map[string]*remote{}}
	m.Update(ctx, opts.Servers)
	return m
}

// Update reconciles the connections with a new set of servers, as after a
// config reload: removed and changed servers are stopped, new and changed
// ones started, failed ones tried again, and the others left running.
func (m *Manager) Update(ctx context.Context, servers map[string]config.MCPServer) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stop, start []*remote
	for name, r := range m.servers {
		cfg, ok := servers[name]
		if !ok || !reflect.DeepEqual(cfg, r.cfg) || r.failed() {
			stop = append(stop, r)
			delete(m.servers, name)
		}
	}
	for name, cfg := range servers {
		if _, ok := m.servers[name]; ok {
			continue
		}
		r := &remote{m: m, name: name, cfg: cfg,
			log: m.log.With().Str("attribution", string(tool.KindMCP)+"."+name).Logger()}
		m.servers[name] = r
		if cfg.Enabled() {
			start = append(start, r)
		}
	}
	m.mu.Unlock()

	for _, r := range stop {
		r.close()
	}
	var wg sync.WaitGroup
	for _, r := range start {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.start(ctx)
		}()
	}
	wg.Wait()
}

// Tools returns the tools of every connected server, sorted by name. When
// two servers' names sanitize to the same tool name, the first server in
// name order keeps it and the other's tool is reported in its Status.
func (m *Manager) Tools() []tool.Tool {
	tools, _ := m.catalog()
	return tools
}

// catalog collects the tools and the name clashes between servers.
func (m *Manager) catalog() ([]tool.Tool, map[string][]string) {
	m.mu.Lock()
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	servers := make([]*remote, 0, len(names))
	sort.Strings(names)
	for _, n := range names {
		servers = append(servers, m.servers[n])
	}
	m.mu.Unlock()

	claimed := map[string]string{}
	clashes := map[string][]string{}
	var out []tool.Tool
	for _, r := range servers {
		for _, t := range r.toolList() {
			if owner, dup := claimed[t.spec.Name]; dup {
				clashes[r.name] = append(clashes[r.name], fmt.Sprintf(
					"tool %q is named %s like a tool of MCP server %s: rename one of the servers", t.remote, t.spec.Name, owner))
				continue
			}
			claimed[t.spec.Name] = r.name
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec().Name < out[j].Spec().Name })
	return out, clashes
}

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []Status {
	tools, clashes := m.catalog()
	count := map[string]int{}
	for _, t := range tools {
		count[t.Spec().Attribution.Alias]++
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for name, r := range m.servers {
		st := r.status()
		st.Tools = count[name]
		st.Problems = append(st.Problems, clashes[name]...)
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close stops every server and waits for their processes to exit.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := m.servers
	m.servers = map[string]*remote{}
	m.mu.Unlock()
	for _, r := range servers {
		r.close()
	}
	m.life.Lock()
	m.done = true
	m.life.Unlock()
	m.wg.Wait()
	return nil
}

// goTracked runs f on a goroutine that Close waits for; it reports false,
// running nothing, once the manager is closed.
func (m *Manager) goTracked(f func()) bool {
	m.life.Lock()
	defer m.life.Unlock()
	if m.done {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

// remote is one configured server.
type remote struct {
	m    *Manager
	name string
	cfg  config.MCPServer
	log  zerolog.Logger

	mu         sync.Mutex // guards the fields below
	session    *sdk.ClientSession
	connecting chan struct{} // closed when the connection attempt under way ends
	started    bool          // listed its tools at least once
	tools      []*remoteTool
	problems   []string
	err        error // why the last start failed
	closed     bool
}

func (r *remote) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.started && r.cfg.Enabled()
}

func (r *remote) status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Status{Name: r.name, Err: r.err, Problems: append([]string(nil), r.problems...)}
	switch {
	case !r.cfg.Enabled():
		st.State = StateDisabled
	case !r.started:
		st.State = StateFailed
	case r.session == nil:
		st.State = StateExited
	default:
		st.State = StateConnected
	}
	return st
}

func (r *remote) toolList() []*remoteTool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tools
}

// start connects and lists the tools; a failure is recorded, not returned.
func (r *remote) start(ctx context.Context) {
	cs, err := r.ensure(ctx)
	if err == nil {
		var tools []*remoteTool
		var problems []string
		if tools, problems, err = r.list(ctx, cs); err == nil {
			r.mu.Lock()
			r.tools, r.problems, r.started = tools, problems, true
			r.mu.Unlock()
			r.log.Info().Int("tools", len(tools)).Msg("MCP server connected")
			for _, p := range problems {
				r.log.Warn().Msg(p)
			}
			return
		}
		r.drop(cs)
	}
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	r.log.Error().Err(err).Msg("MCP server failed to start; its tools are left out")
}

// ensure returns the open session, starting the server when it is not
// running. Concurrent callers share one attempt.
func (r *remote) ensure(ctx context.Context) (*sdk.ClientSession, error) {
	r.mu.Lock()
	for r.connecting != nil {
		ch := r.connecting
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		r.mu.Lock()
		if r.session == nil && r.connecting == nil && r.err != nil {
			err := r.err
			r.mu.Unlock()
			return nil, err
		}
	}
	switch {
	case r.closed:
		r.mu.Unlock()
		return nil, ErrClosed
	case r.session != nil:
		cs := r.session
		r.mu.Unlock()
		return cs, nil
	}
	if r.started {
		r.log.Info().Msg("starting MCP server again")
	}
	ch := make(chan struct{})
	r.connecting = ch
	r.mu.Unlock()

	cs, err := r.connect(ctx)

	r.mu.Lock()
	r.connecting = nil
	close(ch)
	if err == nil && r.closed {
		err = ErrClosed
	}
	if err != nil {
		if r.started {
			r.err = err
		}
		r.mu.Unlock()
		if cs != nil {
			_ = cs.Close()
		}
		return nil, err
	}
	r.session, r.err = cs, nil
	r.mu.Unlock()
	r.watch(cs)
	return cs, nil
}

// connect starts the server and opens a session within the startup
// timeout.
func (r *remote) connect(ctx context.Context) (*sdk.ClientSession, error) {
	transport, err := r.transport()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.StartupTimeout())
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "talon", Version: r.m.opts.Version}, &sdk.ClientOptions{
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { r.toolsChanged() },
	})
	cs, err := c.Connect(ctx, transport, nil)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s (startup_timeout_seconds): %w", r.cfg.StartupTimeout(), err)
		}
		return nil, err
	}
	return cs, nil
}

// watch notices when the session ends (the server exited or crashed), so
// the next call starts it again.
func (r *remote) watch(cs *sdk.ClientSession) {
	r.m.goTracked(func() {
		_ = cs.Wait()
		r.mu.Lock()
		gone := r.session == cs
		if gone {
			r.session = nil
		}
		closed := r.closed
		r.mu.Unlock()
		if gone && !closed {
			r.log.Warn().Msg("MCP server exited; the next call starts it again")
		}
	})
}

// transport builds the stdio command or the HTTP client of the server.
func (r *remote) transport() (sdk.Transport, error) {
	lookup := r.m.opts.LookupEnv
	if r.cfg.URL != "" {
		headers := make(map[string]string, len(r.cfg.Headers))
		for k, v := range r.cfg.Headers {
			x, err := expand(v, lookup)
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", k, err)
			}
			headers[k] = x
		}
		hc := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers}}
		return &sdk.StreamableClientTransport{Endpoint: r.cfg.URL, HTTPClient: hc}, nil
	}
	env, err := childEnv(r.cfg.Env, lookup)
	if err != nil {
		return nil, err
	}
	cmd := sandbox.Command(r.cfg.Command, r.cfg.Args...)
	cmd.Env = env
	cmd.Dir = r.m.opts.Dir
	cmd.Stderr = &lineLogger{log: r.log}
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, nil
}

// childEnv is the whole environment of a stdio server: PATH and HOME from
// talon's, then the configured variables (which may override them).
func childEnv(configured map[string]string, lookup func(string) (string, bool)) ([]string, error) {
	vars := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := lookup(k); ok {
			vars[k] = v
		}
	}
	for k, v := range configured {
		x, err := expand(v, lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		vars[k] = x
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + vars[k]
	}
	return env, nil
}

// expand replaces each ${NAME} with the variable from talon's environment.
// Nothing else is special: a lone $ stays as it is.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		name := s[i+2 : i+j]
		v, ok := lookup(name)
		if !ok {
			return "", fmt.Errorf("%w ${%s}: export it before starting talon, or write the value itself", ErrUndefinedVariable, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// list fetches the server's tools and wraps them.
func (r *remote) list(ctx context.Context, cs *sdk.ClientSession) ([]*remoteTool, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.StartupTimeout())
	defer cancel()
	var tools []*remoteTool
	var problems []string
	seen := map[string]string{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("list tools: %w", err)
		}
		rt, err := r.wrap(t)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if prev, dup := seen[rt.spec.Name]; dup {
			problems = append(problems, fmt.Sprintf("tool %q of MCP server %s is named %s like its tool %q; it is left out", t.Name, r.name, rt.spec.Name, prev))
			continue
		}
		seen[rt.spec.Name] = t.Name
		tools = append(tools, rt)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].spec.Name < tools[j].spec.Name })
	return tools, problems, nil
}

// wrap turns one of the server's tools into a catalog tool.
func (r *remote) wrap(t *sdk.Tool) (*remoteTool, error) {
	name := tool.SanitizeName(r.name + Separator + t.Name)
	if err := tool.ValidateName(name); err != nil {
		return nil, fmt.Errorf("tool %q of MCP server %s is left out: %w", t.Name, r.name, err)
	}
	input, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		input = []byte(`{"type":"object"}`)
	}
	var schema map[string]any
	if json.Unmarshal(input, &schema) != nil || schema == nil {
		return nil, fmt.Errorf("tool %q of MCP server %s is left out: its input schema is not a JSON object", t.Name, r.name)
	}
	if typ, ok := schema["type"]; ok && typ != "object" {
		return nil, fmt.Errorf("tool %q of MCP server %s is left out: its input schema has type %v, want \"object\"", t.Name, r.name, typ)
	}
	tier, err := r.tier(t.Name)
	if err != nil {
		return nil, fmt.Errorf("tool %q of MCP server %s is left out: %w", t.Name, r.name, err)
	}
	return &remoteTool{srv: r, remote: t.Name, spec: tool.Spec{
		Name: name, Description: t.Description, Input: input, Tier: tier,
		Attribution: tool.Attribution{Kind: tool.KindMCP, Alias: r.name},
	}}, nil
}

// tier is the configured tier of a tool: its own, else the server's, else
// high.
func (r *remote) tier(toolName string) (tool.Tier, error) {
	s := r.cfg.Tier
	if t, ok := r.cfg.Tools[toolName]; ok && t.Tier != "" {
		s = t.Tier
	}
	if s == "" {
		return tool.High, nil
	}
	return tool.ParseTier(s)
}

// toolsChanged refetches the list after the server announced a change.
func (r *remote) toolsChanged() {
	r.m.goTracked(func() {
		r.mu.Lock()
		cs := r.session
		r.mu.Unlock()
		if cs == nil {
			return
		}
		tools, problems, err := r.list(context.Background(), cs)
		if err != nil {
			r.log.Warn().Err(err).Msg("could not fetch the changed tool list; keeping the previous one")
			return
		}
		r.mu.Lock()
		r.tools, r.problems = tools, problems
		r.mu.Unlock()
		r.log.Info().Int("tools", len(tools)).Msg("MCP server changed its tools")
		if f := r.m.opts.OnToolsChanged; f != nil {
			f(r.name)
		}
	})
}

// drop forgets cs after a transport failure and stops it.
func (r *remote) drop(cs *sdk.ClientSession) {
	r.mu.Lock()
	if r.session == cs {
		r.session = nil
	}
	r.mu.Unlock()
	if !r.m.goTracked(func() { _ = cs.Close() }) {
		_ = cs.Close()
	}
}

// close stops the server for good.
func (r *remote) close() {
	r.mu.Lock()
	r.closed = true
	cs := r.session
	r.session = nil
	r.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// remoteTool is one tool of an MCP server, as a catalog tool.
type remoteTool struct {
	srv    *remote
	remote string // the server's own name for it
	spec   tool.Spec
}

var _ tool.Tool = (*remoteTool)(nil)

func (t *remoteTool) Spec() tool.Spec { return t.spec }

// Execute forwards the call; cancelling ctx cancels it on the server.
func (t *remoteTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	cs, err := t.srv.ensure(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Failure("MCP server %s is not running and could not be started: %v", t.srv.name, err), nil
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return tool.Failure("MCP server %s refused the call of %s: %s", t.srv.name, t.remote, werr.Message), nil
		}
		t.srv.drop(cs)
		return tool.Failure("MCP server %s failed during the call of %s: %v; the next call starts it again", t.srv.name, t.remote, err), nil
	}
	return fromResult(res), nil
}

// fromResult maps an MCP result to a tool result.
func fromResult(res *sdk.CallToolResult) tool.Result {
	text := contentText(res.Content)
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = "the MCP tool reported an error without saying why"
		}
		return tool.Result{Error: text}
	}
	out := tool.Text(text)
	if res.StructuredContent != nil {
		out.Output.Data = res.StructuredContent
	}
	return out
}

// contentText renders content blocks as text: text as it is, anything else
// as a bracketed note of what it was.
func contentText(content []sdk.Content) string {
	parts := make([]string, 0, len(content))
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", c.URI))
		case *sdk.EmbeddedResource:
			switch {
			case c.Resource == nil:
				parts = append(parts, "[resource]")
			case c.Resource.Text != "":
				parts = append(parts, c.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s]", c.Resource.URI))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	return strings.Join(parts, "\n")
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// lineLogger logs each line a stdio server writes to stderr.
type lineLogger struct {
	log zerolog.Logger
	mu  sync.Mutex
	buf []byte
}

// maxLine caps one logged line; longer ones are split.
const maxLine = 8 << 10

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) >= maxLine {
				w.emit(w.buf[:maxLine])
				w.buf = w.buf[maxLine:]
				continue
			}
			return len(p), nil
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

func (w *lineLogger) emit(line []byte) {
	if s := strings.TrimRight(string(line), "\r"); s != "" {
		w.log.Info().Str("stream", "stderr").Msg(s)
	}
}
