package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// Names of the tools.
const (
	FetchName   = "web_fetch"
	RequestName = "http_request"
)

// DefaultUserAgent is the User-Agent of requests that set none.
const DefaultUserAgent = "Mozilla/5.0 (compatible; talon/1; +https://github.com/talonhq/talon)"

// errorExcerpt bounds the text of an error page quoted in a failure.
const errorExcerpt = 1000

// FetchOptions configures [WebFetch]. The zero value is the default: any
// public host, 2 MiB per call, 30 s, 5 redirects.
type FetchOptions struct {
	// Network configures the guarded client: allowed and blocked hosts,
	// private destinations the operator allows, redirects, timeout and a
	// resolver. Its MaxBytes is the operator's cap on the body one call
	// reads (default 2 MiB); the max_bytes argument can lower it, never
	// raise it. Its Logger is replaced by Logger.
	Network netguard.Options
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// Logger receives one line per call and per refusal.
	Logger zerolog.Logger
}

// WebFetch is the web_fetch tool: it GETs one URL and returns the page as
// readable text.
type WebFetch struct {
	guard *netguard.Guard
	conv  *converter.Converter
	ua    string
	log   zerolog.Logger
}

var (
	_ tool.Tool     = (*WebFetch)(nil)
	_ tool.Assessor = (*WebFetch)(nil)
)

// NewWebFetch returns the web_fetch tool.
//
// # Errors
//
// An invalid host or address rule in opts.Network wraps
// [netguard.ErrInvalidRule].
func NewWebFetch(opts FetchOptions) (*WebFetch, error) {
	n := opts.Network
	n.Logger = opts.Logger
	g, err := netguard.New(n)
	if err != nil {
		return nil, fmt.Errorf("web_fetch: %w", err)
	}
	ua := opts.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	return &WebFetch{guard: g, conv: newConverter(), ua: ua, log: opts.Logger}, nil
}

const fetchSchema = `{"type":"object","properties":{` +
	`"url":{"type":"string","minLength":1,"maxLength":8192},` +
	`"max_bytes":{"type":"integer","minimum":1},` +
	`"raw":{"type":"boolean","default":false}},` +
	`"required":["url"],"additionalProperties":false}`

// Spec describes web_fetch.
func (t *WebFetch) Spec() tool.Spec {
	return tool.Spec{
		Name:        FetchName,
		Input:       json.RawMessage(fetchSchema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: FetchName},
	}
}

// Close closes idle connections.
func (t *WebFetch) Close() error {
	t.guard.CloseIdleConnections()
	return nil
}

type fetchArgs struct {
	URL      string `json:"url"`
	MaxBytes *int64 `json:"max_bytes"`
	Raw      bool   `json:"raw"`
}

// FetchData is web_fetch's Output.Data.
type FetchData struct {
	// URL is the final URL, after redirects.
	URL    string `json:"url"`
	Status int    `json:"status"`
	// ContentType is the response's Content-Type, or the sniffed media
	// type when the server sent none.
	ContentType string `json:"content_type"`
	// Charset is the encoding the body was decoded from.
	Charset string `json:"charset,omitempty"`
	// Title is an HTML page's <title>.
	Title string `json:"title,omitempty"`
	// Format is "markdown" (converted HTML), "html" (raw HTML) or "text".
	Format string `json:"format"`
	// Bytes is how much of the body was read.
	Bytes int `json:"bytes"`
	// Truncated says the body went on past the cap.
	Truncated bool `json:"truncated"`
}

func fetchSummary(u *url.URL) string { return "GET " + u.Redacted() }

// Assess reports a low-tier read of the URL. A URL the host rules refuse
// is noted among the reasons; the call then fails without connecting.
func (t *WebFetch) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a fetchArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode web_fetch arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Low}
	u, err := parseURL(a.URL)
	if err != nil {
		as.Reasons = []string{err.Error()}
		return as, nil
	}
	as.Reasons = []string{"reads " + u.Redacted() + " (GET, no side effects)"}
	as.Plan = &tool.Plan{Summary: fetchSummary(u)}
	if err := t.guard.CheckURL(u); err != nil {
		as.Reasons = append(as.Reasons, "will be refused before connecting: "+err.Error())
	}
	return as, nil
}

// Execute fetches the page.
func (t *WebFetch) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a fetchArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Failure("invalid arguments: %v: pass an object like {\"url\": \"https://example.com/\"}", err), nil
	}
	u, err := parseURL(a.URL)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	limit := t.guard.MaxBytes()
	if a.MaxBytes != nil {
		if *a.MaxBytes < 1 {
			return tool.Failure("max_bytes must be 1 or more; omit it to read up to %d bytes", limit), nil
		}
		limit = min(limit, *a.MaxBytes)
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != fetchSummary(u) {
		return tool.Failure("this request (%s) is not the one that was approved (%s); nothing was fetched", fetchSummary(u), approved.Summary), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tool.Failure("cannot build a request for %s: %v; check the URL", u.Redacted(), err), nil
	}
	req.Header.Set("User-Agent", t.ua)
	req.Header.Set("Accept", "text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.1")
	resp, err := t.guard.Do(req, limit)
	if err != nil {
		return netFailure(ctx, FetchName, u, err)
	}
	t.log.Debug().Str("host", resp.URL.Host).Int("status", resp.StatusCode).Int("bytes", len(resp.Body)).
		Bool("truncated", resp.Truncated).Msg("web_fetch")
	final := resp.URL.Redacted()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc := resp.Header.Get("Location")
		return tool.Failure("%s answered %s with a redirect to %q, and redirects are not followed here; fetch that URL if you trust it", final, resp.Status, loc), nil
	}
	page := t.render(ctx, resp, a.Raw)
	if resp.StatusCode >= 400 {
		if page.failure != "" || strings.TrimSpace(page.text) == "" {
			return tool.Failure("%s answered %s; check the URL", final, resp.Status), nil
		}
		return tool.Failure("%s answered %s; check the URL. The page says:\n%s", final, resp.Status, excerpt(page.text, errorExcerpt)), nil
	}
	if page.failure != "" {
		return tool.Failure("%s", page.failure), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Fetched %s (%s, %s", final, resp.Status, page.data.ContentType)
	if page.data.Format == "markdown" {
		b.WriteString(", converted to markdown")
	}
	b.WriteString(")\n")
	if page.data.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", page.data.Title)
	}
	b.WriteString("\n")
	b.WriteString(page.text)
	if resp.Truncated {
		b.WriteString("\n\n")
		b.WriteString(sizeNote(limit, t.guard.MaxBytes()))
	}
	page.data.Status = resp.StatusCode
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: page.data}}, nil
}

// rendered is a body turned into text, or the reason it cannot be.
type rendered struct {
	text    string
	data    FetchData
	failure string
}

// render turns a response body into text: HTML is converted to markdown
// (or decoded as it is with raw), text and JSON are decoded, anything else
// is refused.
func (t *WebFetch) render(ctx context.Context, resp *netguard.Response, raw bool) rendered {
	mt, declared := mediaType(resp.Header.Get("Content-Type"), resp.Body)
	ct := declared
	if ct == "" {
		ct = mt + " (sniffed)"
	}
	final := resp.URL.Redacted()
	data := FetchData{URL: final, Status: resp.StatusCode, ContentType: ct, Bytes: len(resp.Body), Truncated: resp.Truncated}
	kind := classify(mt)
	if kind == kindBinary {
		return rendered{failure: fmt.Sprintf("%s is %s, which web_fetch cannot show as text; it reads HTML, plain text, JSON and XML, so look for a text version of this resource", final, ct)}
	}
	text, cs, ok := decodeText(resp.Body, declared, resp.Truncated)
	if !ok {
		return rendered{failure: fmt.Sprintf("%s says it is %s but holds binary data; web_fetch shows text only", final, ct)}
	}
	data.Charset = cs
	switch {
	case kind == kindHTML && !raw:
		md, title, err := htmlToMarkdown(ctx, t.conv, text, resp.URL.String())
		if err != nil {
			return rendered{failure: fmt.Sprintf("%s could not be converted to text: %v; pass \"raw\": true to get the HTML source", final, err)}
		}
		data.Format, data.Title = "markdown", title
		text = md
	case kind == kindHTML:
		data.Format = "html"
	default:
		data.Format = "text"
	}
	return rendered{text: text, data: data}
}

// excerpt returns at most n bytes of s, cut at a character boundary.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}
