package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// Name is the tool's name.
const Name = "web_search"

// Limits of a call.
const (
	// DefaultMaxResults is how many results a call returns when neither
	// the operator nor the call says otherwise.
	DefaultMaxResults = 5
	// MaxResultsLimit is the most results one call can ask for.
	MaxResultsLimit = 20
	// MaxQueryLength bounds the query, in bytes.
	MaxQueryLength = 1000
	// maxResponseBytes bounds a provider's answer.
	maxResponseBytes = 1 << 20
	// maxSnippet bounds one result's snippet, in bytes.
	maxSnippet = 500
)

// Providers.
const (
	SearXNG   = config.SearchSearXNG
	Brave     = config.SearchBrave
	AnySearch = config.SearchAnySearch
)

// ErrUnknownProvider is returned by [New] for a provider name it does not
// know.
var ErrUnknownProvider = errors.New("unknown web_search provider")

// Options configures [WebSearch]. The zero value is valid: the tool then
// has no provider, and every call fails with what to configure.
type Options struct {
	// Provider is SearXNG, Brave or AnySearch; "" means none.
	Provider string
	// SearXNGURL is the base URL of the SearXNG instance.
	SearXNGURL string
	// BraveURL is the Brave endpoint; "" means the public API.
	BraveURL string
	// BraveAPIKey is the subscription token; ${VAR} is expanded per call.
	BraveAPIKey string
	// AnySearchURL is the AnySearch endpoint; "" means the public API.
	AnySearchURL string
	// AnySearchAPIKey, when not empty, is sent as a bearer token; ${VAR}
	// is expanded per call.
	AnySearchAPIKey string
	// MaxResults is the operator's cap on results per call; zero means
	// DefaultMaxResults, and more than MaxResultsLimit means that limit.
	MaxResults int
	// Timeout bounds one search; zero means netguard's default.
	Timeout time.Duration
	// AllowPrivate lets requests reach a private or loopback provider;
	// see [netguard.Options].
	AllowPrivate []string
	// Resolver looks up host names; nil means the system's.
	Resolver netguard.Resolver
	// LookupEnv reads variables for ${VAR} in keys; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives one debug line per search; queries and keys are
	// never logged.
	Logger zerolog.Logger
}

// WebSearch is the web_search tool. It is immutable and safe for
// concurrent use.
type WebSearch struct {
	provider string
	// endpoint is the URL requests are built from; nil when the provider
	// cannot be used, and then unusable says why.
	endpoint *url.URL
	unusable string
	guard    *netguard.Guard
	key      string
	limit    int
	lookup   func(string) (string, bool)
	log      zerolog.Logger
}

var (
	_ tool.Tool     = (*WebSearch)(nil)
	_ tool.Assessor = (*WebSearch)(nil)
)

// New returns the web_search tool. A missing provider or endpoint does not
// fail: the tool is built, and each call says what the operator must set.
//
// # Errors
//
// A provider name other than "", SearXNG, Brave and AnySearch wraps
// [ErrUnknownProvider]; an invalid AllowPrivate rule wraps
// [netguard.ErrInvalidRule].
func New(opts Options) (*WebSearch, error) {
	t := &WebSearch{provider: opts.Provider, lookup: opts.LookupEnv, log: opts.Logger}
	if t.lookup == nil {
		t.lookup = os.LookupEnv
	}
	t.limit = opts.MaxResults
	if t.limit <= 0 {
		t.limit = DefaultMaxResults
	}
	t.limit = min(t.limit, MaxResultsLimit)
	var raw string
	switch opts.Provider {
	case "":
		t.unusable = "web_search has no search provider configured, so nothing was searched: the operator sets provider in [tools.web_search] of talon.toml to \"searxng\" (with searxng_url) or \"brave\" (with brave_api_key); use web_fetch on a known URL meanwhile"
	case SearXNG:
		raw = opts.SearXNGURL
		if raw == "" {
			t.unusable = "web_search uses SearXNG but has no instance URL, so nothing was searched: the operator sets searxng_url in [tools.web_search], e.g. \"http://127.0.0.1:8888\""
		}
	case Brave:
		raw, t.key = orDefault(opts.BraveURL, config.DefaultBraveURL), opts.BraveAPIKey
		if t.key == "" {
			t.unusable = "web_search uses Brave Search but has no API key, so nothing was searched: the operator sets brave_api_key = \"${BRAVE_API_KEY}\" in [tools.web_search] and exports BRAVE_API_KEY"
		}
	case AnySearch:
		raw, t.key = orDefault(opts.AnySearchURL, config.DefaultAnySearchURL), opts.AnySearchAPIKey
	default:
		return nil, fmt.Errorf("%w %q: use %q, %q or %q", ErrUnknownProvider, opts.Provider, SearXNG, Brave, AnySearch)
	}
	if raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.unusable = fmt.Sprintf("web_search's %s URL %q is not an http or https URL, so nothing was searched: the operator fixes it in [tools.web_search]", opts.Provider, raw)
		} else if t.unusable == "" {
			t.endpoint = u
		}
	}
	n := netguard.Options{
		AllowPrivate: opts.AllowPrivate,
		Timeout:      opts.Timeout,
		MaxBytes:     maxResponseBytes,
		MaxRedirects: 3,
		Resolver:     opts.Resolver,
		Logger:       opts.Logger,
	}
	if t.endpoint != nil {
		// The only host a query may reach is the provider's.
		n.AllowedHosts = []string{t.endpoint.Hostname()}
	}
	g, err := netguard.New(n)
	if err != nil {
		return nil, fmt.Errorf("web_search: %w", err)
	}
	t.guard = g
	return t, nil
}

const schema = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":1000},` +
	`"max_results":{"type":"integer","minimum":1,"maximum":20}},` +
	`"required":["query"],"additionalProperties":false}`

// Spec describes web_search.
func (t *WebSearch) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       json.RawMessage(schema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// Close closes idle connections.
func (t *WebSearch) Close() error {
	t.guard.CloseIdleConnections()
	return nil
}

type args struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Data is web_search's Output.Data.
type Data struct {
	Provider string   `json:"provider"`
	Query    string   `json:"query"`
	Results  []Result `json:"results"`
}

func (t *WebSearch) decode(raw json.RawMessage) (args, error) {
	var a args
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return a, fmt.Errorf("invalid arguments: %v: pass an object like {\"query\": \"golang context cancellation\"}", err)
	}
	a.Query = strings.TrimSpace(a.Query)
	switch {
	case a.Query == "":
		return a, errors.New("query is empty: pass the words to search for")
	case len(a.Query) > MaxQueryLength:
		return a, fmt.Errorf("query is %d bytes long; the limit is %d: shorten it", len(a.Query), MaxQueryLength)
	case a.MaxResults < 0:
		return a, errors.New("max_results must be 1 or more; omit it for the default")
	}
	return a, nil
}

// summary is the plan an approver sees: the provider, its host and the
// query.
func (t *WebSearch) summary(a args) string {
	return fmt.Sprintf("search %s (%s) for %q", t.provider, t.endpoint.Host, a.Query)
}

// Assess reports a low-tier read that sends the query to the provider.
func (t *WebSearch) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := t.decode(raw)
	if err != nil {
		return tool.Assessment{}, fmt.Errorf("decode web_search arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Low}
	if t.endpoint == nil {
		as.Reasons = []string{"no usable search provider is configured; the call will fail without sending anything"}
		return as, nil
	}
	as.Reasons = []string{fmt.Sprintf("sends the query to %s at %s (read-only)", t.provider, t.endpoint.Host)}
	as.Plan = &tool.Plan{Summary: t.summary(a)}
	return as, nil
}

// Execute runs the search with the configured provider only.
func (t *WebSearch) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := t.decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if t.endpoint == nil {
		return tool.Failure("%s", t.unusable), nil
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != t.summary(a) {
		return tool.Failure("this search (%s) is not the one that was approved (%s); nothing was sent: ask for approval again", t.summary(a), approved.Summary), nil
	}
	n := t.limit
	if a.MaxResults > 0 {
		n = min(n, a.MaxResults)
	}
	key, parts, err := t.secret()
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	red := t.keyRedactor(key, parts)
	req, err := t.request(ctx, a.Query, n, key)
	if err != nil {
		return tool.Failure("web_search could not build the request: %v; the operator checks [tools.web_search]", err), nil
	}
	resp, err := t.guard.Do(req, 0)
	if err != nil {
		return t.netFailure(ctx, red.String(err.Error()))
	}
	t.log.Debug().Str("provider", t.provider).Int("status", resp.StatusCode).Int("bytes", len(resp.Body)).Msg("web_search")
	// What the provider sent is scrubbed of the key before it is parsed,
	// explained or shown.
	resp.Body = red.Bytes(resp.Body)
	resp.Status = red.String(resp.Status)
	if resp.StatusCode != http.StatusOK {
		return tool.Failure("%s", t.statusFailure(resp, key != "")), nil
	}
	if resp.Truncated {
		return tool.Failure("%s answered with more than %d bytes, more than a search result list should be; nothing was read: try a narrower query", t.provider, maxResponseBytes), nil
	}
	results, err := parse(t.provider, resp.Body)
	if err != nil {
		return tool.Failure("%s answered in a form web_search does not understand (%v): the operator checks that [tools.web_search] points at a %s API", t.provider, err, t.provider), nil
	}
	if len(results) > n {
		results = results[:n]
	}
	data := Data{Provider: t.provider, Query: a.Query, Results: results}
	return tool.Result{Success: true, Output: tool.Output{Text: render(data), Data: data}}, nil
}

// secret expands the configured key; parts are the variables' values
// inserted into it. An empty key is "" (AnySearch then sends no
// Authorization header).
func (t *WebSearch) secret() (string, []string, error) {
	if t.key == "" {
		return "", nil, nil
	}
	v, parts, err := config.ExpandVars(t.key, t.lookup)
	if err != nil {
		return "", nil, fmt.Errorf("web_search's %s API key cannot be read: %v; nothing was searched: export the variable before starting talon, or fix the key in [tools.web_search]", t.provider, err)
	}
	if v == "" && t.provider == Brave {
		return "", nil, errors.New("web_search's Brave API key is empty; nothing was searched: export BRAVE_API_KEY (or the variable brave_api_key names) before starting talon")
	}
	return v, parts, nil
}

// keyRedactor hides the key, and each variable's value in it, in whatever
// the provider sends back: "[secret tools.web_search.brave_api_key]".
func (t *WebSearch) keyRedactor(key string, parts []string) *netguard.Redactor {
	name := "tools.web_search." + t.provider + "_api_key"
	secrets := []netguard.Secret{{Name: name, Value: key}}
	for _, p := range parts {
		secrets = append(secrets, netguard.Secret{Name: name, Value: p})
	}
	return netguard.NewRedactor(secrets...)
}

// request builds the provider's GET request.
func (t *WebSearch) request(ctx context.Context, query string, n int, key string) (*http.Request, error) {
	u := *t.endpoint
	q := u.Query()
	switch t.provider {
	case SearXNG:
		u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
		q.Set("q", query)
		q.Set("format", "json")
		q.Set("pageno", "1")
	case Brave:
		q.Set("q", query)
		q.Set("count", fmt.Sprint(n))
	case AnySearch:
		q.Set("q", query)
		q.Set("limit", fmt.Sprint(n))
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "talon-web-search/1")
	switch t.provider {
	case Brave:
		req.Header.Set("X-Subscription-Token", key)
	case AnySearch:
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	return req, nil
}

// statusFailure explains a status other than 200 OK.
func (t *WebSearch) statusFailure(resp *netguard.Response, keyed bool) string {
	p := t.provider
	switch {
	case p == SearXNG && resp.StatusCode == http.StatusForbidden:
		return "SearXNG refused the JSON format (403 Forbidden): the operator enables it by adding json to search.formats in the instance's settings.yml"
	case p == Brave && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(string(resp.Body)), "token")):
		return fmt.Sprintf("Brave Search rejected the API key (%s): the operator checks brave_api_key in [tools.web_search] and the subscription", resp.Status)
	case p == AnySearch && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		if keyed {
			return fmt.Sprintf("AnySearch rejected the API key (%s): the operator checks anysearch_api_key in [tools.web_search]", resp.Status)
		}
		return fmt.Sprintf("AnySearch refused the anonymous request (%s): the operator sets anysearch_api_key in [tools.web_search]", resp.Status)
	case resp.StatusCode == http.StatusTooManyRequests:
		if p == AnySearch && !keyed {
			return "AnySearch's anonymous quota is used up (429 Too Many Requests): wait and try again, or the operator sets anysearch_api_key for a higher limit"
		}
		return fmt.Sprintf("%s is rate limiting this client (429 Too Many Requests): wait a minute and try again", p)
	case resp.StatusCode >= 500:
		return fmt.Sprintf("%s failed on its side (%s): try again later", p, resp.Status)
	}
	return fmt.Sprintf("%s answered %s: rephrase the query, or the operator checks [tools.web_search]%s", p, resp.Status, excerpt(resp.Body))
}

// netFailure explains a request that did not complete.
func (t *WebSearch) netFailure(ctx context.Context, msg string) (tool.Result, error) {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
		return tool.Result{}, cerr
	}
	return tool.Failure("web_search could not reach %s: %s; try again later, or the operator checks the provider's URL and allow_private in [tools.web_search]", t.provider, msg), nil
}

// render lists the results for the model.
func render(d Data) string {
	var b strings.Builder
	if len(d.Results) == 0 {
		fmt.Fprintf(&b, "No results for %q from %s. Try other words.", d.Query, d.Provider)
		return b.String()
	}
	fmt.Fprintf(&b, "%d results for %q from %s:\n", len(d.Results), d.Query, d.Provider)
	for i, r := range d.Results {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return b.String()
}

func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	return ". It said: " + clip(s, 300)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
