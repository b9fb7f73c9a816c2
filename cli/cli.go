package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/commandtool"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/consolelog"
	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/runtime"
	spawner "github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/secret"
	"github.com/talonhq/talon/tool"
)

// IOStreams is all the I/O a command does.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTTY reports whether In is an interactive terminal.
	InTTY bool
	// Getenv reads the environment; nil means the process's own, through
	// secret.Getenv (which still sees what secret.Protect removed).
	Getenv func(string) string
	// Cwd is the working directory; "" means os.Getwd.
	Cwd string
}

// System returns the process's own streams.
func System() IOStreams {
	return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, InTTY: isTerminal(os.Stdin)}
}

func (s IOStreams) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return secret.Getenv(k)
}

func (s IOStreams) cwd() (string, error) {
	if s.Cwd != "" {
		return s.Cwd, nil
	}
	return os.Getwd()
}

// globals are the persistent flags every command shares.
type globals struct {
	configPath string
	dataDir    string
	workspace  string
	locale     string
	logLevel   string
}

// env is what commands use to reach config and the runtime.
type env struct {
	io IOStreams
	g  *globals

	loaded    bool
	sandboxed bool
	// localeChecked is set once a named locale was checked for messages.
	localeChecked bool
	store         *receipts.Store
	cfg           *config.Config
	src           config.Source
	warnings      []string

	// plugins are the plugins loaded for the command's runtime; Main
	// closes them when the command ends.
	plugins *plugins.Set
	// lives is set for a command that keeps running (serve): it gets the
	// collector's default once its runtime is built.
	lives bool
}

// Main runs talon with args and returns the exit code.
func Main(args []string, streams IOStreams) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{io: streams, g: &globals{}}
	if streams.Getenv == nil {
		briefGC(true)
	}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	err := root.ExecuteContext(ctx)
	cleanupSandbox()
	if e.plugins != nil {
		if cerr := e.plugins.Close(context.Background()); cerr != nil {
			fmt.Fprintf(streams.ErrOut, "talon: warning: close plugins: %v\n", cerr)
		}
	}
	if e.store != nil {
		if cerr := e.store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close receipt store: %w", cerr)
		}
	}
	if err != nil {
		var s errSilent
		if !errors.As(err, &s) {
			fmt.Fprintf(streams.ErrOut, "talon: %v\n", err)
		}
	}
	return ExitCode(err)
}

// briefGCPercent is the collector's setting while a command runs briefly:
// a listing allocates a few MiB and exits, and two collections of them
// were a tenth of talon tools list with 50 plugins. GOGC in the
// environment wins.
const briefGCPercent = 400

// briefGC sets the collector for a brief command, or back to the default
// (talon serve, once started).
func briefGC(brief bool) {
	if os.Getenv("GOGC") != "" {
		return
	}
	if brief {
		debug.SetGCPercent(briefGCPercent)
	} else {
		debug.SetGCPercent(100)
	}
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "talon",
		Short: "Host the tools an AI agent calls, under policy, with signed receipts",
		Long: `talon builds a tool catalog from compiled-in adapters, plugins, command tools and
MCP servers, classifies every call by risk under an autonomy profile, asks a
person where policy says so, and records what ran.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v; see `%s --help`", err, c.CommandPath())
	})
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		// A server lives: the collector's default again once its runtime
		// (plugins and all) is built.
		e.lives = cmd.Name() == "serve"
		if e.g.locale != "" {
			if _, ok := locales.Normalize(e.g.locale); !ok {
				return usageErrorf("--locale %q is not a language tag; use one such as en or ja", e.g.locale)
			}
		}
		return nil
	}
	pf := root.PersistentFlags()
	pf.StringVar(&e.g.configPath, "config", "", "config file (default: $TALON_CONFIG, talon.toml upward, $XDG_CONFIG_HOME/talon/config.toml)")
	pf.StringVar(&e.g.dataDir, "data-dir", "", "data directory (default: $XDG_DATA_HOME/talon)")
	pf.StringVar(&e.g.workspace, "workspace", "", "workspace directory file tools are confined to (default: config, else the working directory)")
	pf.StringVar(&e.g.locale, "locale", "", "language of tool descriptions, e.g. en or ja (default: config, then LANG)")
	pf.StringVar(&e.g.logLevel, "log-level", "", "log level for stderr: debug, info, warn, error (default: off)")

	root.AddCommand(newToolsCmd(e), newConfigCmd(e), newVersionCmd(e), newPolicyCmd(e), newReceiptsCmd(e), newServeCmd(e), newApprovalsCmd(e), newLintCmd(e), newSandboxCmd(e), newSandboxHelperCmd())
	root.AddCommand(newPluginsCmd(e), newAgentsCmd(e), newFleetCmd(e))
	root.AddCommand(newCompletionCmd(root))
	groupsRefuseUnknown(root)
	return root
}

// channelValue is a --channel flag: one of the channels a call can
// arrive on, checked when the flag is parsed.
type channelValue struct{ p *string }

func newChannelValue(p *string) channelValue {
	*p = tool.ChannelCLI
	return channelValue{p}
}

func (v channelValue) String() string { return *v.p }
func (v channelValue) Type() string   { return "channel" }
func (v channelValue) Set(s string) error {
	switch s {
	case tool.ChannelCLI, tool.ChannelMCP, tool.ChannelCron, tool.ChannelAPI:
		*v.p = s
		return nil
	}
	return fmt.Errorf("%q is not a channel: use cli, mcp, cron or api", s)
}

// groupsRefuseUnknown makes every command that only groups others (root
// included) refuse an argument that names no subcommand, as a usage error
// with a did-you-mean, instead of printing help and exiting 0.
func groupsRefuseUnknown(c *cobra.Command) {
	for _, sub := range c.Commands() {
		groupsRefuseUnknown(sub)
	}
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		var names []string
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		if s := spelling.Closest(args[0], names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return usageErrorf("%s; see `%s --help`", msg, cmd.CommandPath())
	}
}

// config loads the configuration once.
func (e *env) config() (*config.Config, error) {
	if e.loaded {
		return e.cfg, nil
	}
	cwd, err := e.io.cwd()
	if err != nil {
		return nil, err
	}
	src, err := config.Discover(e.g.configPath, cwd, e.io.getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	cfg, warnings, err := config.Load(src)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	e.cfg, e.src, e.warnings, e.loaded = cfg, src, warnings, true
	return cfg, nil
}

func (e *env) logger() (zerolog.Logger, error) {
	if e.g.logLevel == "" {
		return zerolog.Nop(), nil
	}
	lvl, err := zerolog.ParseLevel(strings.ToLower(e.g.logLevel))
	if err != nil {
		return zerolog.Nop(), usageErrorf("unknown --log-level %q: use debug, info, warn or error", e.g.logLevel)
	}
	return zerolog.New(zerolog.SyncWriter(consolelog.Writer{Out: e.io.ErrOut, TimeFormat: "15:04:05"})).Level(lvl).With().Timestamp().Logger(), nil
}

// localeFor resolves the locale of output.
func (e *env) localeFor(cfg *config.Config) string {
	tag := locales.Detect(e.g.locale, cfg.Locale, e.io.getenv)
	if !e.localeChecked {
		e.localeChecked = true
		if e.g.locale != "" || cfg.Locale != "" {
			if langs := knownLocales(cfg); !localeKnown(tag, langs) {
				fmt.Fprintf(e.io.ErrOut, "talon: warning: no messages for locale %s (talon has %s; add files under %s to translate); descriptions fall back to English\n",
					tag, strings.Join(langs, ", "), filepath.Join(cfg.ConfigDir(), "locales", tag))
			}
		}
	}
	return tag
}

// knownLocales lists the languages talon has messages for: the embedded
// ones and the operator's overlays. Plugins may add their own.
func knownLocales(cfg *config.Config) []string {
	langs, _ := locales.LocaleDirs(locales.Embedded())
	if dir := cfg.ConfigDir(); dir != "" {
		if extra, err := locales.LocaleDirs(os.DirFS(filepath.Join(dir, "locales"))); err == nil {
			langs = append(langs, extra...)
		}
	}
	slices.Sort(langs)
	return slices.Compact(langs)
}

// localeKnown reports whether tag or its base language has messages.
func localeKnown(tag string, langs []string) bool {
	base, _, _ := strings.Cut(tag, "-")
	return slices.Contains(langs, tag) || slices.Contains(langs, base)
}

// runtimeOptions says how to build a runtime for one command.
type runtimeOptions struct {
	surface  string
	approver approval.Approver
	// receipts opens the receipt store for writing; commands that only look
	// (list, explain) leave it closed: they take no chain and never read
	// the signing key.
	receipts bool
	// runs is set by commands that run tools (serve, tools call): they
	// refuse a workspace chosen only by where talon was started when it
	// would reach far more than a project (see checkWorkspace).
	runs bool
}

// protectSecrets takes talon's secrets out of its environment: the
// variables cfg references as ${VAR} and those named like secrets. A
// talon with injected streams (tests) has no environment of its own to
// protect.
func (e *env) protectSecrets(cfg *config.Config, log zerolog.Logger) {
	if e.io.Getenv != nil {
		return
	}
	if err := secret.Protect(append(secret.Referenced(cfg), cfg.ModelKeyEnvs()...)); err != nil {
		log.Warn().Err(err).Msg("talon's secrets are only partly hidden from the processes it starts")
	}
}

// sandboxProbed hears what the sandbox enforces once its namespace probe
// ran, before the first tool process starts (at once, from Configure,
// when no tool process will be sandboxed): it says when tool processes run
// without namespaces, and seals talon's secrets.
func (e *env) sandboxProbed(st spawner.Status) {
	log, _ := e.logger() // its level was checked before the sandbox was configured
	if st.Active && !st.Namespaces {
		fmt.Fprintf(e.io.ErrOut, "talon: warning: sandbox without namespaces (%s); tool processes run under Landlock only and can see other processes' command lines and reach Unix sockets. Run `talon sandbox check` for what holds here\n", st.NamespacesReason)
	}
	e.sealSecrets(st, log)
}

// sealSecrets makes talon non-dumpable, so that processes of its user
// cannot read its memory, unless the sandbox starts tools in namespaces of
// their own: there they see no process of talon's, and a non-dumpable
// talon that is not root could not write the user namespace's id maps.
func (e *env) sealSecrets(st spawner.Status, log zerolog.Logger) {
	if e.io.Getenv != nil || st.Namespaces {
		return
	}
	if err := secret.Seal(); err != nil {
		log.Warn().Err(err).Msg("processes of talon's user can read its memory")
	}
}

func (e *env) runtime(o runtimeOptions) (*runtime.Runtime, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	log, err := e.logger()
	if err != nil {
		return nil, err
	}
	e.protectSecrets(cfg, log) // before any tool can start
	ws, err := e.workspaceDir(cfg)
	if err != nil {
		return nil, err
	}
	if o.runs {
		if err := e.checkWorkspace(cfg, ws); err != nil {
			return nil, err
		}
	}
	e.configureSandbox(cfg, ws)
	commands, err := commandtool.Load(cfg, commandtool.Options{Workspace: ws, LookupEnv: lookupEnv(e.io), Logger: log})
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("%w; run talon lint for every problem", err))
	}
	for _, w := range commands.Warnings {
		fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", w)
	}
	agentTools, messages, err := e.loadAgents(cfg, log, func(w string) { fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", w) })
	if err != nil {
		return nil, err
	}
	tools := append(slices.Clone(commands.Tools), agentTools...)
	if cfg.Plugins.Enabled && e.plugins == nil {
		set, err := plugins.Load(context.Background(), plugins.Options{Config: cfg, Workspace: ws, DataDir: e.dataDir(cfg), Logger: log})
		if err != nil {
			return nil, err
		}
		for _, w := range set.Warnings {
			fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", w)
		}
		e.plugins = set
	}
	if e.plugins != nil {
		tools = append(slices.Clone(tools), e.plugins.Tools...)
		for _, m := range e.plugins.Messages {
			messages = append(messages, runtime.MessageSource{FS: m.FS, Source: m.Source})
		}
	}
	var recorder runtime.Recorder
	if o.receipts {
		s, err := e.openReceipts(cfg)
		if err != nil {
			return nil, err
		}
		if s != nil {
			recorder = s
		}
	}
	if e.lives && e.io.Getenv == nil {
		defer briefGC(false)
	}
	rt, err := runtime.New(runtime.Options{
		Config: cfg, Surface: o.surface, Workspace: ws, DataDir: e.dataDir(cfg), Logger: log, Approver: o.approver,
		Protected: risk.ProtectedPaths(cfg, e.dataDir(cfg), e.io.getenv),
		Receipts:  recorder, Tools: tools, Messages: messages,
		Rules: approval.OpenRules(approval.DefaultRulesPath(e.io.getenv), func(err error) {
			fmt.Fprintf(e.io.ErrOut, "talon: warning: %v\n", err)
		}),
	})
	if err != nil {
		if ExitCode(err) == ExitError {
			err = withCode(ExitUsage, err)
		}
		return nil, err
	}
	return rt, nil
}

func newCompletionCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return usageErrorf("unknown shell %q: use bash, zsh, fish or powershell", args[0])
		},
	}
}
