package telemetry

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo is a tool that says what it was given.
type echo struct {
	name string
	tier tool.Tier
}

func (e echo) Spec() tool.Spec {
	return tool.Spec{Name: e.name, Description: "echo", Input: json.RawMessage(`{"type":"object"}`), Tier: e.tier,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: e.name}}
}

func (e echo) Execute(_ context.Context, args json.RawMessage) (tool.Result, error) {
	return tool.Text("got " + string(args)), nil
}

type yes struct{}

func (yes) Approve(context.Context, approval.Request) (approval.Answer, error) {
	return approval.Yes, nil
}

func newRuntime(t testing.TB, tel *Telemetry) *runtime.Runtime {
	t.Helper()
	var obs runtime.Observer
	if tel != nil {
		obs = tel.Observer()
	}
	none := []string{}
	cfg := &config.Config{}
	cfg.Tools.Optional = &none
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: t.TempDir(), DataDir: t.TempDir(), Approver: yes{},
		Tools: []tool.Tool{echo{"t_low", tool.Low}, echo{"t_mid", tool.Medium}}, Logger: zerolog.Nop(), Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// receiver is an OTLP/HTTP collector stand-in: it keeps the spans posted
// to /v1/traces and counts the metric exports posted to /v1/metrics.
type receiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch req.URL.Path {
	case "/v1/traces":
		var m coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, rs := range m.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	case "/v1/metrics":
		r.metrics++
	default:
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func attrs(s *tracepb.Span) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes {
		v := kv.Value.GetStringValue()
		if v == "" && kv.Value.GetIntValue() != 0 {
			v = strconv.FormatInt(kv.Value.GetIntValue(), 10)
		}
		out[kv.Key] = v
	}
	return out
}

func TestSpansReachAnOTLPReceiver(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "talon-test")
	tel, err := New(context.Background(), Options{Version: "v0-test"})
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Exporting.Traces || !tel.Exporting.Metrics {
		t.Fatalf("exporting %+v with an endpoint set", tel.Exporting)
	}
	rt := newRuntime(t, tel)
	res, err := rt.Call(context.Background(), tool.Call{Name: "t_mid", Args: json.RawMessage(`{"secret_word":"swordfish"}`), SessionID: "s-9", Channel: tool.ChannelMCP})
	if err != nil || !res.Success {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, s := range rcv.spans {
		byName[s.Name] = s
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "swordfish") {
				t.Errorf("span %s carries the arguments: %s", s.Name, kv)
			}
		}
	}
	call, wait := byName["execute_tool t_mid"], byName["approval_wait t_mid"]
	if call == nil || wait == nil {
		t.Fatalf("spans received: %v", rcv.spans)
	}
	want := map[string]string{"talon.tool": "t_mid", "talon.attribution": "command.t_mid", "talon.tier": "medium", "talon.decision": "ask",
		"talon.outcome": "success", "talon.profile": "default", "talon.channel": "mcp", "talon.session": "s-9"}
	got := attrs(call)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span attribute %s = %q, want %q", k, got[k], v)
		}
	}
	if string(wait.ParentSpanId) != string(call.SpanId) || string(wait.TraceId) != string(call.TraceId) {
		t.Errorf("the approval wait is not a child of the call's span")
	}
	if a := attrs(wait); a["talon.answer"] != "yes" {
		t.Errorf("approval span attributes %v", a)
	}
	if rcv.metrics == 0 {
		t.Error("no metrics were exported over OTLP")
	}
}

func TestExportIsOffUnlessAsked(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		traces bool
	}{
		{"nothing set", nil, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{"zipkin", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := exporting(getenv, "TRACES", zerolog.Nop()); got != tt.traces {
				t.Fatalf("exporting traces = %v, want %v", got, tt.traces)
			}
		})
	}
}

// sampleLine is one sample of the text format: a name, labels, a value.
var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*)\})? (\S+)$`)

// scrape parses a /metrics answer strictly: every line a comment of the
// format or a sample of a family its # TYPE announced. It returns the
// samples as "name{labels}" -> value.
func scrape(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	types := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			if _, dup := types[f[2]]; dup {
				t.Fatalf("family %s announced twice", f[2])
			}
			types[f[2]] = f[3]
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a line of the Prometheus text format: %q", line)
		}
		fam := m[1]
		if types[fam] == "" {
			fam = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(fam, "_bucket"), "_sum"), "_count")
		}
		if types[fam] == "" {
			t.Fatalf("sample %s of a family without # TYPE", m[1])
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			t.Fatalf("value of %q: %v", line, err)
		}
		out[m[1]+"{"+m[3]+"}"] = v
	}
	return out
}

func TestMetricsEndpoint(t *testing.T) {
	tel, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.Exporting.Traces || tel.Exporting.Metrics {
		t.Fatalf("exporting %+v without any OTEL_* variable", tel.Exporting)
	}
	pending := 3.0
	if err := tel.Gauge("talon.approvals.pending", "", "Approvals waiting for a person.", func(report func(float64, ...string)) { report(pending) }); err != nil {
		t.Fatal(err)
	}
	if err := tel.Gauge("talon.plugin.pool.instances", "", "WASM instances per plugin.", func(report func(float64, ...string)) {
		report(2, "plugin", `we"ird`, "state", "idle")
	}); err != nil {
		t.Fatal(err)
	}
	if err := tel.Counter("talon.receipts.shipped", "", "Receipts shipped.", func() int64 { return 42 }); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, tel)
	for range 2 {
		if _, err := rt.Call(context.Background(), tool.Call{Name: "t_low"}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = rt.Call(context.Background(), tool.Call{Name: "t_mid"})
	_, _ = rt.Call(context.Background(), tool.Call{Name: "nope"})

	srv := httptest.NewServer(tel.Handler())
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ContentType {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := scrape(t, string(body))
	want := map[string]float64{
		`talon_calls_total{attribution="command.t_low",decision="allow",outcome="success",tool="t_low"}`: 2,
		`talon_calls_total{attribution="command.t_mid",decision="ask",outcome="success",tool="t_mid"}`:   1,
		`talon_calls_total{attribution="",decision="",outcome="error",tool="nope"}`:                      1,
		`talon_call_duration_seconds_count{outcome="success",tool="t_low"}`:                              2,
		`talon_call_duration_seconds_bucket{outcome="success",tool="t_low",le="+Inf"}`:                   2,
		`talon_approval_wait_seconds_count{answer="yes",tool="t_mid"}`:                                   1,
		`talon_approvals_pending{}`:                                  3,
		`talon_plugin_pool_instances{plugin="we\"ird",state="idle"}`: 2,
		`talon_receipts_shipped_total{}`:                             42,
	}
	for k, v := range want {
		if got, ok := s[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v\n%s", k, got, ok, v, body)
		}
	}
	// Buckets only grow, up to the count.
	last := -1.0
	for _, le := range append(append([]float64{}, callBuckets...), 0) {
		k := `talon_call_duration_seconds_bucket{outcome="success",tool="t_low",le="` + formatFloat(le) + `"}`
		if le == 0 {
			k = `talon_call_duration_seconds_bucket{outcome="success",tool="t_low",le="+Inf"}`
		}
		if s[k] < last {
			t.Fatalf("bucket %s = %v, below the one before (%v)", k, s[k], last)
		}
		last = s[k]
	}
	resp, err = client.Post(srv.URL, "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /metrics: %v %v", resp, err)
	}
	resp.Body.Close()
}
