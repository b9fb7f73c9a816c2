package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/talonhq/talon/plugins/proto"
)

// Tool is one tool a plugin serves.
type Tool struct {
	// Name is the model-visible name: ^[a-zA-Z0-9_-]{1,64}$.
	Name string
	// Description tells the model what the tool does. talon prefers the
	// plugin's locales/ messages (id tool-<name>) when it has them.
	Description string
	// Input is the JSON Schema of the arguments; nil means an object with
	// no declared properties.
	Input json.RawMessage
	// Output is the optional JSON Schema of Result.Data.
	Output json.RawMessage
	// Tier is "low", "medium" or "high"; empty means high. talon raises it
	// to the floor the plugin's grants imply.
	Tier string
	// Run executes one call. Its context ends when talon cancels the call
	// or its deadline passes; a tool must return promptly then, or talon
	// kills the plugin. A returned error becomes a failed result.
	Run func(ctx context.Context, c Call) (Result, error)
}

// Call is one request to a tool.
type Call struct {
	// ID identifies the call among those in flight.
	ID string
	// Tool is the tool's name.
	Tool string
	// Args is the JSON object that passed the tool's input schema.
	Args json.RawMessage
	// Config is the operator's granted config values, a JSON object.
	Config json.RawMessage
	// Logger writes to talon's log with the plugin's attribution, the
	// tool's name and the call's id.
	Logger *slog.Logger
}

// Bind decodes the arguments into v.
func (c Call) Bind(v any) error {
	if len(c.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Args, v); err != nil {
		return fmt.Errorf("decode the arguments of %s: %w", c.Tool, err)
	}
	return nil
}

// BindConfig decodes the operator's config values into v.
func (c Call) BindConfig(v any) error {
	if len(c.Config) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Config, v); err != nil {
		return fmt.Errorf("decode the plugin config: %w", err)
	}
	return nil
}

// Result is a call's outcome as the model sees it.
type Result struct {
	// Text is the output shown to the model.
	Text string
	// Data is optional structured output; it must encode as JSON.
	Data any
	// IsError marks a failed call; Text says why.
	IsError bool
}

// Text is a successful result carrying text.
func Text(s string) Result { return Result{Text: s} }

// Errorf is a failed result whose text is formatted like fmt.Sprintf.
func Errorf(format string, a ...any) Result {
	return Result{Text: fmt.Sprintf(format, a...), IsError: true}
}

// Options tune [ServeWith]. The zero value is what [Serve] uses.
type Options struct {
	// Logger receives the plugin's own log lines; nil means JSON lines on
	// the process's stderr, which talon re-logs.
	Logger *slog.Logger
	// WatchdogInterval is how often the plugin checks that talon is still
	// its parent; zero means one second.
	WatchdogInterval time.Duration
}

// Serve serves tools until talon stops the plugin, then returns. It exits
// the process with status 1 when the tools are invalid or the program was
// not started by talon.
func Serve(tools ...Tool) { ServeWith(Options{}, tools...) }

// ServeWith is [Serve] with options.
func ServeWith(opts Options, tools ...Tool) {
	stderr := os.Stderr // go-plugin replaces os.Stderr while serving
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := newServer(tools, log)
	if err != nil {
		fmt.Fprintf(stderr, "talon plugin: %v\n", err)
		os.Exit(1)
	}
	if os.Getenv(pb.Handshake.MagicCookieKey) == pb.Handshake.MagicCookieValue {
		if err := checkSocketDir(); err != nil {
			log.Error("cannot serve", "error", err.Error())
			os.Exit(1)
		}
		startWatchdog(opts.WatchdogInterval, log)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: pb.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			pb.Version: {pb.PluginName: &grpcPlugin{srv: srv}},
		},
		GRPCServer: plugin.DefaultGRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "go-plugin", Output: stderr, Level: hclog.Warn, JSONFormat: true,
		}),
	})
}

// grpcPlugin registers the Tools service with go-plugin's gRPC server.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterToolsServer(s, p.srv)
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("the plugin SDK serves the protocol; it is not a client")
}

// server implements the Tools service over the author's tools.
type server struct {
	pb.UnimplementedToolsServer
	tools    map[string]Tool
	specs    []*pb.ToolSpec
	log      *slog.Logger
	inFlight atomic.Int32

	mu    sync.Mutex
	calls map[string]context.CancelFunc
}

func newServer(tools []Tool, log *slog.Logger) (*server, error) {
	if len(tools) == 0 {
		return nil, errors.New("no tools to serve: pass at least one sdk.Tool to sdk.Serve")
	}
	s := &server{tools: map[string]Tool{}, log: log, calls: map[string]context.CancelFunc{}}
	for _, t := range tools {
		switch {
		case t.Name == "":
			return nil, errors.New("a tool has no name: set sdk.Tool.Name")
		case t.Run == nil:
			return nil, fmt.Errorf("tool %s has no Run function: set sdk.Tool.Run", t.Name)
		}
		if _, dup := s.tools[t.Name]; dup {
			return nil, fmt.Errorf("tool %s is served twice: give each tool its own name", t.Name)
		}
		input := t.Input
		if len(input) == 0 {
			input = json.RawMessage(`{"type":"object"}`)
		}
		if !json.Valid(input) {
			return nil, fmt.Errorf("tool %s: the input schema is not valid JSON", t.Name)
		}
		if len(t.Output) > 0 && !json.Valid(t.Output) {
			return nil, fmt.Errorf("tool %s: the output schema is not valid JSON", t.Name)
		}
		s.tools[t.Name] = t
		s.specs = append(s.specs, &pb.ToolSpec{
			Name: t.Name, Description: t.Description, InputSchema: input, OutputSchema: t.Output, Tier: t.Tier,
		})
	}
	return s, nil
}

func (s *server) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return &pb.DescribeResponse{Tools: s.specs}, nil
}

func (s *server) Health(context.Context, *pb.HealthRequest) (*pb.HealthResponse, error) {
	return &pb.HealthResponse{ProtocolVersion: pb.Version, InFlight: uint32(max(s.inFlight.Load(), 0))}, nil
}

func (s *server) Cancel(_ context.Context, req *pb.CancelRequest) (*pb.CancelResponse, error) {
	s.mu.Lock()
	cancel, ok := s.calls[req.GetCallId()]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return &pb.CancelResponse{Found: ok}, nil
}

func (s *server) Call(ctx context.Context, req *pb.CallRequest) (*pb.CallResponse, error) {
	t, ok := s.tools[req.GetTool()]
	if !ok {
		return encode(Errorf("this plugin has no tool %q", req.GetTool()))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	id := req.GetCallId()
	if id != "" {
		s.mu.Lock()
		s.calls[id] = cancel
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.calls, id)
			s.mu.Unlock()
		}()
	}
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	c := Call{
		ID: id, Tool: t.Name, Args: req.GetArguments(), Config: req.GetConfig(),
		Logger: s.log.With("tool", t.Name, "call_id", id),
	}
	res, err := run(ctx, t, c)
	if err != nil {
		res = Errorf("%v", err)
	}
	return encode(res)
}

// run calls the tool, turning a panic into an error so that one bad call
// does not end the plugin.
func run(ctx context.Context, t Tool, c Call) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.Logger.Error("tool panicked", "panic", fmt.Sprint(p))
			err = fmt.Errorf("tool %s panicked: %v", t.Name, p)
		}
	}()
	return t.Run(ctx, c)
}

// wireResult is the JSON result document, shaped like an MCP tool result.
type wireResult struct {
	Content           []wireContent `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError"`
}

type wireContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func encode(r Result) (*pb.CallResponse, error) {
	w := wireResult{Content: []wireContent{}, StructuredContent: r.Data, IsError: r.IsError}
	if r.Text != "" {
		w.Content = append(w.Content, wireContent{Type: "text", Text: r.Text})
	}
	b, err := json.Marshal(w)
	if err != nil {
		b, _ = json.Marshal(wireResult{
			Content: []wireContent{{Type: "text", Text: "the tool's structured output does not encode as JSON: " + err.Error()}},
			IsError: true,
		})
	}
	return &pb.CallResponse{Result: b}, nil
}

// startWatchdog exits the plugin when talon is gone: when the standard
// input pipe talon holds closes (every platform), or when the parent
// process changes (the plugin was re-parented after talon died).
func startWatchdog(interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = time.Second
	}
	if os.Getenv(pb.EnvWatchdog) == "stdin" {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			log.Warn("talon closed the plugin's standard input; exiting")
			os.Exit(2)
		}()
	}
	parent := os.Getppid()
	if parent <= 1 {
		return
	}
	go func() {
		for range time.Tick(interval) {
			if os.Getppid() != parent {
				log.Warn("talon is gone; exiting")
				os.Exit(2)
			}
		}
	}()
}

// maxSocketPath is the longest unix socket path every unix accepts
// (sun_path is 104 bytes on the BSDs, 108 on Linux, with a NUL).
const maxSocketPath = 103

// checkSocketDir fails early, with a message talon shows, when the
// directory go-plugin makes its unix socket in has so long a path that
// the socket cannot be made.
func checkSocketDir() error {
	if runtime.GOOS == "windows" {
		return nil // go-plugin listens on TCP there
	}
	dir := os.Getenv(plugin.EnvUnixSocketDir)
	if dir == "" {
		dir = os.TempDir()
	}
	// go-plugin names the socket "plugin" and up to ten random digits.
	if n := len(dir) + len("/plugin") + 10; n > maxSocketPath {
		return fmt.Errorf("the temp directory %s is too long for a unix socket (%d of %d bytes); run talon with a shorter TMPDIR, such as /tmp", dir, n, maxSocketPath)
	}
	return nil
}
