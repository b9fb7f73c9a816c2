package extism

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/extism/go-sdk"
	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero/sys"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/internal/guestlog"
	"github.com/talonhq/talon/plugins/internal/instpool"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// plugin is one loaded Extism plugin: its module, grants and pool of
// instances, and once compiled (see prepare) its compiled form.
type plugin struct {
	attr      tool.Attribution
	name      string
	log       zerolog.Logger
	module    module
	limits    manifest.Limits
	enforce   bool
	maxOutput int
	grants    manifest.Grants
	requested []string // permissions.config_read
	workspace string
	guard     *netguard.Guard
	maxCalls  int
	// servlet is set at load, from the module or the cached record of it.
	servlet   bool
	mounts    []mount
	protected workspace.Protected
	pool      *instpool.Pool[*instance]
	tools     []tool.Tool

	// Set once by prepare, under prepMu; read by instances after it.
	prepMu    sync.Mutex
	prepErr   error
	compiled  *sdk.CompiledPlugin
	needs     needs
	isServlet bool

	closeOnce sync.Once
}

var _ plugins.Loaded = (*plugin)(nil)

// Tools implements plugins.Loaded.
func (p *plugin) Tools() []tool.Tool { return append([]tool.Tool(nil), p.tools...) }

// Close implements plugins.Loaded: idle instances are closed now, the
// compiled module once the last call in flight returns.
func (p *plugin) Close(ctx context.Context) error {
	p.close(ctx)
	return nil
}

func (p *plugin) close(ctx context.Context) {
	p.closeOnce.Do(func() {
		p.pool.Shutdown(ctx, func() {
			p.prepMu.Lock()
			compiled := p.compiled
			p.prepMu.Unlock()
			if compiled != nil {
				if err := compiled.Close(context.WithoutCancel(ctx)); err != nil {
					p.log.Warn().Str("attribution", p.attr.String()).Err(err).Msg("close the extism plugin")
				}
			}
			p.guard.CloseIdleConnections()
		})
	})
}

// instance is one instantiated plugin. It serves one call at a time.
type instance struct {
	plugin *sdk.Plugin
	out    *guestlog.Writer
	fs     *mountFS
	calls  int
	// The last http_request's answer, for http_status_code and
	// http_headers.
	status  int32
	headers map[string]string
}

// newInstance instantiates the compiled module, compiling it first when
// this is the plugin's first instance. The guest's own start-up (a WASI
// reactor's _initialize) runs on its first call, under that call's
// deadline, as in every Extism host.
func (p *plugin) newInstance(ctx context.Context) (*instance, error) {
	servlet, err := p.prepare(ctx)
	if err != nil {
		return nil, err
	}
	if servlet != p.servlet {
		return nil, fmt.Errorf("%w: the module is no longer what its cached description says (a servlet: %v); run talon plugins verify %s", ErrNoTools, servlet, p.name)
	}
	ctx, cancel := context.WithTimeout(ctx, p.limits.Timeout())
	defer cancel()
	w := guestlog.New(p.log, p.attr.String())
	inst := &instance{out: w}
	if len(p.mounts) > 0 {
		inst.fs = &mountFS{p: p}
	}
	ctx = withState(ctx, &callState{p: p, inst: inst})
	pi, err := p.compiled.Instance(ctx, sdk.PluginInstanceConfig{ModuleConfig: p.moduleConfig(w, inst.fs)})
	if err != nil {
		return nil, p.guestError(ctx, nil, "start", err)
	}
	pi.SetLogger(func(level sdk.LogLevel, msg string) {
		p.log.Debug().Str("attribution", p.attr.String()).Str("sdk_level", level.String()).Msg(msg)
	})
	inst.plugin = pi
	return inst, nil
}

// close releases the instance.
func (i *instance) close(ctx context.Context) {
	i.out.Flush()
	if i.plugin != nil {
		_ = i.plugin.Close(context.WithoutCancel(ctx))
	}
	i.plugin = nil
}

// outcome is what one guest function call produced.
type outcome struct {
	out []byte
	// result is a servlet call's decoded CallToolResult.
	result tool.Result
	// guestErr is the error the guest set itself (error_set) with a
	// non-zero return: a failure it reports, not a crash.
	guestErr string
}

// run calls export with input on a pooled instance under the plugin's
// deadline. An error is the guest's fault (a trap, an exit, a timeout,
// output over the cap) or the caller's cancellation; the instance is then
// discarded.
func (p *plugin) run(ctx context.Context, toolName, export string, input []byte, forbidden []workspace.Pattern) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, p.limits.Timeout())
	defer cancel()
	inst, err := p.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return outcome{}, fmt.Errorf("%w waiting for an instance: %w", ErrTimeout, err)
		}
		return outcome{}, err
	}
	st := &callState{p: p, inst: inst, tool: toolName, inCall: true}
	if inst.fs != nil {
		inst.fs.begin(forbidden)
	}
	res, err := p.invoke(ctx, st, export, input)
	if inst.fs != nil {
		inst.fs.end()
	}
	inst.out.Flush()
	inst.calls++
	if err == nil && !p.enforce && ctx.Err() != nil {
		// Without compiled-in deadline checks the guest ran to its end
		// past the deadline: a timeout, and the instance is not reused.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("%w after %s (limits.timeout_ms); the instance was quarantined", ErrTimeout, p.limits.Timeout())
		} else {
			err = ctx.Err()
		}
	}
	keep := err == nil && inst.calls < p.maxCalls
	if err != nil {
		p.log.Debug().Str("attribution", p.attr.String()).Err(err).Msg("instance discarded")
	}
	p.pool.Release(ctx, inst, keep)
	return res, err
}

// invoke runs one call of export on st's instance.
func (p *plugin) invoke(ctx context.Context, st *callState, export string, input []byte) (outcome, error) {
	ctx = withState(ctx, st)
	rc, out, err := st.inst.plugin.CallWithContext(ctx, export, input)
	st.end()
	if err != nil {
		set := st.inst.plugin.GetErrorWithContext(context.WithoutCancel(ctx))
		if set != "" && err.Error() == set && !isTrap(err) {
			return outcome{guestErr: set}, nil
		}
		return outcome{}, p.guestError(ctx, st.inst, export, err)
	}
	if rc != 0 {
		return outcome{guestErr: fmt.Sprintf("%s returned %d without saying why", export, rc)}, nil
	}
	if len(out) > p.maxOutput {
		return outcome{}, fmt.Errorf("%s: %w: %d bytes, limits.max_output_bytes is %d", export, ErrOutputTooLarge, len(out), p.maxOutput)
	}
	res := outcome{out: out}
	if p.servlet && export == exportCall && st.tool != "" {
		// A document that is not a CallToolResult discards the instance,
		// as any bad answer does.
		if res.result, err = DecodeResult(out); err != nil {
			return outcome{}, err
		}
	}
	return res, nil
}

// isTrap reports whether err came from running the guest rather than
// from its error_set.
func isTrap(err error) bool {
	var exit *sys.ExitError
	return errors.As(err, &exit) || strings.HasPrefix(err.Error(), "wasm error:")
}

// guestError explains an error from running guest code: the deadline, a
// cancellation, an exit (Go's runtime exits on a panic or when memory runs
// out) or a trap, with the error the guest set before it stopped, if any.
func (p *plugin) guestError(ctx context.Context, inst *instance, what string, err error) error {
	var ref *refusal
	if errors.As(err, &ref) {
		return ref
	}
	said := ""
	if inst != nil && inst.plugin != nil {
		if set := inst.plugin.GetErrorWithContext(context.WithoutCancel(ctx)); set != "" && set != err.Error() {
			said = fmt.Sprintf(" (it said: %s)", firstLine(set))
		} else if line := inst.out.FirstStderr(); line != "" {
			said = fmt.Sprintf(" (it wrote to stderr: %s)", line)
		}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return fmt.Errorf("%s: %w after %s (limits.timeout_ms); the instance was discarded", what, ErrTimeout, p.limits.Timeout())
		case sys.ExitCodeContextCanceled:
			return fmt.Errorf("%s: %w", what, context.Canceled)
		}
		return fmt.Errorf("%s: %w: the guest exited with code %d%s%s", what, ErrTrap, exit.ExitCode(), said, p.memoryHint())
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w after %s (limits.timeout_ms)", what, ErrTimeout, p.limits.Timeout())
	}
	return fmt.Errorf("%s: %w: %s%s%s", what, ErrTrap, firstLine(err.Error()), said, p.memoryHint())
}

// firstLine drops wazero's stack trace from an error message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, " (recovered by wazero)")
}

// memoryHint is appended to a crash: a guest that ran out of memory
// usually traps or exits rather than saying so.
func (p *plugin) memoryHint() string {
	return fmt.Sprintf(" (memory limit %d MiB, limits.max_memory_mb)", p.limits.MemoryMB())
}

// extTool is one tool of a plugin: a servlet's (called through call) or a
// plain export's.
type extTool struct {
	p      *plugin
	spec   tool.Spec
	export string // "" for a servlet tool
}

var _ tool.Tool = (*extTool)(nil)

// Spec implements tool.Tool.
func (t *extTool) Spec() tool.Spec { return t.spec }

// Execute implements tool.Tool. Everything the guest does wrong is a
// failed result naming the plugin; only the caller's own cancellation or
// deadline is an error.
func (t *extTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	return t.execute(ctx, args, nil)
}

func (t *extTool) execute(ctx context.Context, args json.RawMessage, forbidden []workspace.Pattern) (tool.Result, error) {
	name := t.spec.Name
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	export, input := t.export, []byte(args)
	if export == "" {
		export = exportCall
		var err error
		if input, err = encodeCall(name, args); err != nil {
			return tool.Result{}, fmt.Errorf("%s: encode the arguments: %w", t.p.attr, err)
		}
	}
	start := time.Now()
	res, err := t.p.run(ctx, name, export, input, forbidden)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return tool.Result{}, fmt.Errorf("%s: %s: %w", t.p.attr, name, cerr)
		}
		t.p.log.Warn().Str("attribution", t.p.attr.String()).Str("tool", name).Dur("took", time.Since(start)).Err(err).Msg("extism call failed")
		return tool.Result{Error: fmt.Sprintf("%s: %s: %v", t.p.attr, name, err)}, nil
	}
	if res.guestErr != "" {
		return tool.Result{Error: fmt.Sprintf("%s: %s: %s", t.p.attr, name, res.guestErr)}, nil
	}
	var r tool.Result
	if t.export == "" {
		r = res.result
	} else {
		if !utf8.Valid(res.out) {
			return tool.Result{Error: fmt.Sprintf("%s: %s: %v: the output of %s is not UTF-8 text", t.p.attr, name, ErrBadResponse, t.export)}, nil
		}
		r = tool.Result{Success: true, Output: tool.Output{Text: string(res.out)}}
	}
	if !r.Success {
		if r.Error == "" {
			r.Error = "failed without saying why"
		}
		r.Error = fmt.Sprintf("%s: %s: %s", t.p.attr, name, r.Error)
	}
	return r, nil
}

// manifestTools makes the tools of a module mapped by [[tools]].
func (p *plugin) manifestTools(defs []manifest.Tool) error {
	p.tools = p.tools[:0]
	for _, d := range defs {
		schema, err := manifest.ToolSchema(d)
		if err != nil {
			return fmt.Errorf("[[tools]] %q: input_schema %w", d.Name, err)
		}
		tier := tool.High
		if d.Tier != "" {
			if tier, err = tool.ParseTier(d.Tier); err != nil {
				return fmt.Errorf("[[tools]] %q: %w", d.Name, err)
			}
		}
		p.tools = append(p.tools, p.newTool(tool.Spec{Name: d.Name, Description: d.Description, Input: schema, Tier: tier}, d.Export))
	}
	return nil
}

// newTool is a tool of p, with forbidden-path support when p has mounts.
func (p *plugin) newTool(spec tool.Spec, export string) tool.Tool {
	spec.Attribution = p.attr
	t := &extTool{p: p, spec: spec, export: export}
	if len(p.mounts) > 0 {
		return &mountedTool{t}
	}
	return t
}
