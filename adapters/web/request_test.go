package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

const secretValue = "s3cr3t-T0KEN-value-9f8e7d"

// apiNet allows api.test (and 127.0.0.1 behind it) only.
func apiNet() netguard.Options {
	n := publicNet()
	n.AllowedHosts = []string{"api.test"}
	return n
}

func newRequest(t *testing.T, o RequestOptions) *HTTPRequest {
	t.Helper()
	if o.LookupEnv == nil {
		o.LookupEnv = func(k string) (string, bool) {
			if k == "API_TOKEN_ENV" {
				return secretValue, true
			}
			return "", false
		}
	}
	r, err := NewHTTPRequest(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// echoAPI answers every request by echoing it back in the body and in
// headers, the worst case for keeping a secret out of the output.
func echoAPI(t *testing.T) *site {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("X-Ratelimit-Remaining", "41")
		w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization"))
		w.Header().Set("Set-Cookie", "session=abc")
		json.NewEncoder(w).Encode(map[string]any{
			"method": r.Method, "auth": r.Header.Get("Authorization"), "key": r.Header.Get("X-Api-Key"),
			"custom": r.Header.Get("X-Custom"), "ctype": r.Header.Get("Content-Type"), "body": string(body),
		})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "token %s is invalid", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	})
	mux.HandleFunc("/created", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/items/7")
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"error":"title is required"}`)
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00"))
	})
	mux.HandleFunc("/leave", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test:"+r.Host[strings.LastIndex(r.Host, ":")+1:]+"/echo", http.StatusTemporaryRedirect)
	})
	return newSite(t, mux)
}

func TestHTTPRequest(t *testing.T) {
	s := echoAPI(t)
	leaveNet := apiNet()
	leaveNet.AllowedHosts = []string{"api.test", "other.test"}
	tests := []struct {
		name    string
		net     *netguard.Options
		secrets map[string]string
		args    map[string]any
		ok      bool
		want    []string
		notWant []string
	}{
		{name: "get json", args: map[string]any{"url": s.at("api.test", "/echo")}, ok: true,
			want:    []string{"HTTP 200 OK", "Content-Type: application/json", `Etag: "v1"`, "X-Ratelimit-Remaining: 41", `"method":"GET"`},
			notWant: []string{"session=abc"}},
		{name: "post body and headers", args: map[string]any{"method": "POST", "url": s.at("api.test", "/echo"), "body": `{"title":"x"}`, "headers": map[string]string{"X-Custom": "c1"}}, ok: true,
			want: []string{`"method":"POST"`, `"custom":"c1"`, `"ctype":"application/json"`, `"body":"{\"title\":\"x\"}"`}},
		{name: "text body", args: map[string]any{"method": "PUT", "url": s.at("api.test", "/echo"), "body": "plain words"}, ok: true,
			want: []string{`"ctype":"text/plain; charset=utf-8"`}},
		{name: "explicit content type wins", args: map[string]any{"method": "PATCH", "url": s.at("api.test", "/echo"), "body": "a=1", "headers": map[string]string{"content-type": "application/x-www-form-urlencoded"}}, ok: true,
			want: []string{`"ctype":"application/x-www-form-urlencoded"`}},
		{name: "created with location", args: map[string]any{"method": "POST", "url": s.at("api.test", "/created")}, ok: true,
			want: []string{"HTTP 201 Created", "Location: /items/7", "(empty body)"}},
		{name: "error status is a result", args: map[string]any{"method": "POST", "url": s.at("api.test", "/fail")}, ok: true,
			want: []string{"HTTP 422 Unprocessable Entity", "title is required"}},
		{name: "head", args: map[string]any{"method": "HEAD", "url": s.at("api.test", "/echo")}, ok: true, want: []string{"HTTP 200 OK", "(empty body)"}},
		{name: "binary not shown", args: map[string]any{"url": s.at("api.test", "/image")}, ok: true, want: []string{"binary body: 11 bytes of image/png"}},
		{name: "secret inserted and hidden", secrets: map[string]string{"API_TOKEN": "Bearer ${API_TOKEN_ENV}"},
			args: map[string]any{"url": s.at("api.test", "/echo"), "secret_headers": map[string]string{"authorization": "API_TOKEN"}}, ok: true,
			want: []string{`"auth":"[secret API_TOKEN]"`}},
		{name: "inserted variable hidden alone", secrets: map[string]string{"API_TOKEN": "Bearer ${API_TOKEN_ENV}"},
			args: map[string]any{"url": s.at("api.test", "/token"), "secret_headers": map[string]string{"Authorization": "API_TOKEN"}}, ok: true,
			want: []string{"token [secret API_TOKEN] is invalid"}},
		{name: "secret not followed off origin", net: &leaveNet, secrets: map[string]string{"K": "${API_TOKEN_ENV}"},
			args: map[string]any{"url": s.at("api.test", "/leave"), "secret_headers": map[string]string{"X-Api-Key": "K"}}, ok: true,
			want: []string{"URL: http://other.test:" + s.port + "/echo", `"key":""`}},
		{name: "unknown secret", secrets: map[string]string{"A": "x", "B": "y"},
			args: map[string]any{"url": s.at("api.test", "/echo"), "secret_headers": map[string]string{"X-Api-Key": "NOPE"}}, want: []string{"NOPE", "configured secrets are A, B"}},
		{name: "no secrets configured", args: map[string]any{"url": s.at("api.test", "/echo"), "secret_headers": map[string]string{"X-Api-Key": "NOPE"}},
			want: []string{"no secrets are configured", "[tools.http_request] secrets"}},
		{name: "missing env var", secrets: map[string]string{"T": "${MISSING_VAR}"},
			args: map[string]any{"url": s.at("api.test", "/echo"), "secret_headers": map[string]string{"X-Api-Key": "T"}}, want: []string{"MISSING_VAR is not set"}},
		{name: "no allowed domains", net: &netguard.Options{Resolver: names, AllowPrivate: []string{"127.0.0.1"}},
			args: map[string]any{"url": s.at("api.test", "/echo")}, want: []string{"no allowed domains", "allowed_domains = [\"api.example.com\"]"}},
		{name: "host not allowed", args: map[string]any{"url": s.at("other.test", "/echo")}, want: []string{"other.test is not in [tools.http_request] allowed_domains"}},
		{name: "loopback even if allowed by name", net: &netguard.Options{Resolver: names, AllowedHosts: []string{"api.test"}},
			args: map[string]any{"url": s.at("api.test", "/echo")}, want: []string{"loopback", "allow_private"}},
		{name: "host header refused", args: map[string]any{"url": s.at("api.test", "/echo"), "headers": map[string]string{"Host": "internal"}}, want: []string{"Host is set by the HTTP client"}},
		{name: "header in both", secrets: map[string]string{"K": "v"},
			args: map[string]any{"url": s.at("api.test", "/echo"), "headers": map[string]string{"x-api-key": "a"}, "secret_headers": map[string]string{"X-API-KEY": "K"}}, want: []string{"both headers and secret_headers"}},
		{name: "bad header value", args: map[string]any{"url": s.at("api.test", "/echo"), "headers": map[string]string{"X-A": "a\r\nX-B: b"}}, want: []string{"line break"}},
		{name: "bad method", args: map[string]any{"method": "TRACE", "url": s.at("api.test", "/echo")}, want: []string{"TRACE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := apiNet()
			if tt.net != nil {
				n = *tt.net
			}
			r := newRequest(t, RequestOptions{Network: n, Secrets: tt.secrets})
			res := call(t, r, tt.args)
			text := res.Output.Text
			if !tt.ok {
				text = res.Error
			}
			if res.Success != tt.ok {
				t.Fatalf("success = %v, want %v: %s%s", res.Success, tt.ok, res.Output.Text, res.Error)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("unexpected %q in:\n%s", w, text)
				}
			}
			data, _ := json.Marshal(res)
			if bytes.Contains(data, []byte(secretValue)) {
				t.Errorf("the secret value appears in the result: %s", data)
			}
		})
	}
}

// TestSecretNeverEchoed sends a secret to a server that echoes it back in
// its body, its headers, its status line and a redirect, and through a
// refused redirect and a failing connection, and checks every channel the
// tool has: output text, data, error text, assessment and log lines.
func TestSecretNeverEchoed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Etag", v)
		w.Header().Set("X-Ratelimit-Echo", v)
		fmt.Fprintf(w, "you sent %s", v)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo?k="+r.Header.Get("X-Api-Key"), http.StatusFound)
	})
	mux.HandleFunc("/refused", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://internal.test/?k="+r.Header.Get("X-Api-Key"), http.StatusFound)
	})
	s := newSite(t, mux)
	var logs bytes.Buffer
	r := newRequest(t, RequestOptions{
		Network: apiNet(),
		Secrets: map[string]string{"API_KEY": "${API_TOKEN_ENV}"},
		Logger:  zerolog.New(&logs).Level(zerolog.DebugLevel),
	})
	for _, path := range []string{"/echo", "/redirect", "/refused"} {
		t.Run(path, func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"method": "POST", "url": s.at("api.test", path), "secret_headers": map[string]string{"X-Api-Key": "API_KEY"}})
			as, err := r.Assess(args)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Execute(context.Background(), args)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := json.Marshal(struct {
				A tool.Assessment
				R tool.Result
			}{as, res})
			if bytes.Contains(all, []byte(secretValue)) {
				t.Fatalf("secret leaked: %s", all)
			}
			if path == "/echo" && !strings.Contains(res.Output.Text, "you sent [secret API_KEY]") {
				t.Errorf("echo not redacted as expected: %s", res.Output.Text)
			}
			if !strings.Contains(as.Plan.Summary, "X-Api-Key from secret API_KEY") {
				t.Errorf("plan %q does not name the secret", as.Plan.Summary)
			}
		})
	}
	if bytes.Contains(logs.Bytes(), []byte(secretValue)) {
		t.Fatalf("secret in logs: %s", logs.String())
	}
	if logs.Len() == 0 {
		t.Error("nothing was logged")
	}
}

func TestHTTPRequestAssess(t *testing.T) {
	r := newRequest(t, RequestOptions{Network: apiNet(), Secrets: map[string]string{"T": "x"}})
	tests := []struct {
		name    string
		args    string
		tier    tool.Tier
		summary string
		reasons []string
	}{
		{name: "default get", args: `{"url":"https://api.test/items"}`, tier: tool.Low, summary: "GET https://api.test/items #", reasons: []string{"reads without side effects"}},
		{name: "head", args: `{"method":"HEAD","url":"https://api.test/items"}`, tier: tool.Low},
		{name: "options", args: `{"method":"OPTIONS","url":"https://api.test/items"}`, tier: tool.Low},
		{name: "post", args: `{"method":"POST","url":"https://api.test/items","body":"{\"a\":1}"}`, tier: tool.High,
			summary: "POST https://api.test/items (body: 7 bytes) #", reasons: []string{"may change data on api.test", `body: {"a":1}`}},
		{name: "put", args: `{"method":"PUT","url":"https://api.test/items/1"}`, tier: tool.High},
		{name: "patch", args: `{"method":"PATCH","url":"https://api.test/items/1"}`, tier: tool.High},
		{name: "delete", args: `{"method":"DELETE","url":"https://api.test/items/1"}`, tier: tool.High},
		{name: "get with override", args: `{"url":"https://api.test/items/1","headers":{"X-HTTP-Method-Override":"DELETE"}}`, tier: tool.High, reasons: []string{"method-override"}},
		{name: "headers and secrets named", args: `{"url":"https://api.test/x","headers":{"accept":"a","X-B":"b"},"secret_headers":{"authorization":"T"}}`, tier: tool.Low,
			summary: "GET https://api.test/x (headers: Accept, X-B; secret headers: Authorization from secret T) #"},
		{name: "unknown secret noted", args: `{"url":"https://api.test/x","secret_headers":{"X-K":"NOPE"}}`, tier: tool.Low, reasons: []string{"secret NOPE (for header X-K) is not configured"}},
		{name: "refusal noted", args: `{"method":"DELETE","url":"https://elsewhere.test/x"}`, tier: tool.High, reasons: []string{"will be refused", "not among the allowed hosts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := r.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if as.Tier != tt.tier {
				t.Errorf("tier = %v, want %v", as.Tier, tt.tier)
			}
			if tt.summary != "" && (as.Plan == nil || !strings.HasPrefix(as.Plan.Summary, tt.summary)) {
				t.Errorf("plan = %+v, want a summary starting %q", as.Plan, tt.summary)
			}
			all := strings.Join(as.Reasons, "\n")
			for _, w := range tt.reasons {
				if !strings.Contains(all, w) {
					t.Errorf("reasons %q lack %q", all, w)
				}
			}
		})
	}
}

// TestSummaryBindsValues checks that requests differing only in a value
// the summary does not print still get different plans.
func TestSummaryBindsValues(t *testing.T) {
	r := newRequest(t, RequestOptions{Network: apiNet()})
	plans := map[string]string{}
	for _, args := range []string{
		`{"method":"POST","url":"https://api.test/x","body":"aaa"}`,
		`{"method":"POST","url":"https://api.test/x","body":"bbb"}`,
		`{"method":"POST","url":"https://api.test/x","headers":{"X-A":"1"}}`,
		`{"method":"POST","url":"https://api.test/x","headers":{"X-A":"2"}}`,
		`{"method":"POST","url":"https://api.test/x","secret_headers":{"X-A":"S1"}}`,
		`{"method":"POST","url":"https://api.test/x","secret_headers":{"X-A":"S2"}}`,
		`{"method":"POST","url":"https://api.test/x"}`,
		`{"method":"POST","url":"https://api.test/x","body":""}`,
	} {
		as, err := r.Assess(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := plans[as.Plan.Summary]; dup {
			t.Errorf("%s and %s share the plan %q", prev, args, as.Plan.Summary)
		}
		plans[as.Plan.Summary] = args
	}
}

func TestHTTPRequestApprovedPlan(t *testing.T) {
	s := echoAPI(t)
	r := newRequest(t, RequestOptions{Network: apiNet()})
	approvedArgs := json.RawMessage(`{"method":"DELETE","url":"` + s.at("api.test", "/echo") + `"}`)
	as, err := r.Assess(approvedArgs)
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	res, err := r.Execute(ctx, approvedArgs)
	if err != nil || !res.Success {
		t.Fatalf("approved request: %+v, %v", res, err)
	}
	other := json.RawMessage(`{"method":"DELETE","url":"` + s.at("api.test", "/echo?all=1") + `"}`)
	before := s.hits.Load()
	res, err = r.Execute(ctx, other)
	if err != nil || res.Success || !strings.Contains(res.Error, "not the one that was approved") {
		t.Fatalf("other request: %+v, %v", res, err)
	}
	if s.hits.Load() != before {
		t.Fatal("the unapproved request was sent")
	}
}

func TestExpandVars(t *testing.T) {
	env := map[string]string{"A": "1", "B_2": "two"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "literal", in: "plain", want: "plain"},
		{name: "whole", in: "${A}", want: "1"},
		{name: "mixed", in: "Bearer ${B_2}-${A}", want: "Bearer two-1"},
		{name: "dollar alone", in: "a$b", want: "a$b"},
		{name: "missing", in: "${NOPE}", wantErr: "NOPE is not set"},
		{name: "unterminated", in: "x${A", wantErr: "no closing"},
		{name: "bad name", in: "${1A}", wantErr: "environment variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := config.ExpandVars(tt.in, lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
