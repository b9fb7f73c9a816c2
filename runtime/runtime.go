package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
)

var (
	// ErrUnknownTool is a hard error: the name is not in the catalog.
	ErrUnknownTool = errors.New("unknown tool")
)

// Options configure a [Runtime]. The zero value of each field is its
// documented default.
type Options struct {
	// Config is the loaded configuration; nil means the embedded defaults.
	Config *config.Config
	// Surface is "chat" (default) or "code".
	Surface string
	// Workspace is the directory file tools are confined to; "" means the
	// configured workspace or the working directory.
	Workspace string
	// DataDir overrides the configured data directory.
	DataDir string
	// Protected lists what no tool may read or change (see
	// [risk.ProtectedPaths]); the zero value makes the file tools derive
	// it from the config, the data directory and the environment.
	Protected workspace.Protected
	// Locales localizes descriptions; nil loads the embedded messages.
	Locales *locales.Bundle
	// Logger receives one structured line per call; the zero value is silent.
	Logger zerolog.Logger
	// Approver is asked when policy says Ask; nil means nobody can be asked,
	// so such calls are denied.
	Approver approval.Approver
	// Tools are tools from sources other than the compiled-in registry
	// (plugins, command tools, MCP servers).
	Tools []tool.Tool
	// History records calls per session; nil keeps a bounded one in memory.
	History *history.Log
	// Receipts records successful executions; nil issues no receipts.
	Receipts Recorder
	// ApprovalTimeout bounds each wait for an answer; zero means the
	// configured [approvals] timeout_seconds (120 s).
	ApprovalTimeout time.Duration
	// Messages are message files of plugins, added to the bundle after
	// talon's own; one that does not load is logged and left out.
	Messages []MessageSource
	// Rules are the approvals people saved for good; nil means the file
	// at [approval.DefaultRulesPath], whose parse errors are logged.
	Rules *approval.Rules
	// Observer is told about every call (telemetry); nil means none.
	Observer Observer
}

// MessageSource is one plugin's message files, laid out <lang>/*.ftl.
// Plugin tools are described by ids tool-<tool> and
// tool-<tool>-param-<param>; a tool the loader renamed keeps the text its
// plugin describes it with, since its ids no longer match.
type MessageSource struct {
	FS fs.FS
	// Source names the plugin, e.g. "wasm.weather".
	Source string
}

// Recorder issues receipts; *receipts.Store is the implementation.
type Recorder interface {
	Issue(ctx context.Context, e receipts.Entry) (*receipts.Receipt, error)
}

// Runtime hosts a catalog and dispatches calls.
type Runtime struct {
	opts     Options
	bundle   *locales.Bundle
	approver approval.Approver
	log      zerolog.Logger
	history  *history.Log

	state atomic.Pointer[state]

	rules *approval.Rules

	// obs is the observer of calls (Options.Observer, SetObserver).
	obs atomic.Pointer[Observer]

	mu         sync.Mutex
	always     map[string]map[string]bool // session -> approval keys answered "always"
	active     map[string]map[string]bool // session -> tools activated by tool_search
	onActivate func()
}

// state is everything a reload replaces at once.
type state struct {
	cfg     *config.Config
	catalog *catalog.Catalog
	policy  *risk.Policy
	env     toolfactory.Env
	tools   []tool.Tool
}

// New builds the catalog and policy from the options.
func New(opts Options) (*Runtime, error) {
	bundle := opts.Locales
	if bundle == nil {
		var err error
		if bundle, err = loadMessages(opts); err != nil {
			return nil, err
		}
	}
	for _, m := range opts.Messages {
		if err := bundle.AddFS(m.FS, m.Source); err != nil {
			opts.Logger.Warn().Err(err).Str("attribution", m.Source).Msg("plugin messages not loaded; its tools keep their own descriptions")
		}
	}
	approver := opts.Approver
	if approver == nil {
		approver = approval.NonInteractive{}
	}
	hist := opts.History
	if hist == nil {
		hist = history.New(history.Options{})
	}
	r := &Runtime{opts: opts, bundle: bundle, approver: approver, log: opts.Logger, history: hist,
		always: map[string]map[string]bool{}, active: map[string]map[string]bool{}, rules: opts.Rules}
	if r.rules == nil {
		log := opts.Logger
		r.rules = approval.OpenRules(approval.DefaultRulesPath(osGetenv), func(err error) {
			log.Warn().Err(err).Msg("saved approvals ignored")
		})
	}
	r.SetObserver(opts.Observer)
	_, _ = r.rules.List() // a file that does not parse is reported now
	st, err := r.build(opts.Config)
	if err != nil {
		return nil, err
	}
	r.state.Store(st)
	return r, nil
}

// loadMessages loads the embedded messages plus the operator's overlay
// directory, <config dir>/locales/<lang>/*.ftl, when it exists.
func loadMessages(opts Options) (*locales.Bundle, error) {
	lo := locales.Options{Logger: opts.Logger}
	if opts.Config != nil && opts.Config.ConfigDir() != "" {
		dir := filepath.Join(opts.Config.ConfigDir(), "locales")
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			lo.Overlays = append(lo.Overlays, os.DirFS(dir))
		}
	}
	b, err := locales.New(lo)
	if err != nil {
		return nil, fmt.Errorf("load messages: %w", err)
	}
	return b, nil
}

func (r *Runtime) build(cfg *config.Config) (*state, error) {
	return r.buildWith(cfg, r.opts.Tools)
}

func (r *Runtime) buildWith(cfg *config.Config, tools []tool.Tool) (*state, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	ws := r.opts.Workspace
	if ws == "" {
		cwd, err := osGetwd()
		if err != nil {
			return nil, err
		}
		if ws, err = cfg.WorkspaceDir(cwd); err != nil {
			return nil, err
		}
	}
	ws, err := resolveDir(ws)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	policy, err := risk.NewPolicyWith(cfg, risk.PolicyOptions{Workspace: ws, Home: r.opts.Protected.Home()})
	if err != nil {
		return nil, err
	}
	dataDir := r.opts.DataDir
	if dataDir == "" {
		dataDir = cfg.DataDir(osGetenv)
	}
	surface := r.opts.Surface
	if surface == "" {
		surface = catalog.SurfaceChat
	}
	so := catalog.SelectOptions{Optional: cfg.Tools.Optional, Surface: surface}
	if cfg.Runtime.DeferredBuiltinTools {
		so.Always = []string{ToolSearch}
	}
	sel, err := catalog.Select(so)
	if err != nil {
		return nil, err
	}
	env := toolfactory.Env{Workspace: ws, DataDir: dataDir, Protected: r.opts.Protected, Config: cfg, Logger: r.log, History: r.history, Caller: r, Discovery: r}
	cat, err := catalog.Build(catalog.BuildOptions{Selection: sel, Surface: surface, Env: env, Bundle: r.bundle, Tools: tools})
	if err != nil {
		return nil, err
	}
	return &state{cfg: cfg, catalog: cat, policy: policy, env: env, tools: tools}, nil
}

// Reload builds a new catalog and policy from cfg, keeping the current
// tools of other sources, and swaps them in atomically. Calls in flight
// finish on the snapshot they started with. On error the running state is
// kept.
func (r *Runtime) Reload(cfg *config.Config) error {
	return r.ReloadWith(cfg, r.state.Load().tools)
}

// ReloadWith is [Runtime.Reload] with a new set of tools from other sources
// (plugins, command tools, MCP servers).
func (r *Runtime) ReloadWith(cfg *config.Config, tools []tool.Tool) error {
	st, err := r.buildWith(cfg, tools)
	if err != nil {
		return err
	}
	r.state.Store(st)
	return nil
}

// Catalog returns the current catalog snapshot.
func (r *Runtime) Catalog() *catalog.Catalog { return r.state.Load().catalog }

// Config returns the configuration of the current snapshot.
func (r *Runtime) Config() *config.Config { return r.state.Load().cfg }

// Workspace returns the resolved workspace directory.
func (r *Runtime) Workspace() string { return r.state.Load().env.Workspace }

// Locales returns the message bundle.
func (r *Runtime) Locales() *locales.Bundle { return r.bundle }

// History returns the record of calls per session.
func (r *Runtime) History() *history.Log { return r.history }

// Policy returns the compiled risk policy of the current snapshot.
func (r *Runtime) Policy() *risk.Policy { return r.state.Load().policy }

// ViewOptions select what one caller sees.
type ViewOptions struct {
	// Profile names the risk profile; "" means "default".
	Profile string
	// Channel is the caller's channel; "" means tool.ChannelAPI.
	Channel string
	// Locale is the language of descriptions; "" means English.
	Locale string
	// Session names the caller's session, whose tool_search activations
	// the view includes when deferred discovery is on.
	Session string
	// AnyActivated includes the tools any session has activated: a view
	// shared by many sessions (an MCP server's tool list) uses it.
	AnyActivated bool
}

// View returns the localized specs a caller may use: the catalog minus the
// tools its profile can never run on its channel.
func (r *Runtime) View(opts ViewOptions) ([]tool.Spec, error) {
	st := r.state.Load()
	prof, err := st.policy.Profile(opts.Profile)
	if err != nil {
		return nil, err
	}
	ch := channelOf(opts.Channel)
	var out []tool.Spec
	for _, s := range st.catalog.Specs(opts.Locale) {
		if prof.CanEverRun(s, ch) {
			out = append(out, s)
		}
	}
	return r.defer_(st, out, opts), nil
}

// PerCall reports whether calls of the named tool differ in tier, its
// spec's tier being only a floor that each call's assessment raises (see
// [toolfactory.Factory.PerCall]).
func (r *Runtime) PerCall(name string) bool {
	e, ok := r.state.Load().catalog.Lookup(name)
	if !ok || e.Spec.Attribution.Kind != tool.KindBuiltin {
		return false
	}
	f, ok := toolfactory.Get(name)
	return ok && f.PerCall
}

func channelOf(c string) string {
	if c == "" {
		return tool.ChannelAPI
	}
	return c
}

// unknownTool builds the hard error for a name not in the catalog.
func unknownTool(cat *catalog.Catalog, name string) error {
	names := make([]string, 0, cat.Len())
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	msg := fmt.Sprintf("%v %q", ErrUnknownTool, name)
	if s := spelling.Closest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if _, known := toolfactory.Lookup(name); known && !slices.Contains(names, name) {
		msg += "; it is not in this catalog: add it to [tools] optional or check the build features"
	} else {
		msg += "; run `talon tools list` to see the catalog"
	}
	return &unknownToolError{msg: msg}
}

type unknownToolError struct{ msg string }

func (e *unknownToolError) Error() string { return e.msg }
func (e *unknownToolError) Unwrap() error { return ErrUnknownTool }
