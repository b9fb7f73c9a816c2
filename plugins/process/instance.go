package process

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	pb "github.com/talonhq/talon/plugins/proto"
	"github.com/talonhq/talon/tool"
)

// grpcPlugin is the host's side of the Tools service for go-plugin.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("talon hosts plugins; it does not serve one")
}

func (grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pb.NewToolsClient(c), nil
}

// client is one running plugin process.
type client struct {
	pc     *plugin.Client
	rpc    pb.ToolsClient
	runner *procRunner
	logs   []*lineLog
}

func (c *client) pid() string { return c.runner.ID() }

// stop ends the process (gracefully, then by force) and flushes its logs.
func (c *client) stop() {
	c.pc.Kill()
	for _, l := range c.logs {
		l.Flush()
	}
}

// instance is one loaded plugin: its tools and, while it runs, its process.
type instance struct {
	h     Host
	p     *manifest.Plugin
	env   plugins.Env
	log   zerolog.Logger
	tools []tool.Tool
	sem   chan struct{}

	exe privateCopy

	mu     sync.Mutex
	cur    *client
	busy   int
	idle   *time.Timer
	closed bool
	starts int
}

var _ plugins.Loaded = (*instance)(nil)

func newInstance(h Host, p *manifest.Plugin, env plugins.Env) *instance {
	return &instance{
		h: h, p: p, env: env,
		log: env.Logger,
		sem: make(chan struct{}, p.Manifest.Limits.Instances()),
	}
}

// Tools returns the plugin's tools.
func (in *instance) Tools() []tool.Tool { return in.tools }

// Close stops the process, if it runs; later calls fail with [ErrClosed].
func (in *instance) Close(context.Context) error {
	in.mu.Lock()
	in.closed = true
	c := in.cur
	in.cur = nil
	if in.idle != nil {
		in.idle.Stop()
		in.idle = nil
	}
	in.mu.Unlock()
	if c != nil {
		c.stop()
	}
	in.exe.remove()
	return nil
}

// acquire returns the running process, starting it when none runs (the
// first call, after an idle stop, after a crash), and marks it busy.
func (in *instance) acquire(ctx context.Context) (*client, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if in.idle != nil {
		in.idle.Stop()
		in.idle = nil
	}
	if in.cur != nil && in.cur.pc.Exited() {
		in.log.Warn().Msg("plugin process had exited; starting it again")
		in.cur.stop()
		in.cur = nil
	}
	if in.cur == nil {
		c, err := in.start()
		if err != nil {
			return nil, err
		}
		in.cur = c
	}
	in.busy++
	return in.cur, nil
}

// release marks a call done; the last one arms the idle stop.
func (in *instance) release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.busy--
	if in.busy > 0 || in.closed || in.cur == nil {
		return
	}
	c := in.cur
	in.idle = time.AfterFunc(in.p.Manifest.Limits.IdleTimeout(), func() { in.stopIdle(c) })
}

func (in *instance) stopIdle(c *client) {
	in.mu.Lock()
	if in.cur != c || in.busy > 0 {
		in.mu.Unlock()
		return
	}
	in.cur = nil
	in.idle = nil
	in.mu.Unlock()
	in.log.Debug().Str("pid", c.pid()).Msg("stopping the idle plugin process")
	c.stop()
}

// stop ends the process now when no call uses it.
func (in *instance) stop() {
	in.mu.Lock()
	c := in.cur
	if c == nil || in.busy > 0 {
		in.mu.Unlock()
		return
	}
	in.cur = nil
	if in.idle != nil {
		in.idle.Stop()
		in.idle = nil
	}
	in.mu.Unlock()
	c.stop()
}

// discard ends c, which crashed or would not stop, so the next call
// starts a new process.
func (in *instance) discard(c *client) {
	in.mu.Lock()
	if in.cur == c {
		in.cur = nil
	}
	in.mu.Unlock()
	c.stop()
}

// start launches the plugin and completes the handshake. The caller
// holds in.mu.
func (in *instance) start() (*client, error) {
	lim := in.p.Manifest.Limits
	stdout, stderr := newLineLog(in.log, "stdout"), newLineLog(in.log, "stderr")
	r := &procRunner{
		path: in.p.EntryPath, private: &in.exe, checksum: in.p.Manifest.SHA256, dir: in.env.Workspace,
		pdeath: !in.h.NoParentDeath, stderr: stderr,
	}
	own := ownEnv(in.p.Manifest.Name, in.env.Workspace)
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pb.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{pb.Version: {pb.PluginName: grpcPlugin{}}},
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			r.env = childEnv(cmd.Env, own)
			return r, nil
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         !in.h.NoAutoMTLS,
		StartTimeout:     lim.StartTimeout(),
		SkipHostEnv:      true,
		Logger:           hclog.NewNullLogger(),
		SyncStdout:       stdout,
		SyncStderr:       stderr,
		GRPCDialOptions: []grpc.DialOption{
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(lim.OutputBytes() + 64<<10)),
		},
	})
	c := &client{pc: pc, runner: r, logs: []*lineLog{stdout, stderr}}
	cp, err := pc.Client()
	if err != nil {
		c.stop()
		if errors.Is(err, ErrHashMismatch) {
			return nil, err
		}
		reason := startReason(err)
		if last := stderr.lastLine(300); last != "" {
			reason += fmt.Sprintf(" (its last words on stderr: %q)", last)
		}
		return nil, fmt.Errorf("%w: %s", ErrStart, reason)
	}
	raw, err := cp.Dispense(pb.PluginName)
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	rpc, ok := raw.(pb.ToolsClient)
	if !ok {
		c.stop()
		return nil, fmt.Errorf("%w: unexpected client type %T", ErrStart, raw)
	}
	c.rpc = rpc
	in.starts++
	in.log.Debug().Str("pid", c.pid()).Msg("plugin process started")
	return c, nil
}

// startReason rewrites go-plugin's handshake errors into what an operator
// can act on.
func startReason(err error) string {
	msg := err.Error()
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		return "it did not complete the handshake within start_timeout_ms; check that it calls sdk.Serve and does not block before it"
	case strings.Contains(msg, "Failed to read any lines"), strings.Contains(msg, "plugin exited before we could connect"):
		return "it exited before the handshake; run it by hand to see its error, or read talon's log"
	case strings.Contains(msg, "Unrecognized remote plugin message"):
		line := strings.TrimPrefix(strings.SplitN(msg, "\n", 2)[0], "Unrecognized remote plugin message: ")
		return fmt.Sprintf("it wrote %q to stdout before the handshake; a plugin must not print to stdout before sdk.Serve", truncate(line, 200))
	case strings.Contains(lower, "incompatible api version"):
		return fmt.Sprintf("it speaks another protocol version (this talon speaks %d): install a build of the plugin for protocol %d (%s)", pb.Version, pb.Version, strings.ReplaceAll(msg, "\n", " "))
	}
	return msg
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// configJSON is the operator's granted config as a JSON object.
func (in *instance) configJSON() ([]byte, error) {
	cfg := in.p.Grants.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode the plugin's config: %w", err)
	}
	return b, nil
}

func (in *instance) logDiagnostics(ds []*pb.Diagnostic) {
	for _, d := range ds {
		var ev *zerolog.Event
		switch d.GetSeverity() {
		case pb.Severity_SEVERITY_ERROR:
			ev = in.log.Error()
		case pb.Severity_SEVERITY_WARNING:
			ev = in.log.Warn()
		default:
			ev = in.log.Info()
		}
		ev.Str("detail", d.GetDetail()).Msg(d.GetSummary())
	}
}

func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// pluginTool is one tool a plugin serves.
type pluginTool struct {
	inst *instance
	spec tool.Spec
}

var _ tool.Tool = (*pluginTool)(nil)

func (t *pluginTool) Spec() tool.Spec { return t.spec }

// Execute runs one call in the plugin process, starting it when needed.
//
// # Errors
//
// Every failure of the plugin (a failed start, a crash, a timeout, a
// malformed or oversized result) is an error naming the plugin; the
// caller's cancellation is returned as the context's error.
func (t *pluginTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	in := t.inst
	name := in.p.Manifest.Name
	select {
	case in.sem <- struct{}{}:
	case <-ctx.Done():
		return tool.Result{}, ctx.Err()
	}
	held := true
	defer func() {
		if held {
			<-in.sem
		}
	}()
	c, err := in.acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fmt.Errorf("plugin %q (process.%s): %w", name, name, err)
	}
	busy := true
	defer func() {
		if busy {
			in.release()
		}
	}()
	cfg, err := in.configJSON()
	if err != nil {
		return tool.Result{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	id := newCallID()
	timeout := in.p.Manifest.Limits.Timeout()
	var cctx context.Context
	var cancel context.CancelFunc
	if in.p.Manifest.Limits.DeadlineEnforced() {
		cctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		cctx, cancel = context.WithCancel(ctx)
	}
	resp, err := c.rpc.Call(cctx, &pb.CallRequest{CallId: id, Tool: t.spec.Name, Arguments: args, Config: cfg})
	// The deadline travels with the call, so the plugin's side may end the
	// stream with DeadlineExceeded a moment before this side's timer fires.
	deadline := ctx.Err() == nil && (cctx.Err() != nil || status.Code(err) == codes.DeadlineExceeded)
	cancel()
	if err != nil {
		if ctx.Err() != nil || deadline {
			// The call goes on holding its slot until the plugin stopped it
			// or was killed.
			held, busy = false, false
			go func() {
				defer func() { <-in.sem }()
				defer in.release()
				in.enforceStop(c, id)
			}()
			if ctx.Err() != nil {
				return tool.Result{}, ctx.Err()
			}
			return tool.Result{}, fmt.Errorf("plugin %q (process.%s): %w after %s; raise [limits] timeout_ms if the tool needs longer", name, name, ErrTimeout, timeout)
		}
		return tool.Result{}, in.callError(c, err)
	}
	in.logDiagnostics(resp.GetDiagnostics())
	return t.result(resp)
}

// callError explains a failed RPC. A process that went away is discarded,
// so the next call starts it again.
func (in *instance) callError(c *client, err error) error {
	name := in.p.Manifest.Name
	code := status.Code(err)
	if code == codes.ResourceExhausted {
		return fmt.Errorf("plugin %q (process.%s): %w (%d bytes): make the tool return less", name, name, ErrOversized, in.p.Manifest.Limits.OutputBytes())
	}
	if code == codes.Unavailable || code == codes.Canceled || c.pc.Exited() {
		in.discard(c)
		return fmt.Errorf("plugin %q (process.%s): %w (it crashed); it is started again on the next call, and its log above says why", name, name, ErrCrashed)
	}
	return fmt.Errorf("plugin %q (process.%s): call failed: %w", name, name, err)
}

// enforceStop makes sure a call that was cancelled or timed out stops:
// it sends Cancel until the plugin no longer runs the call, and kills the
// process when the grace period passes first.
func (in *instance) enforceStop(c *client, id string) {
	grace := in.h.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	end := time.Now().Add(grace)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		resp, err := c.rpc.Cancel(ctx, &pb.CancelRequest{CallId: id})
		cancel()
		if c.pc.Exited() || (err == nil && !resp.GetFound()) {
			return
		}
		if time.Now().After(end) {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	in.log.Warn().Str("pid", c.pid()).Str("call_id", id).Dur("grace", grace).
		Msg("plugin call did not stop after Cancel; killing the plugin process")
	in.discard(c)
}

// wireResult is the protocol's JSON result document.
type wireResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// result checks and decodes a call's response.
func (t *pluginTool) result(resp *pb.CallResponse) (tool.Result, error) {
	in := t.inst
	name := in.p.Manifest.Name
	raw := resp.GetResult()
	if max := in.p.Manifest.Limits.OutputBytes(); len(raw) > max {
		return tool.Result{}, fmt.Errorf("plugin %q (process.%s): %w: %d bytes, the limit is %d; make the tool return less", name, name, ErrOversized, len(raw), max)
	}
	var w wireResult
	if err := json.Unmarshal(raw, &w); err != nil || w.Content == nil && len(w.StructuredContent) == 0 && !w.IsError {
		why := "it has neither content nor structuredContent"
		if err != nil {
			why = err.Error()
		}
		return tool.Result{}, fmt.Errorf("plugin %q (process.%s): %w: %s; this is a bug in the plugin", name, name, ErrMalformed, why)
	}
	var texts []string
	for _, c := range w.Content {
		if c.Type == "text" || c.Type == "" {
			texts = append(texts, c.Text)
		}
	}
	text := strings.Join(texts, "\n")
	var errs []string
	for _, d := range resp.GetDiagnostics() {
		if d.GetSeverity() == pb.Severity_SEVERITY_ERROR {
			errs = append(errs, d.GetSummary())
		}
	}
	if w.IsError {
		msg := strings.TrimSpace(strings.Join(append([]string{text}, errs...), "\n"))
		if msg == "" {
			msg = "failed without saying why"
		}
		// A tool's failure names the plugin and the tool, as every
		// plugin kind's does.
		return tool.Result{Error: fmt.Sprintf("process.%s: %s: %s", name, t.spec.Name, msg)}, nil
	}
	r := tool.Result{Success: true, Output: tool.Output{Text: text}}
	if len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null" {
		var data any
		if err := json.Unmarshal(w.StructuredContent, &data); err != nil {
			return tool.Result{}, fmt.Errorf("plugin %q (process.%s): %w: structuredContent: %v", name, name, ErrMalformed, err)
		}
		r.Output.Data = data
	}
	return r, nil
}
