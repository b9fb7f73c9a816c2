package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/talonhq/talon/netguard"
)

// Caps of host function traffic.
const (
	// maxRequestBytes bounds a document a guest passes to a host function.
	maxRequestBytes = 8 << 20
	// maxLogBytes bounds one log message.
	maxLogBytes = 4 << 10
)

// Log levels of the log host function.
const (
	levelDebug = iota
	levelInfo
	levelWarn
	levelError
)

// instantiateHost defines module talon_host_v1 in a plugin's runtime (and
// AssemblyScript's abort where the module needs it).
func instantiateHost(ctx context.Context, rt wazero.Runtime, needs moduleNeeds) error {
	i32 := api.ValueTypeI32
	b := rt.NewHostModuleBuilder(HostModule)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostLog), []api.ValueType{i32, i32, i32}, nil).Export("log")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostTake), []api.ValueType{i32}, []api.ValueType{i32}).Export("take")
	for name, fn := range map[string]requestFunc{
		"config_get":   (*callState).configGet,
		"secret_get":   (*callState).secretGet,
		"http_request": (*callState).httpRequest,
		"fs_read":      (*callState).fsRead,
		"fs_write":     (*callState).fsWrite,
		"fs_list":      (*callState).fsList,
	} {
		b.NewFunctionBuilder().WithGoModuleFunction(requestHandler(name, fn), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("define %s: %w", HostModule, err)
	}
	if needs.abort {
		ab := rt.NewHostModuleBuilder(abortModule)
		ab.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostAbort), []api.ValueType{i32, i32, i32, i32}, nil).Export("abort")
		if _, err := ab.Instantiate(ctx); err != nil {
			return fmt.Errorf("define %s.abort: %w", abortModule, err)
		}
	}
	return nil
}

// hostAbort is AssemblyScript's abort(message, fileName, line, column):
// it traps the guest with the message, so the failed result says what
// went wrong ("abort: index out of range at assembly/index.ts:12:5").
func hostAbort(_ context.Context, m api.Module, stack []uint64) {
	msg := asString(m.Memory(), api.DecodeU32(stack[0]))
	file := asString(m.Memory(), api.DecodeU32(stack[1]))
	panic(fmt.Errorf("abort: %s at %s:%d:%d", msg, file, api.DecodeU32(stack[2]), api.DecodeU32(stack[3])))
}

// asString reads an AssemblyScript string: UTF-16LE code units at ptr,
// their length in bytes in the 4 bytes before it. A null or unreadable
// string is "?"; a long one is cut at 4 KiB.
func asString(mem api.Memory, ptr uint32) string {
	if ptr < 4 || mem == nil {
		return "?"
	}
	n, ok := mem.ReadUint32Le(ptr - 4)
	if !ok {
		return "?"
	}
	n = min(n, maxLogBytes) &^ 1
	b, ok := mem.Read(ptr, n)
	if !ok {
		return "?"
	}
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
	}
	return string(utf16.Decode(units))
}

// requestFunc serves one host function: the guest's request bytes in, a
// JSON value or an error out.
type requestFunc func(s *callState, ctx context.Context, req []byte) (any, error)

// guestRead returns a view of guest memory, trapping the guest on a
// pointer outside it.
func guestRead(m api.Module, fn string, ptr, n uint32, limit int) []byte {
	if int64(n) > int64(limit) {
		panic(fmt.Errorf("%s: the request is %d bytes, the limit is %d", fn, n, limit))
	}
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		panic(fmt.Errorf("%s: bytes %d..%d lie outside the guest's memory", fn, ptr, uint64(ptr)+uint64(n)))
	}
	return b
}

// requestHandler adapts a requestFunc to the ABI: (ptr, len) -> length of
// the response document the guest then fetches with take. The response
// is {"value": ...} or {"error": "..."}.
func requestHandler(name string, fn requestFunc) api.GoModuleFunc {
	return func(ctx context.Context, m api.Module, stack []uint64) {
		st := stateFrom(ctx)
		stopIfAbandoned(st)
		req := guestRead(m, name, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), maxRequestBytes)
		var doc []byte
		switch {
		case st == nil:
			doc = errorDoc(errors.New("no call is under way"))
		default:
			v, err := fn(st, ctx, bytes.Clone(req))
			if err != nil {
				st.p.log.Warn().Str("attribution", st.p.attr.String()).Str("tool", st.tool).Str("host_function", name).Err(err).Msg("host function refused")
				doc = errorDoc(err)
			} else if doc, err = json.Marshal(struct {
				Value any `json:"value"`
			}{v}); err != nil {
				doc = errorDoc(err)
			}
		}
		if st != nil {
			st.inst.pending = doc
		}
		stack[0] = api.EncodeU32(uint32(len(doc)))
	}
}

// stopIfAbandoned ends a guest whose caller already got a timeout result
// (deadline enforcement off): its next host call is where it stops, so a
// guest that calls the host in its loop is cut short without the cost of
// compiled-in checks.
func stopIfAbandoned(st *callState) {
	if st != nil && st.gone() {
		panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
	}
}

func errorDoc(err error) []byte {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{err.Error()})
	return b
}

// hostTake copies the pending response into the guest at ptr and returns
// its length, or -1 when nothing is pending.
func hostTake(ctx context.Context, m api.Module, stack []uint64) {
	st := stateFrom(ctx)
	if st == nil || st.inst.pending == nil {
		stack[0] = api.EncodeI32(-1)
		return
	}
	doc := st.inst.pending
	st.inst.pending = nil
	if !m.Memory().Write(api.DecodeU32(stack[0]), doc) {
		panic(fmt.Errorf("take: bytes %d..%d lie outside the guest's memory", api.DecodeU32(stack[0]), uint64(api.DecodeU32(stack[0]))+uint64(len(doc))))
	}
	stack[0] = api.EncodeI32(int32(len(doc)))
}

// hostLog re-logs a guest message with the plugin's attribution.
func hostLog(ctx context.Context, m api.Module, stack []uint64) {
	level := api.DecodeI32(stack[0])
	msg := guestRead(m, "log", api.DecodeU32(stack[1]), api.DecodeU32(stack[2]), maxRequestBytes)
	st := stateFrom(ctx)
	if st == nil {
		return
	}
	stopIfAbandoned(st)
	if len(msg) > maxLogBytes {
		msg = append(msg[:maxLogBytes:maxLogBytes], "…"...)
	}
	var ev *zerolog.Event
	switch level {
	case levelDebug:
		ev = st.p.log.Debug()
	case levelWarn:
		ev = st.p.log.Warn()
	case levelError:
		ev = st.p.log.Error()
	default:
		ev = st.p.log.Info()
	}
	ev = ev.Str("attribution", st.p.attr.String())
	if st.tool != "" {
		ev = ev.Str("tool", st.tool)
	}
	ev.Msg(string(msg))
}

// configGet returns a granted config value, as the operator wrote it
// (TOML's types as JSON's). The request is the key. A key the manifest
// lists in permissions.config_read that the operator did not set is null
// ("not set"); any other key is refused ("not granted").
func (s *callState) configGet(_ context.Context, req []byte) (any, error) {
	key := string(req)
	v, ok := s.p.grants.Config[key]
	if !ok {
		if slices.Contains(s.p.configRead, key) {
			return nil, nil
		}
		return nil, fmt.Errorf("config key %q is not granted to plugin %s: the manifest must list it in permissions.config_read, and the operator sets it in the plugin's [[plugins.entries]] config", key, s.p.name)
	}
	return v, nil
}

// secretGet returns a granted secret, only while a tool call runs. The
// request is the secret's name.
func (s *callState) secretGet(_ context.Context, req []byte) (any, error) {
	name := string(req)
	granted := false
	for _, g := range s.p.grants.Secrets {
		if g == name {
			granted = true
			break
		}
	}
	if !granted {
		return nil, fmt.Errorf("secret %q is not granted to plugin %s: the manifest must request it in permissions.secrets and the operator grant it in [[plugins.entries]] secrets", name, s.p.name)
	}
	if !s.active() {
		return nil, fmt.Errorf("secret %q is available only while a tool call runs, not at start-up or in talon_describe", name)
	}
	v, ok := s.p.secret(name)
	if !ok {
		return nil, fmt.Errorf("secret %q is granted but not set: the operator must set it in talon's environment", name)
	}
	return v, nil
}

// httpRequestDoc is http_request's request.
type httpRequestDoc struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// httpResponseDoc is http_request's response value.
type httpResponseDoc struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	Body      string            `json:"body"`
	Truncated bool              `json:"truncated,omitempty"`
}

// httpRequest sends a request through the SSRF-guarded client, limited
// to the plugin's allowed hosts.
func (s *callState) httpRequest(ctx context.Context, req []byte) (any, error) {
	var r httpRequestDoc
	if err := json.Unmarshal(req, &r); err != nil {
		return nil, fmt.Errorf("http_request: the request is not valid JSON: %w", err)
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(ctx, strings.ToUpper(r.Method), r.URL, strings.NewReader(r.Body))
	if err != nil {
		return nil, fmt.Errorf("http_request: %w", err)
	}
	for k, v := range r.Headers {
		hreq.Header.Set(k, v)
	}
	resp, err := s.p.guard.Do(hreq, int64(s.p.maxOutput))
	if err != nil {
		var re *netguard.RefusedError
		if errors.As(err, &re) {
			switch {
			case errors.Is(err, netguard.ErrHostNotAllowed), errors.Is(err, netguard.ErrNoAllowedHosts):
				return nil, fmt.Errorf("http_request refused: %w; plugin %s may reach only its granted allowed_hosts (%s)", err, s.p.name, hostList(s.p.grants.AllowedHosts))
			case errors.Is(err, netguard.ErrAddressRefused):
				return nil, fmt.Errorf("http_request refused: %w; plugins do not connect to loopback, private or link-local addresses", err)
			}
		}
		return nil, fmt.Errorf("http_request: %w", err)
	}
	out := httpResponseDoc{Status: resp.StatusCode, Headers: map[string]string{}, Body: string(resp.Body), Truncated: resp.Truncated}
	for k, v := range resp.Header {
		out.Headers[k] = strings.Join(v, ", ")
	}
	return out, nil
}

func hostList(hs []string) string {
	if len(hs) == 0 {
		return "none"
	}
	return strings.Join(hs, ", ")
}
