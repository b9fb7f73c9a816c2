package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/rs/zerolog"
	"golang.org/x/net/http/httpguts"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// MaxRequestBody bounds the body argument of http_request.
const MaxRequestBody = 1 << 20

// bodyPreview bounds the body shown to an approver.
const bodyPreview = 512

// RequestOptions configures [HTTPRequest]. The zero value is valid but
// refuses every call: http_request reaches only hosts listed in
// Network.AllowedHosts.
type RequestOptions struct {
	// Network configures the guarded client as for [FetchOptions];
	// RequireAllowedHosts is always set, so an empty AllowedHosts refuses
	// every request. Its MaxBytes caps the response body one call reads.
	Network netguard.Options
	// Secrets maps a secret's name, as secret_headers refer to it, to its
	// value; ${VAR} in a value is replaced by the environment variable
	// when a call uses the secret.
	Secrets map[string]string
	// LookupEnv reads environment variables for Secrets; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// UserAgent is sent when the call sets none; "" means DefaultUserAgent.
	UserAgent string
	// Logger receives one line per call and per refusal. Header values and
	// secrets are never logged.
	Logger zerolog.Logger
}

// HTTPRequest is the http_request tool: one HTTP request to an allowed
// host, with secrets from the configuration inserted into headers.
type HTTPRequest struct {
	guard     *netguard.Guard
	secrets   map[string]string
	lookupEnv func(string) (string, bool)
	ua        string
	log       zerolog.Logger
}

var (
	_ tool.Tool     = (*HTTPRequest)(nil)
	_ tool.Assessor = (*HTTPRequest)(nil)
)

// NewHTTPRequest returns the http_request tool.
//
// # Errors
//
// An invalid host or address rule in opts.Network wraps
// [netguard.ErrInvalidRule].
func NewHTTPRequest(opts RequestOptions) (*HTTPRequest, error) {
	n := opts.Network
	n.RequireAllowedHosts = true
	n.Logger = opts.Logger
	g, err := netguard.New(n)
	if err != nil {
		return nil, fmt.Errorf("http_request: %w", err)
	}
	secrets := make(map[string]string, len(opts.Secrets))
	for k, v := range opts.Secrets {
		secrets[k] = v
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	ua := opts.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	return &HTTPRequest{guard: g, secrets: secrets, lookupEnv: lookup, ua: ua, log: opts.Logger}, nil
}

const requestSchema = `{"type":"object","properties":{` +
	`"method":{"type":"string","enum":["GET","HEAD","OPTIONS","POST","PUT","PATCH","DELETE"],"default":"GET"},` +
	`"url":{"type":"string","minLength":1,"maxLength":8192},` +
	`"headers":{"type":"object","additionalProperties":{"type":"string"}},` +
	`"body":{"type":"string"},` +
	`"secret_headers":{"type":"object","additionalProperties":{"type":"string","minLength":1}},` +
	`"max_bytes":{"type":"integer","minimum":1}},` +
	`"required":["url"],"additionalProperties":false}`

// Spec describes http_request.
func (t *HTTPRequest) Spec() tool.Spec {
	return tool.Spec{
		Name:        RequestName,
		Input:       json.RawMessage(requestSchema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: RequestName},
	}
}

// Close closes idle connections.
func (t *HTTPRequest) Close() error {
	t.guard.CloseIdleConnections()
	return nil
}

type requestArgs struct {
	Method        string            `json:"method"`
	URL           string            `json:"url"`
	Headers       map[string]string `json:"headers"`
	Body          *string           `json:"body"`
	SecretHeaders map[string]string `json:"secret_headers"`
	MaxBytes      *int64            `json:"max_bytes"`
}

// RequestData is http_request's Output.Data. Every configured secret is
// replaced by "[secret NAME]" wherever it occurs, literal or encoded (see
// netguard.Redactor).
type RequestData struct {
	Method string `json:"method"`
	// URL is the final URL, after redirects.
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Headers are the response headers an agent usually needs
	// (Content-Type, Location, ETag, rate limits, ...), by canonical name.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the response body as text; empty for a binary body.
	Body string `json:"body"`
	// BodyBytes is how much of the body was read.
	BodyBytes int  `json:"body_bytes"`
	Binary    bool `json:"binary,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
}

// readMethods have no side effects by definition (RFC 9110 safe methods).
var readMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true}

var writeMethods = map[string]bool{http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true}

// overrideHeaders let a client ask a server to treat a request as another
// method; a GET carrying one is assessed as a write.
var overrideHeaders = []string{"X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// forbiddenHeaders are managed by the HTTP client; a call may not set them.
var forbiddenHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Upgrade": true, "Te": true, "Trailer": true, "Expect": true,
	"Proxy-Authorization": true, "Proxy-Connection": true,
}

// shownHeaders are the response headers http_request returns.
var shownHeaders = []string{
	"Content-Type", "Content-Length", "Content-Language", "Location", "Etag", "Last-Modified",
	"Cache-Control", "Expires", "Retry-After", "Link", "Allow", "Www-Authenticate", "X-Request-Id",
}

// request is a validated call.
type request struct {
	method   string
	url      *url.URL
	headers  map[string]string // canonical name -> value
	secrets  map[string]string // canonical header name -> secret name
	body     string
	hasBody  bool
	maxBytes *int64
}

// parse validates the arguments. A failure's text never holds a header
// value.
func (t *HTTPRequest) parse(raw json.RawMessage) (*request, string) {
	var a requestArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return nil, fmt.Sprintf("invalid arguments: %v: pass an object like {\"method\": \"GET\", \"url\": \"https://api.example.com/items\"}", err)
	}
	r := &request{method: strings.ToUpper(strings.TrimSpace(a.Method)), headers: map[string]string{}, secrets: map[string]string{}, maxBytes: a.MaxBytes}
	if r.method == "" {
		r.method = http.MethodGet
	}
	if !readMethods[r.method] && !writeMethods[r.method] {
		return nil, fmt.Sprintf("method %q is not supported: use GET, HEAD, OPTIONS, POST, PUT, PATCH or DELETE", a.Method)
	}
	u, err := parseURL(a.URL)
	if err != nil {
		return nil, err.Error()
	}
	r.url = u
	for name, v := range a.Headers {
		c, msg := checkHeaderName(name)
		if msg != "" {
			return nil, msg
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, fmt.Sprintf("the value of header %s contains a line break or control character: send it on one line", c)
		}
		if _, dup := r.headers[c]; dup {
			return nil, fmt.Sprintf("header %s is given twice (header names ignore case): give it once", c)
		}
		r.headers[c] = v
	}
	for name, secret := range a.SecretHeaders {
		c, msg := checkHeaderName(name)
		if msg != "" {
			return nil, msg
		}
		if _, dup := r.headers[c]; dup {
			return nil, fmt.Sprintf("header %s is in both headers and secret_headers: give it in one of them", c)
		}
		if _, dup := r.secrets[c]; dup {
			return nil, fmt.Sprintf("header %s is given twice in secret_headers (header names ignore case): give it once", c)
		}
		r.secrets[c] = secret
	}
	if a.Body != nil {
		if len(*a.Body) > MaxRequestBody {
			return nil, fmt.Sprintf("body is %d bytes; the limit is %d", len(*a.Body), MaxRequestBody)
		}
		r.body, r.hasBody = *a.Body, true
	}
	return r, ""
}

func checkHeaderName(name string) (string, string) {
	if !httpguts.ValidHeaderFieldName(name) {
		return "", fmt.Sprintf("%q is not a valid header name: use letters, digits and - such as X-Request-Id", name)
	}
	c := http.CanonicalHeaderKey(name)
	if forbiddenHeaders[c] || strings.HasPrefix(c, "Proxy-") {
		return "", fmt.Sprintf("header %s is set by the HTTP client and cannot be given", c)
	}
	return c, ""
}

// tier is the request's risk: safe methods are low, unless a header asks
// the server to treat the request as another method.
func (r *request) tier() tool.Tier {
	if !readMethods[r.method] {
		return tool.High
	}
	for _, h := range overrideHeaders {
		if _, ok := r.headers[h]; ok {
			return tool.High
		}
	}
	return tool.Low
}

// summary is the one-line plan an approval binds to. It names headers and
// secrets but shows no values; the digest covers every value (secret names,
// not secret values), so any change needs a new approval.
func (r *request) summary() string {
	var b strings.Builder
	b.WriteString(r.method + " " + r.url.Redacted())
	var details []string
	if names := sortedKeys(r.headers); len(names) > 0 {
		details = append(details, "headers: "+strings.Join(names, ", "))
	}
	if names := sortedKeys(r.secrets); len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + " from secret " + r.secrets[n]
		}
		details = append(details, "secret headers: "+strings.Join(parts, ", "))
	}
	if r.hasBody {
		details = append(details, fmt.Sprintf("body: %d bytes", len(r.body)))
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, "; ") + ")")
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", r.method, r.url.String())
	for _, n := range sortedKeys(r.headers) {
		fmt.Fprintf(h, "h\x00%s\x00%s\x00", n, r.headers[n])
	}
	for _, n := range sortedKeys(r.secrets) {
		fmt.Fprintf(h, "s\x00%s\x00%s\x00", n, r.secrets[n])
	}
	fmt.Fprintf(h, "b\x00%v\x00%s", r.hasBody, r.body)
	b.WriteString(" #" + hex.EncodeToString(h.Sum(nil))[:12])
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Assess makes GET, HEAD and OPTIONS low and POST, PUT, PATCH and DELETE
// high (remote side effects). The plan names the method, URL, header and
// secret names and the body size; the reasons show the start of the body.
func (t *HTTPRequest) Assess(raw json.RawMessage) (tool.Assessment, error) {
	r, msg := t.parse(raw)
	if r == nil {
		return tool.Assessment{Tier: tool.Low, Reasons: []string{msg}}, nil
	}
	as := tool.Assessment{Tier: r.tier(), Plan: &tool.Plan{Summary: r.summary()}}
	if as.Tier == tool.Low {
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s %s reads without side effects", r.method, r.url.Redacted()))
	} else if readMethods[r.method] {
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s %s carries a method-override header; the server may treat it as a write", r.method, r.url.Redacted()))
	} else {
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s %s may change data on %s (remote side effect)", r.method, r.url.Redacted(), r.url.Hostname()))
	}
	if r.hasBody {
		as.Reasons = append(as.Reasons, "body: "+excerpt(r.body, bodyPreview))
	}
	for _, h := range sortedKeys(r.secrets) {
		if _, ok := t.secrets[r.secrets[h]]; !ok {
			as.Reasons = append(as.Reasons, fmt.Sprintf("secret %s (for header %s) is not configured; the call will fail", r.secrets[h], h))
		}
	}
	if err := t.guard.CheckURL(r.url); err != nil {
		as.Reasons = append(as.Reasons, "will be refused before connecting: "+err.Error())
	}
	return as, nil
}

// Execute sends the request.
func (t *HTTPRequest) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	r, msg := t.parse(raw)
	if r == nil {
		return tool.Failure("%s", msg), nil
	}
	if err := t.guard.CheckURL(r.url); err != nil {
		return netFailure(ctx, RequestName, r.url, err)
	}
	limit := t.guard.MaxBytes()
	if r.maxBytes != nil {
		if *r.maxBytes < 1 {
			return tool.Failure("max_bytes must be 1 or more; omit it to read up to %d bytes", limit), nil
		}
		limit = min(limit, *r.maxBytes)
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != r.summary() {
		return tool.Failure("this request (%s) is not the one that was approved (%s); nothing was sent", r.summary(), approved.Summary), nil
	}
	values, failure := t.resolveSecrets(r)
	if failure != "" {
		return tool.Failure("%s", failure), nil
	}
	red := t.redactor()
	var body io.Reader
	if r.hasBody {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url.String(), body)
	if err != nil {
		return tool.Failure("cannot build a request for %s: %v; check the URL", r.url.Redacted(), err), nil
	}
	req.Header.Set("User-Agent", t.ua)
	if r.hasBody && r.body != "" {
		if json.Valid([]byte(r.body)) {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	for h, name := range r.secrets {
		req.Header.Set(h, values[name])
	}
	resp, err := t.guard.Do(req, limit)
	if err != nil {
		res, herr := netFailure(ctx, RequestName, r.url, err)
		res.Error = red.String(res.Error)
		return res, herr
	}
	t.log.Debug().Str("method", r.method).Str("host", resp.URL.Host).Int("status", resp.StatusCode).
		Int("bytes", len(resp.Body)).Bool("truncated", resp.Truncated).Msg("http_request")
	data := RequestData{
		Method:    r.method,
		URL:       red.String(resp.URL.Redacted()),
		Status:    resp.StatusCode,
		BodyBytes: len(resp.Body),
		Truncated: resp.Truncated,
		Headers:   map[string]string{},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %s\nURL: %s\n", red.String(resp.Status), data.URL)
	for _, name := range responseHeaderNames(resp.Header) {
		v := red.String(strings.Join(resp.Header.Values(name), ", "))
		data.Headers[name] = v
		fmt.Fprintf(&b, "%s: %s\n", name, v)
	}
	b.WriteString("\n")
	switch {
	case len(resp.Body) == 0:
		b.WriteString("(empty body)")
	default:
		mt, declared := mediaType(resp.Header.Get("Content-Type"), resp.Body)
		text, _, ok := "", "", false
		if classify(mt) != kindBinary {
			text, _, ok = decodeText(resp.Body, declared, resp.Truncated)
		}
		if !ok {
			data.Binary = true
			fmt.Fprintf(&b, "(binary body: %d bytes of %s, not shown)", len(resp.Body), mt)
			break
		}
		data.Body = red.String(text)
		b.WriteString(data.Body)
	}
	if resp.Truncated {
		b.WriteString("\n\n")
		b.WriteString(sizeNote(limit, t.guard.MaxBytes()))
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: data}}, nil
}

// resolveSecrets returns the value of every secret the request names, by
// secret name.
func (t *HTTPRequest) resolveSecrets(r *request) (values map[string]string, failure string) {
	values = map[string]string{}
	for _, h := range sortedKeys(r.secrets) {
		name := r.secrets[h]
		if _, done := values[name]; done {
			continue
		}
		raw, ok := t.secrets[name]
		if !ok {
			known := sortedKeys(t.secrets)
			if len(known) == 0 {
				return nil, fmt.Sprintf("secret_headers refers to secret %s, but no secrets are configured: the operator defines them in %s secrets = { %s = \"${ENV_VAR}\" }", name, section(RequestName), name)
			}
			return nil, fmt.Sprintf("secret_headers refers to secret %s, which is not configured; the configured secrets are %s", name, strings.Join(known, ", "))
		}
		v, _, err := config.ExpandVars(raw, t.lookupEnv)
		if err != nil {
			return nil, fmt.Sprintf("secret %s cannot be read: %v; ask the operator to fix %s secrets", name, err, section(RequestName))
		}
		if v == "" {
			return nil, fmt.Sprintf("secret %s is empty; ask the operator to set it in %s secrets", name, section(RequestName))
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, fmt.Sprintf("secret %s contains a line break or control character and cannot be sent in header %s; ask the operator to fix it", name, h)
		}
		values[name] = v
	}
	return values, ""
}

// responseHeaderNames returns the shown headers present in h, in a fixed
// order, then rate-limit headers sorted by name.
func responseHeaderNames(h http.Header) []string {
	var out []string
	for _, n := range shownHeaders {
		if _, ok := h[n]; ok {
			out = append(out, n)
		}
	}
	var rate []string
	for n := range h {
		l := strings.ToLower(n)
		if strings.HasPrefix(l, "x-ratelimit-") || strings.HasPrefix(l, "ratelimit") {
			rate = append(rate, n)
		}
	}
	sort.Strings(rate)
	return append(out, rate...)
}
