//go:build !talon_no_mcp

package cli

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/adapters/cron"
	"github.com/talonhq/talon/adapters/process"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/commandtool"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/console"
	"github.com/talonhq/talon/locales"
	mcpclient "github.com/talonhq/talon/mcp/client"
	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// serveTokenEnv holds the bearer token when the config does not.
const serveTokenEnv = "TALON_SERVE_TOKEN" //nolint:gosec // the name of a variable, not a credential

// drainGrace is how long cancelled calls get to return at shutdown.
const drainGrace = 2 * time.Second

type serveOptions struct {
	stdio           bool
	listen          string
	profile         string
	surface         string
	shutdownTimeout time.Duration
}

func newServeCmd(e *env) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the catalog to agents over MCP (streamable HTTP, or --stdio)",
		Long: `Serve the tool catalog over the Model Context Protocol. Every call goes through the
full pipeline: schema, risk tier, the profile's decision, approval, limits, receipt.

By default talon listens for streamable HTTP on 127.0.0.1:7357 (path /mcp). With
--stdio it serves one client over standard input and output, the way editors and
desktop agents start MCP servers. An address beyond loopback needs --listen on the
command line and a bearer token ([serve] token or $TALON_SERVE_TOKEN).

A call that needs approval is asked through the client (MCP elicitation) when it
supports that; otherwise it waits for ` + "`talon approvals approve|deny ID`" + ` or an
answer in the operator console, which the banner names (/console on the same listener).
SIGHUP or a change to the config file reloads the catalog; connected clients are
told the tool list changed. SIGINT or SIGTERM lets running calls finish for
--shutdown-timeout, then cancels them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serve(cmd.Context(), e, o, cmd.Flags().Changed("listen"))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.stdio, "stdio", false, "serve one client over standard input and output instead of HTTP")
	f.StringVar(&o.listen, "listen", "", "host:port for HTTP (default: [serve] listen, else "+config.DefaultListen+"); beyond loopback it needs a token")
	f.StringVar(&o.profile, "profile", "", "risk profile of every session (default: [serve] profile, else default)")
	f.StringVar(&o.surface, "surface", "", "kind of client: chat or code (default: [serve] surface, else chat)")
	f.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long running calls may finish after SIGINT or SIGTERM before they are cancelled")
	return cmd
}

// serveSettings are the effective settings of one talon serve.
type serveSettings struct {
	listen, token, profile, surface, locale string
}

func (e *env) serveSettings(cfg *config.Config, o *serveOptions) serveSettings {
	s := serveSettings{
		listen: o.listen, token: e.io.getenv(serveTokenEnv),
		profile: o.profile, surface: o.surface, locale: e.g.locale,
	}
	if s.listen == "" {
		s.listen = cfg.Serve.ListenAddress()
	}
	if s.token == "" {
		s.token = cfg.Serve.Token
	}
	if s.profile == "" {
		s.profile = cfg.Serve.ProfileName()
	}
	if s.surface == "" {
		s.surface = cfg.Serve.SurfaceName()
	}
	if s.locale == "" {
		s.locale = cfg.Serve.Locale
	}
	s.locale = locales.Detect(s.locale, cfg.Locale, e.io.getenv)
	return s
}

// serving is a running talon serve and what it needs to reload.
type serving struct {
	e        *env
	o        *serveOptions
	log      zerolog.Logger
	rt       *runtime.Runtime
	srv      *mcpserver.Server
	mgr      *mcpclient.Manager
	settings serveSettings
	// consoleURL is where the operator console is served; "" over stdio.
	consoleURL string
	// fleet is telemetry and the fleet database (cli/fleet.go).
	fleet *serveFleet
}

func serve(ctx context.Context, e *env, o *serveOptions, listenFromFlag bool) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	watch := newFileWatch(e.src.Path)
	if e.g.logLevel == "" {
		// A server's log is its operator's only view of what agents do.
		e.g.logLevel = "info"
	}
	log, err := e.logger()
	if err != nil {
		return err
	}
	for _, w := range e.warnings {
		log.Warn().Msg(w)
	}
	st := e.serveSettings(cfg, o)
	if st.surface != catalog.SurfaceChat && st.surface != catalog.SurfaceCode {
		return usageErrorf("unknown --surface %q: use chat or code", st.surface)
	}
	if !o.stdio {
		if err := mcpserver.CheckListen(st.listen, listenFromFlag, st.token); err != nil {
			return withCode(ExitUsage, err)
		}
	}

	dataDir := e.dataDir(cfg)
	sf, err := e.startTelemetry(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer sf.close()
	queue := approval.NewQueue(approval.QueueOptions{
		Timeout: cfg.Approvals.Timeout(),
		OnPending: func(p approval.Pending) {
			log.Warn().Str("approval", p.ID).Str("tool", p.Request.Tool).Str("attribution", p.Request.Attribution).
				Str("tier", p.Request.Tier.String()).Str("session", p.Request.SessionID).
				Msgf("approval needed: talon approvals approve %s (or deny %s)", p.ID, p.ID)
		},
	})
	ctl, err := mcpserver.ListenControl(dataDir, queue, log)
	approver := &mcpserver.Approver{Logger: log}
	controlPath := ""
	if err != nil {
		log.Warn().Err(err).Msg("talon approvals cannot reach this server: calls needing approval from clients without elicitation are denied")
	} else {
		approver.Queue = queue
		controlPath = ctl.Path()
		defer func() { _ = ctl.Close() }()
	}

	// Scheduled calls have nobody to ask: they fail closed, never queue.
	rt, err := e.runtime(runtimeOptions{surface: st.surface, approver: cron.Approver{Next: approver}, receipts: true, runs: true})
	if err != nil {
		return err
	}
	rt.SetObserver(sf.tel.Observer())
	if cfg.Fleet.Enabled() && cfg.Fleet.Approvals {
		approver.Queue = queue // answered from any machine, even without the local socket
	}
	if err := sf.startFleet(e, cfg, log, queue); err != nil {
		return err
	}
	sf.registerMetrics(approver.Queue, e.plugins)
	sched := cron.NewScheduler(cron.SchedulerOptions{DataDir: dataDir, Caller: rt, Logger: log})
	sched.Start()
	defer sched.Stop()
	defer func() { _ = process.Shutdown() }() // background processes end with talon
	for _, d := range rt.Catalog().Diagnostics() {
		log.Warn().Msg(d.Message)
	}
	toolsChanged := make(chan struct{}, 1)
	mgr := mcpclient.Start(ctx, mcpclient.Options{
		Servers: cfg.MCP.Servers, Dir: rt.Workspace(), LookupEnv: lookupEnv(e.io), Logger: log, Version: version,
		OnToolsChanged: func(string) {
			select {
			case toolsChanged <- struct{}{}:
			default:
			}
		},
	})
	defer func() { _ = mgr.Close() }()
	s := &serving{e: e, o: o, log: log, rt: rt, mgr: mgr, settings: st, fleet: sf}
	if len(cfg.MCP.Servers) > 0 {
		tools, err := s.sourceTools(cfg, false)
		if err == nil {
			err = rt.ReloadWith(cfg, tools)
		}
		if err != nil {
			log.Error().Err(err).Msg("the tools of MCP servers could not join the catalog; serving without them")
		}
	}
	srv, err := mcpserver.New(mcpserver.Options{Runtime: rt, Profile: st.profile, Locale: st.locale, Logger: log, Version: version,
		MaxInFlight: cfg.Serve.InFlightLimit(), MaxQueued: cfg.Serve.QueueLimit(), QueueWait: cfg.Serve.QueueWait()})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	s.srv = srv
	defer func() { _ = srv.Close() }()
	// Tools activated by tool_search join the shared tool list, and
	// clients are told it changed.
	rt.OnActivate(func() {
		if _, err := srv.Sync(); err != nil {
			log.Warn().Err(err).Msg("tool list not refreshed after tool_search")
		}
	})

	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	served := make(chan error, 1)
	var httpSrv *http.Server
	url := ""
	if o.stdio {
		go func() { served <- srv.ServeStdio(runCtx, e.io.In, e.io.Out) }()
	} else {
		ln, err := net.Listen("tcp", st.listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %w; is another talon serve running? choose another address with --listen", st.listen, err)
		}
		url = "http://" + ln.Addr().String() + mcpserver.DefaultPath
		httpOpts := mcpserver.HTTPOptions{Token: st.token, AllowedOrigins: cfg.Serve.AllowedOrigins}
		cons, err := s.console(cfg, approver.Queue, mcpserver.NewAccess(httpOpts))
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer func() { _ = cons.Close() }()
		s.consoleURL = "http://" + ln.Addr().String() + console.Path
		mux := http.NewServeMux()
		mux.Handle("/", srv.HTTPHandler(httpOpts))
		mux.Handle(console.Path, cons)
		mux.Handle("/metrics", mcpserver.NewAccess(httpOpts).Protect(sf.tel.Handler()))
		httpSrv = &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
		}
		go func() { served <- httpSrv.Serve(ln) }()
	}
	s.banner(e.io.ErrOut, url, controlPath)

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return s.shutdown(httpSrv, stopRun, served, "signal")
		case err := <-served:
			if o.stdio {
				// The client closed its end: nobody is left to serve.
				served <- err
				return s.shutdown(nil, stopRun, served, "client disconnected")
			}
			return fmt.Errorf("http server stopped: %w", err)
		case <-hup:
			s.reload("SIGHUP")
		case <-tick.C:
			switch {
			case e.src.Path == "":
				// Started on the embedded defaults: watch for the file
				// talon would load now (config init writes one).
				if s.rediscover() {
					watch = newFileWatch(e.src.Path)
					s.reload("config file created")
				}
			case watch.changed():
				s.reload("config file changed")
			}
		case <-toolsChanged:
			s.reloadTools()
		}
	}
}

// shutdown lets running calls finish (a second signal cuts that short),
// then closes everything.
func (s *serving) shutdown(httpSrv *http.Server, stopRun context.CancelFunc, served chan error, why string) error {
	s.log.Info().Str("reason", why).Dur("timeout", s.o.shutdownTimeout).Msg("shutting down; running calls may finish")
	dctx, cancel := context.WithTimeout(context.Background(), s.o.shutdownTimeout)
	defer cancel()
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	go func() {
		select {
		case <-again:
			cancel()
		case <-dctx.Done():
		}
	}()
	if httpSrv != nil {
		// Stop accepting connections; open ones stay until the calls end.
		go func() { _ = httpSrv.Shutdown(dctx) }()
	}
	if err := s.srv.Drain(dctx, drainGrace); err != nil {
		s.log.Warn().Err(err).Msg("shutdown")
	}
	if httpSrv != nil {
		_ = httpSrv.Close()
	}
	_ = s.srv.Close()
	stopRun()
	if s.o.stdio {
		if err := <-served; err != nil {
			s.log.Warn().Err(err).Msg("stdio session ended with an error")
		}
	}
	s.log.Info().Msg("stopped")
	return nil
}

// reload applies a changed config file. A config that does not load or
// does not build a catalog is reported and the running one kept.
func (s *serving) reload(reason string) {
	e := s.e
	s.rediscover()
	cfg, warnings, err := config.Load(e.src)
	for _, w := range warnings {
		s.log.Warn().Msg(w)
	}
	if err != nil {
		s.log.Error().Str("reason", reason).Err(err).Msg("config reload failed; keeping the running catalog")
		return
	}
	e.protectSecrets(cfg, s.log)
	if !reflect.DeepEqual(cfg.Plugins, s.rt.Config().Plugins) {
		s.log.Warn().Msg("[plugins] changed: plugins load at start, so restart talon serve to apply it")
	}
	commands, err := s.commandTools(cfg, true)
	if err == nil {
		s.mgr.Update(context.Background(), cfg.MCP.Servers)
		err = s.rt.ReloadWith(cfg, append(append(commands, s.mgr.Tools()...), s.e.pluginTools()...))
	}
	if err != nil {
		s.log.Error().Str("reason", reason).Err(err).Msg("config reload failed; keeping the running catalog")
		return
	}
	next := e.serveSettings(cfg, s.o)
	if next.listen != s.settings.listen || next.token != s.settings.token || next.surface != s.settings.surface {
		s.log.Warn().Msg("serve.listen, serve.token and serve.surface apply at start: restart talon serve to use the new values")
	}
	s.srv.SetView(next.profile, next.locale)
	changed, err := s.srv.Sync()
	if err != nil {
		s.srv.SetView(s.settings.profile, s.settings.locale)
		_, _ = s.srv.Sync()
		s.log.Error().Str("reason", reason).Err(err).Msg("config reload: keeping the previous profile and locale")
		return
	}
	s.settings.profile, s.settings.locale = next.profile, next.locale
	s.log.Info().Str("reason", reason).Int("tools", len(s.srv.Tools())).Bool("list_changed", changed).Msg("config reloaded")
}

// rediscover looks again for a config file when the server runs on the
// embedded defaults, and reports whether one now exists. A server that
// loaded a file keeps that file.
func (s *serving) rediscover() bool {
	e := s.e
	if e.src.Path != "" {
		return false
	}
	cwd, err := e.io.cwd()
	if err != nil {
		return false
	}
	src, err := config.Discover(e.g.configPath, cwd, e.io.getenv)
	if err != nil || src.Path == "" {
		return false
	}
	s.log.Info().Str("path", src.Path).Str("origin", src.Origin).Msg("config file found")
	e.src = src
	return true
}

// reloadTools rebuilds the catalog after an MCP server changed its tools.
func (s *serving) reloadTools() {
	cfg := s.rt.Config()
	tools, err := s.sourceTools(cfg, false)
	if err == nil {
		err = s.rt.ReloadWith(cfg, tools)
	}
	if err != nil {
		s.log.Error().Err(err).Msg("the changed tools of an MCP server could not join the catalog")
		return
	}
	if _, err := s.srv.Sync(); err != nil {
		s.log.Error().Err(err).Msg("publish the changed tool list")
	}
}

// sourceTools are the tools of cfg's other sources: its command tools and
// the tools of the connected MCP servers.
func (s *serving) sourceTools(cfg *config.Config, warn bool) ([]tool.Tool, error) {
	commands, err := s.commandTools(cfg, warn)
	if err != nil {
		return nil, err
	}
	return append(append(commands, s.mgr.Tools()...), s.e.pluginTools()...), nil
}

// pluginTools are the tools of the plugins loaded at start. Plugins load
// once per process: a reload keeps them, and a change of [plugins] applies
// when talon serve restarts.
func (e *env) pluginTools() []tool.Tool {
	if e.plugins == nil {
		return nil
	}
	return e.plugins.Tools
}

// commandTools builds cfg's command tools.
func (s *serving) commandTools(cfg *config.Config, warn bool) ([]tool.Tool, error) {
	commands, err := commandtool.Load(cfg, commandtool.Options{Workspace: s.rt.Workspace(), LookupEnv: lookupEnv(s.e.io), Logger: s.log})
	if err != nil {
		return nil, err
	}
	if warn {
		for _, w := range commands.Warnings {
			s.log.Warn().Msg(w)
		}
	}
	agentTools, _, err := s.e.loadAgents(cfg, s.log, func(w string) {
		if warn {
			s.log.Warn().Msg(w)
		}
	})
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(commands.Tools), agentTools...), nil
}

// banner tells the operator what is served and how to connect to it.
func (s *serving) banner(w io.Writer, url, controlPath string) {
	st := s.settings
	specs, _ := s.rt.View(runtime.ViewOptions{Profile: st.profile, Channel: tool.ChannelMCP, Locale: st.locale})
	bySource := map[tool.Kind]int{}
	for _, sp := range specs {
		bySource[sp.Attribution.Kind]++
	}
	kinds := make([]string, 0, len(bySource))
	for k, n := range bySource {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)

	var b strings.Builder
	if s.o.stdio {
		fmt.Fprintf(&b, "talon serve: MCP over stdio\n")
	} else {
		fmt.Fprintf(&b, "talon serve: MCP over streamable HTTP\n")
		fmt.Fprintf(&b, "  url:       %s\n", url)
		if st.token != "" {
			fmt.Fprintf(&b, "  auth:      bearer token required (Authorization: Bearer ...)\n")
		} else {
			fmt.Fprintf(&b, "  auth:      none (loopback only)\n")
		}
		fmt.Fprintf(&b, "  console:   %s\n", s.consoleURL)
		fmt.Fprintf(&b, "  metrics:   %s\n", strings.TrimSuffix(url, mcpserver.DefaultPath)+"/metrics")
	}
	s.fleet.bannerLine(&b)
	ws := s.rt.Workspace()
	fmt.Fprintf(&b, "  workspace: %s\n", ws)
	config := "embedded defaults (watching for a config file)"
	if src := s.e.src; src.Path != "" {
		config = src.Path + " (" + src.Origin + ")"
	}
	fmt.Fprintf(&b, "  config:    %s\n  data:      %s\n", config, s.e.dataDir(s.rt.Config()))
	fmt.Fprintf(&b, "  profile:   %s\n  surface:   %s\n  locale:    %s\n", st.profile, st.surface, st.locale)
	fmt.Fprintf(&b, "  catalog:   %d tools (%s)\n", len(specs), strings.Join(kinds, ", "))
	for _, ms := range s.mgr.Status() {
		switch ms.State {
		case mcpclient.StateFailed:
			fmt.Fprintf(&b, "  mcp:       %s failed to start, skipped: %v\n", ms.Name, ms.Err)
		case mcpclient.StateDisabled:
			fmt.Fprintf(&b, "  mcp:       %s disabled\n", ms.Name)
		default:
			fmt.Fprintf(&b, "  mcp:       %s: %d tools\n", ms.Name, ms.Tools)
		}
		for _, p := range ms.Problems {
			fmt.Fprintf(&b, "             %s\n", p)
		}
	}
	if controlPath != "" {
		fmt.Fprintf(&b, "  approvals: asked through the client when it supports elicitation, else `talon approvals list` or the console\n")
	} else {
		fmt.Fprintf(&b, "  approvals: asked through the client when it supports elicitation, else denied\n")
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "talon"
	}
	fmt.Fprintf(&b, "\nConnect an MCP client (Claude Desktop's claude_desktop_config.json, a project's .mcp.json, ...):\n")
	if !s.o.stdio {
		entry := httpClientEntry{Type: "http", URL: url}
		if st.token != "" {
			entry.Headers = map[string]string{"Authorization": "Bearer ${" + serveTokenEnv + "}"}
		}
		fmt.Fprintf(&b, "  over HTTP, to this server:\n%s", indentJSON(map[string]any{"mcpServers": map[string]any{"talon": entry}}))
	}
	fmt.Fprintf(&b, "  over stdio, the client starts talon itself:\n%s",
		indentJSON(map[string]any{"mcpServers": map[string]any{"talon": stdioClientEntry{Command: exe, Args: []string{"serve", "--stdio", "--workspace", ws}}}}))
	fmt.Fprint(w, b.String())
}

// httpClientEntry and stdioClientEntry are the mcpServers entries most
// MCP clients read.
type httpClientEntry struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

type stdioClientEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "    ", "  ")
	return "    " + string(b) + "\n"
}

// fileWatch notices when a file's content changes: a cheap stat every
// tick, a hash only when the stat differs.
type fileWatch struct {
	path string
	mod  time.Time
	size int64
	sum  [32]byte
}

func newFileWatch(path string) *fileWatch {
	w := &fileWatch{path: path}
	if path != "" {
		w.changed()
	}
	return w
}

func (w *fileWatch) changed() bool {
	if w.path == "" {
		return false
	}
	fi, err := os.Stat(w.path)
	if err != nil || (fi.ModTime().Equal(w.mod) && fi.Size() == w.size) {
		return false
	}
	data, err := os.ReadFile(w.path)
	if err != nil {
		return false
	}
	w.mod, w.size = fi.ModTime(), fi.Size()
	sum := sha256.Sum256(data)
	if sum == w.sum {
		return false
	}
	first := w.sum == [32]byte{}
	w.sum = sum
	return !first
}
