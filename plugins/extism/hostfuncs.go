package extism

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/extism/go-sdk"
	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero/api"

	"github.com/talonhq/talon/netguard"
)

// Caps of host function traffic.
const (
	// maxRequestBytes bounds an HTTP request body a guest hands over.
	maxRequestBytes = 8 << 20
	// maxLogBytes bounds one log message.
	maxLogBytes = 4 << 10
)

// hostFunctions are the kernel functions talon answers itself (under
// talonModule, where redirect sends the module's imports of them) and
// AssemblyScript's abort. A refusal panics, which traps the guest: the
// call fails with the reason, naming the plugin, as Extism hosts do.
func (p *plugin) hostFunctions() []sdk.HostFunction {
	I32, I64 := api.ValueTypeI32, api.ValueTypeI64
	fn := func(module, name string, cb sdk.HostFunctionStackCallback, params, results []api.ValueType) sdk.HostFunction {
		f := sdk.NewHostFunctionWithStack(name, cb, params, results)
		f.SetNamespace(module)
		return f
	}
	out := []sdk.HostFunction{
		fn(talonModule, "config_get", p.configGet, []api.ValueType{I64}, []api.ValueType{I64}),
		fn(talonModule, "http_request", p.httpRequest, []api.ValueType{I64, I64}, []api.ValueType{I64}),
		fn(talonModule, "http_status_code", p.httpStatusCode, nil, []api.ValueType{I32}),
		fn(talonModule, "http_headers", p.httpHeaders, nil, []api.ValueType{I64}),
		fn(talonModule, "get_log_level", p.getLogLevel, nil, []api.ValueType{I32}),
		fn(abortModule, "abort", p.abort, []api.ValueType{I32, I32, I32, I32}, nil),
	}
	for name, level := range logLevels {
		out = append(out, fn(talonModule, name, p.logAt(level), []api.ValueType{I64}, nil))
	}
	return out
}

// logLevels maps the kernel's log functions to talon's log levels.
var logLevels = map[string]zerolog.Level{
	"log_trace": zerolog.TraceLevel, "log_debug": zerolog.DebugLevel, "log_info": zerolog.InfoLevel,
	"log_warn": zerolog.WarnLevel, "log_error": zerolog.ErrorLevel,
}

// refusal is a host function's refusal, carried by the trap it causes
// (wazero wraps a host function's panic value with %w).
type refusal struct{ err error }

func (r *refusal) Error() string        { return r.err.Error() }
func (r *refusal) Unwrap() error        { return r.err }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// refuse traps the guest with err.
func refuse(err error) { panic(&refusal{err}) }

// read returns the kernel memory block at offset.
func read(fn string, cp *sdk.CurrentPlugin, offset uint64) []byte {
	b, err := cp.ReadBytes(offset)
	if err != nil {
		refuse(fmt.Errorf("%s: the block at offset %d: %w", fn, offset, err))
	}
	return b
}

// configGet answers config_get: the value of a key the operator granted
// (a string as it is, any other TOML value as JSON), 0 for a key the
// manifest requests in permissions.config_read but the operator did not
// set, and a trap for a key the manifest does not request.
func (p *plugin) configGet(_ context.Context, cp *sdk.CurrentPlugin, stack []uint64) {
	key := string(read("config_get", cp, stack[0]))
	v, ok := p.grants.Config[key]
	if !ok {
		if !slices.Contains(p.requested, key) {
			refuse(fmt.Errorf("config key %q is not granted to plugin %s: the manifest must list it in permissions.config_read and the operator set it in the plugin's [[plugins.entries]] config", key, p.name))
		}
		stack[0] = 0
		return
	}
	off, err := cp.WriteString(configString(v))
	if err != nil {
		refuse(fmt.Errorf("config_get: %w", err))
	}
	stack[0] = off
}

// configString is how a config value reaches an Extism guest, whose
// config values are strings: a string as it is, anything else as JSON.
func configString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// httpRequestDoc is the Extism kernel's request document.
type httpRequestDoc struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
}

// httpRequest answers http_request through netguard, to the granted
// allowed_hosts only, never to private, loopback or metadata addresses;
// the response body is capped at max_output_bytes.
func (p *plugin) httpRequest(ctx context.Context, cp *sdk.CurrentPlugin, stack []uint64) {
	st := stateFrom(ctx)
	if st == nil {
		refuse(errors.New("http_request: no call is under way"))
	}
	doc := read("http_request", cp, stack[0])
	_ = cp.Free(stack[0])
	var r httpRequestDoc
	if err := json.Unmarshal(doc, &r); err != nil {
		refuse(fmt.Errorf("http_request: the request is not valid JSON: %w", err))
	}
	var body []byte
	if stack[1] != 0 {
		body = read("http_request", cp, stack[1])
		_ = cp.Free(stack[1])
		if len(body) > maxRequestBytes {
			refuse(fmt.Errorf("http_request: the body is %d bytes, the limit is %d", len(body), maxRequestBytes))
		}
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, strings.ToUpper(r.Method), r.URL, bytes.NewReader(body))
	if err != nil {
		refuse(fmt.Errorf("http_request: %w", err))
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	st.inst.status, st.inst.headers = 0, nil
	resp, err := p.guard.Do(req, int64(p.maxOutput))
	if err != nil {
		var re *netguard.RefusedError
		if errors.As(err, &re) {
			switch {
			case errors.Is(err, netguard.ErrHostNotAllowed), errors.Is(err, netguard.ErrNoAllowedHosts):
				refuse(fmt.Errorf("http_request refused: %w; plugin %s may reach only its granted allowed_hosts (%s)", err, p.name, hostList(p.grants.AllowedHosts)))
			case errors.Is(err, netguard.ErrAddressRefused):
				refuse(fmt.Errorf("http_request refused: %w; plugins do not connect to loopback, private or link-local addresses", err))
			}
		}
		refuse(fmt.Errorf("http_request: %w", err))
	}
	if resp.Truncated {
		refuse(fmt.Errorf("http_request: the response body is over %d bytes (limits.max_output_bytes)", p.maxOutput))
	}
	st.inst.status = int32(resp.StatusCode)
	st.inst.headers = map[string]string{}
	for k, v := range resp.Header {
		st.inst.headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	if len(resp.Body) == 0 {
		stack[0] = 0
		return
	}
	off, err := cp.WriteBytes(resp.Body)
	if err != nil {
		refuse(fmt.Errorf("http_request: %w", err))
	}
	stack[0] = off
}

func hostList(hs []string) string {
	if len(hs) == 0 {
		return "none"
	}
	return strings.Join(hs, ", ")
}

// httpStatusCode answers http_status_code: the last response's status.
func (p *plugin) httpStatusCode(ctx context.Context, _ *sdk.CurrentPlugin, stack []uint64) {
	var code int32
	if st := stateFrom(ctx); st != nil {
		code = st.inst.status
	}
	stack[0] = api.EncodeI32(code)
}

// httpHeaders answers http_headers: the last response's headers as a JSON
// object (names in lowercase, values joined with commas), 0 before any.
func (p *plugin) httpHeaders(ctx context.Context, cp *sdk.CurrentPlugin, stack []uint64) {
	st := stateFrom(ctx)
	if st == nil || st.inst.headers == nil {
		stack[0] = 0
		return
	}
	b, _ := json.Marshal(st.inst.headers)
	off, err := cp.WriteBytes(b)
	if err != nil {
		refuse(fmt.Errorf("http_headers: %w", err))
	}
	stack[0] = off
}

// level is the least severe level p's log shows.
func (p *plugin) level() zerolog.Level {
	return max(p.log.GetLevel(), zerolog.GlobalLevel())
}

// getLogLevel answers get_log_level with the Extism number of the level
// talon's log shows (0 trace ... 4 error), so a guest formats no message
// that would be dropped.
func (p *plugin) getLogLevel(_ context.Context, _ *sdk.CurrentPlugin, stack []uint64) {
	var n int32
	switch l := p.level(); {
	case l <= zerolog.TraceLevel:
		n = 0
	case l == zerolog.DebugLevel:
		n = 1
	case l == zerolog.InfoLevel:
		n = 2
	case l == zerolog.WarnLevel:
		n = 3
	case l == zerolog.ErrorLevel:
		n = 4
	default:
		n = math.MaxInt32
	}
	stack[0] = api.EncodeI32(n)
}

// logAt answers log_<level>: the message is re-logged at that level with
// the plugin's attribution and the tool being called, cut at 4 KiB.
func (p *plugin) logAt(level zerolog.Level) sdk.HostFunctionStackCallback {
	return func(ctx context.Context, cp *sdk.CurrentPlugin, stack []uint64) {
		if level < p.level() {
			_ = cp.Free(stack[0])
			return
		}
		msg := read("log", cp, stack[0])
		_ = cp.Free(stack[0])
		if len(msg) > maxLogBytes {
			msg = append(msg[:maxLogBytes:maxLogBytes], "…"...)
		}
		ev := p.log.WithLevel(level).Str("attribution", p.attr.String())
		if st := stateFrom(ctx); st != nil && st.tool != "" {
			ev = ev.Str("tool", st.tool)
		}
		ev.Msg(string(msg))
	}
}

// abort answers AssemblyScript's env.abort with a trap. Its message lives
// in the module's own memory, which the SDK does not hand to host
// functions, so the trap names the place; a module built with an abort
// handler of its own (--use abort=...) that calls error_set is reported
// with its message.
func (p *plugin) abort(_ context.Context, _ *sdk.CurrentPlugin, stack []uint64) {
	refuse(fmt.Errorf("abort called at line %d, column %d (AssemblyScript's abort; build with --use abort=<your handler> and set the error there to see its message)",
		api.DecodeU32(stack[2]), api.DecodeU32(stack[3])))
}
