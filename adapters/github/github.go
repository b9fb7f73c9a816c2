package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// Name is the tool's name.
const Name = "github"

// Limits of a call.
const (
	// DefaultLimit is how many items a list returns when neither the
	// operator nor the call says otherwise.
	DefaultLimit = 30
	// MaxLimit is the most items one list call returns.
	MaxLimit = 100
	// perPage is the page size asked of the API.
	perPage = 100
	// maxPages bounds the pages one list call reads.
	maxPages = 10
	// maxResponseBytes bounds one page of an answer.
	maxResponseBytes = 4 << 20
	// maxTitle and maxBody bound what a call may write.
	maxTitle = 256
	maxBody  = 65536
	// shownBody bounds the issue or pull request text shown by a get.
	shownBody = 20000
)

// Actions of the tool.
const (
	ListIssues   = "list_issues"
	GetIssue     = "get_issue"
	CreateIssue  = "create_issue"
	CommentIssue = "comment_issue"
	ListPulls    = "list_pulls"
	GetPull      = "get_pull"
	CreatePull   = "create_pull"
)

// Actions lists every action, reads first.
var Actions = []string{ListIssues, GetIssue, ListPulls, GetPull, CreateIssue, CommentIssue, CreatePull}

func writes(action string) bool {
	return action == CreateIssue || action == CommentIssue || action == CreatePull
}

// ErrInvalidArguments is wrapped by every error about arguments that do not
// fit the action.
var ErrInvalidArguments = errors.New("invalid github arguments")

// Options configures [GitHub]. The zero value is valid: public reads of
// api.github.com without a token, every call naming its repository.
type Options struct {
	// BaseURL is the REST API root; "" means https://api.github.com.
	BaseURL string
	// Token authenticates requests; ${VAR} is expanded per call. "" means
	// anonymous: reads of public repositories only.
	Token string
	// Owner and Repo are used when a call names no repository.
	Owner, Repo string
	// Limit is the operator's cap on the items of a list; zero means
	// DefaultLimit, and more than MaxLimit means MaxLimit.
	Limit int
	// Timeout bounds each request; zero means netguard's default.
	Timeout time.Duration
	// AllowPrivate lets requests reach an API on a private or loopback
	// address (GitHub Enterprise on the LAN); see [netguard.Options].
	AllowPrivate []string
	// Resolver looks up host names; nil means the system's.
	Resolver netguard.Resolver
	// LookupEnv reads variables for ${VAR} in Token; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives one debug line per request; tokens and bodies are
	// never logged.
	Logger zerolog.Logger
}

// GitHub is the github tool. It is immutable and safe for concurrent use.
type GitHub struct {
	base        *url.URL
	token       string
	owner, repo string
	limit       int
	guard       *netguard.Guard
	lookup      func(string) (string, bool)
	log         zerolog.Logger
}

var (
	_ tool.Tool     = (*GitHub)(nil)
	_ tool.Assessor = (*GitHub)(nil)
)

// New returns the github tool.
//
// # Errors
//
// A BaseURL that is not http or https, an Owner or Repo that is not a
// GitHub name, or an invalid AllowPrivate rule (wrapping
// [netguard.ErrInvalidRule]).
func New(opts Options) (*GitHub, error) {
	raw := opts.BaseURL
	if raw == "" {
		raw = config.DefaultGitHubURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("github: base URL %q is not an http or https URL: fix base_url in [tools.github]", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	for _, n := range []string{opts.Owner, opts.Repo} {
		if n != "" && !nameRE.MatchString(n) {
			return nil, fmt.Errorf("github: %q is not a GitHub owner or repository name: fix owner and repo in [tools.github]", n)
		}
	}
	t := &GitHub{base: u, token: opts.Token, owner: opts.Owner, repo: opts.Repo, lookup: opts.LookupEnv, log: opts.Logger}
	if t.lookup == nil {
		t.lookup = os.LookupEnv
	}
	t.limit = opts.Limit
	if t.limit <= 0 {
		t.limit = DefaultLimit
	}
	t.limit = min(t.limit, MaxLimit)
	t.guard, err = netguard.New(netguard.Options{
		AllowedHosts: []string{u.Hostname()},
		AllowPrivate: opts.AllowPrivate,
		Timeout:      opts.Timeout,
		MaxBytes:     maxResponseBytes,
		MaxRedirects: -1, // a redirect would carry the token elsewhere
		Resolver:     opts.Resolver,
		Logger:       opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	return t, nil
}

const schema = `{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["list_issues","get_issue","list_pulls","get_pull","create_issue","comment_issue","create_pull"]},` +
	`"owner":{"type":"string","minLength":1,"maxLength":100},` +
	`"repo":{"type":"string","minLength":1,"maxLength":100},` +
	`"number":{"type":"integer","minimum":1},` +
	`"state":{"type":"string","enum":["open","closed","all"]},` +
	`"labels":{"type":"array","items":{"type":"string","minLength":1,"maxLength":100},"maxItems":20},` +
	`"title":{"type":"string","minLength":1,"maxLength":256},` +
	`"body":{"type":"string","maxLength":65536},` +
	`"head":{"type":"string","minLength":1,"maxLength":255},` +
	`"base":{"type":"string","minLength":1,"maxLength":255},` +
	`"draft":{"type":"boolean"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100}},` +
	`"required":["action"],"additionalProperties":false}`

// Spec describes github.
func (t *GitHub) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       json.RawMessage(schema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// Close closes idle connections.
func (t *GitHub) Close() error {
	t.guard.CloseIdleConnections()
	return nil
}

type args struct {
	Action string   `json:"action"`
	Owner  string   `json:"owner"`
	Repo   string   `json:"repo"`
	Number int      `json:"number"`
	State  string   `json:"state"`
	Labels []string `json:"labels"`
	Title  string   `json:"title"`
	Body   *string  `json:"body"`
	Head   string   `json:"head"`
	Base   string   `json:"base"`
	Draft  bool     `json:"draft"`
	Limit  int      `json:"limit"`
}

// nameRE matches owner and repository names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// call is a decoded, checked call: the request it makes.
type call struct {
	args
	method string
	// path is relative to the API root, e.g. /repos/o/r/issues.
	path  string
	query url.Values
	// payload is the JSON body of a write.
	payload []byte
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArguments, fmt.Sprintf(format, a...))
}

// decode checks the arguments against the action and builds the request.
func (t *GitHub) decode(raw json.RawMessage) (call, error) {
	var c call
	if err := tool.DecodeArgs(raw, &c.args); err != nil {
		return c, invalid("%v: pass an object like {\"action\": \"list_issues\", \"owner\": \"octo\", \"repo\": \"hello\"}", err)
	}
	a := &c.args
	if a.Owner == "" && a.Repo == "" {
		a.Owner, a.Repo = t.owner, t.repo
	}
	switch {
	case a.Owner == "" || a.Repo == "":
		return c, invalid("name the repository with owner and repo (no default repository is configured in [tools.github])")
	case !nameRE.MatchString(a.Owner) || !nameRE.MatchString(a.Repo) || a.Repo == "." || a.Repo == "..":
		return c, invalid("owner and repo must be GitHub names made of letters, digits, '-', '_' and '.', such as \"octo\" and \"hello-world\"")
	}
	repo := "/repos/" + a.Owner + "/" + a.Repo
	needs := func(cond bool, what string) error {
		if !cond {
			return invalid("%s needs %s", a.Action, what)
		}
		return nil
	}
	unused := func(names ...string) error {
		set := map[string]bool{"number": a.Number != 0, "state": a.State != "", "labels": len(a.Labels) > 0, "title": a.Title != "",
			"body": a.Body != nil, "head": a.Head != "", "base": a.Base != "", "draft": a.Draft, "limit": a.Limit != 0}
		for _, n := range names {
			if set[n] {
				return invalid("%s does not take %s; leave it out", a.Action, n)
			}
		}
		return nil
	}
	var err error
	switch a.Action {
	case ListIssues, ListPulls:
		err = unused("number", "title", "body", "head", "base", "draft")
		if err == nil && a.Action == ListPulls && len(a.Labels) > 0 {
			err = invalid("list_pulls cannot filter by labels; use list_issues, which lists pull requests' issues too, or leave labels out")
		}
		c.method, c.path = http.MethodGet, repo+"/issues"
		if a.Action == ListPulls {
			c.path = repo + "/pulls"
		}
		c.query = url.Values{}
		c.query.Set("state", orDefault(a.State, "open"))
		if len(a.Labels) > 0 {
			c.query.Set("labels", strings.Join(a.Labels, ","))
		}
	case GetIssue, GetPull:
		err = needs(a.Number > 0, "the number")
		if err == nil {
			err = unused("state", "labels", "title", "body", "head", "base", "draft", "limit")
		}
		kind := "/issues/"
		if a.Action == GetPull {
			kind = "/pulls/"
		}
		c.method, c.path = http.MethodGet, fmt.Sprintf("%s%s%d", repo, kind, a.Number)
	case CreateIssue:
		err = needs(strings.TrimSpace(a.Title) != "", "a title")
		if err == nil {
			err = unused("number", "state", "head", "base", "draft", "limit")
		}
		p := map[string]any{"title": a.Title}
		if a.Body != nil {
			p["body"] = *a.Body
		}
		if len(a.Labels) > 0 {
			p["labels"] = a.Labels
		}
		c.method, c.path, c.payload = http.MethodPost, repo+"/issues", mustJSON(p)
	case CommentIssue:
		err = needs(a.Number > 0 && a.Body != nil && strings.TrimSpace(*a.Body) != "", "the number and a body")
		if err == nil {
			err = unused("state", "labels", "title", "head", "base", "draft", "limit")
		}
		if err == nil {
			c.method, c.path = http.MethodPost, fmt.Sprintf("%s/issues/%d/comments", repo, a.Number)
			c.payload = mustJSON(map[string]any{"body": *a.Body})
		}
	case CreatePull:
		err = needs(strings.TrimSpace(a.Title) != "" && a.Head != "" && a.Base != "", "a title, head (the branch with the changes) and base (the branch to merge into)")
		if err == nil {
			err = unused("number", "state", "labels", "limit")
		}
		p := map[string]any{"title": a.Title, "head": a.Head, "base": a.Base}
		if a.Body != nil {
			p["body"] = *a.Body
		}
		if a.Draft {
			p["draft"] = true
		}
		c.method, c.path, c.payload = http.MethodPost, repo+"/pulls", mustJSON(p)
	default:
		err = invalid("action %q is not known; use one of %s", a.Action, strings.Join(Actions, ", "))
	}
	if err == nil && a.Body != nil && len(*a.Body) > maxBody {
		err = invalid("body is %d bytes long; the limit is %d", len(*a.Body), maxBody)
	}
	if err == nil && len(a.Title) > maxTitle {
		err = invalid("title is %d bytes long; the limit is %d", len(a.Title), maxTitle)
	}
	return c, err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings, bools and string slices always encode
	}
	return b
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// endpoint is the absolute URL of a call's first request.
func (t *GitHub) endpoint(c call) *url.URL {
	u := *t.base
	u.Path += c.path
	if c.query != nil {
		u.RawQuery = c.query.Encode()
	}
	return &u
}

// summary is the plan an approver sees: the method, the URL and, for a
// write, what it writes and a digest of the exact payload.
func (t *GitHub) summary(c call) string {
	s := c.method + " " + t.endpoint(c).Redacted()
	if c.payload == nil {
		return s
	}
	sum := sha256.Sum256(c.payload)
	var what []string
	if c.Title != "" {
		what = append(what, fmt.Sprintf("title %q", c.Title))
	}
	if c.Head != "" {
		what = append(what, fmt.Sprintf("%s -> %s", c.Head, c.Base))
	}
	if c.Body != nil {
		what = append(what, fmt.Sprintf("body %d bytes", len(*c.Body)))
	}
	if len(c.Labels) > 0 {
		what = append(what, "labels "+strings.Join(c.Labels, ","))
	}
	return fmt.Sprintf("%s (%s; payload sha256:%s)", s, strings.Join(what, ", "), hex.EncodeToString(sum[:8]))
}

// Assess reports reads as low and writes as high, with the request as the
// plan.
func (t *GitHub) Assess(raw json.RawMessage) (tool.Assessment, error) {
	c, err := t.decode(raw)
	if err != nil {
		return tool.Assessment{}, fmt.Errorf("decode github arguments: %w", err)
	}
	repo := c.Owner + "/" + c.Repo
	as := tool.Assessment{Tier: tool.Low, Plan: &tool.Plan{Summary: t.summary(c)}}
	if writes(c.Action) {
		as.Tier = tool.High
		as.Reasons = []string{fmt.Sprintf("%s writes to %s on %s in the name of the configured token (remote side effect)", c.Action, repo, t.base.Host)}
	} else {
		as.Reasons = []string{fmt.Sprintf("%s reads %s on %s (read-only)", c.Action, repo, t.base.Host)}
	}
	return as, nil
}

// Execute performs the action.
func (t *GitHub) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	c, err := t.decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != t.summary(c) {
		return tool.Failure("this request (%s) is not the one that was approved (%s); nothing was sent: ask for approval again", t.summary(c), approved.Summary), nil
	}
	token, parts, err := t.secret()
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if token == "" && writes(c.Action) {
		return tool.Failure("%s needs a GitHub token and none is configured, so nothing was sent: the operator sets token = \"${GITHUB_TOKEN}\" in [tools.github] and exports GITHUB_TOKEN", c.Action), nil
	}
	cl := client{t: t, token: token, ctx: ctx, red: tokenRedactor(token, parts)}
	switch c.Action {
	case ListIssues, ListPulls:
		limit := t.limit
		if c.Limit > 0 {
			limit = min(limit, c.Limit)
		}
		items, more, fail := cl.list(c, limit)
		if fail != nil {
			return fail.result()
		}
		return listResult(c, items, more, limit), nil
	default:
		body, fail := cl.do(c.method, t.endpoint(c), c.payload)
		if fail != nil {
			return fail.result()
		}
		var it item
		if err := json.Unmarshal(body.data, &it); err != nil {
			return tool.Failure("GitHub answered in a form the github tool does not understand: the operator checks base_url in [tools.github]"), nil
		}
		return itemResult(c, it), nil
	}
}

// secret expands the configured token; parts are the variables' values
// inserted into it.
func (t *GitHub) secret() (string, []string, error) {
	if t.token == "" {
		return "", nil, nil
	}
	v, parts, err := config.ExpandVars(t.token, t.lookup)
	if err != nil {
		return "", nil, fmt.Errorf("the GitHub token cannot be read: %v; nothing was sent: export the variable before starting talon, or fix token in [tools.github]", err)
	}
	return strings.TrimSpace(v), parts, nil
}

// tokenName is how a redacted token shows: "[secret tools.github.token]".
const tokenName = "tools.github.token"

// tokenRedactor hides the token, and each variable's value in it, in
// whatever GitHub (or what base_url points at) sends back.
func tokenRedactor(token string, parts []string) *netguard.Redactor {
	secrets := []netguard.Secret{{Name: tokenName, Value: token}}
	for _, p := range parts {
		secrets = append(secrets, netguard.Secret{Name: tokenName, Value: strings.TrimSpace(p)})
	}
	return netguard.NewRedactor(secrets...)
}
