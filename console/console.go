package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/sandbox"
)

// Path is where the console is served; mount the console on it.
const Path = "/console/"

// base is Path without its trailing slash: the prefix of every link.
const base = "/console"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

var (
	// ErrNoRuntime means New was given no runtime to show.
	ErrNoRuntime = errors.New("console: no runtime")
)

// Options configure [New]. Runtime is required; the zero value of every
// other field is its documented default.
type Options struct {
	// Runtime is the served runtime: its catalog, policy, message bundle
	// and the history of calls the Calls page follows.
	Runtime *runtime.Runtime
	// Queue holds the calls waiting for approval; nil shows none.
	Queue *approval.Queue
	// Access is the MCP endpoint's access rules; nil means those of a
	// zero [mcpserver.HTTPOptions]: loopback origins, no token.
	Access *mcpserver.Access
	// Profile is the risk profile of the server's sessions, the one the
	// Catalog and Policy pages start with; "" means "default".
	Profile string
	// Locale is the server's language, used when a browser asks for none
	// the console has; "" means English.
	Locale string
	// ReceiptsDir is the receipt store; "" means receipts are off.
	ReceiptsDir string
	// Reach reports why a tool process could open a TCP connection to
	// port on loopback (no sandbox, no connect rule, or the port allowed
	// in [sandbox] allow_connect_ports), or "" when the sandbox stops it.
	// While it gives a reason and no token is set, the console shows
	// approvals but does not take answers. nil means tools could connect.
	Reach func(port int) string
	// Plugins reports the installed plugins; nil shows none.
	Plugins func() ([]*plugins.Report, error)
	// SandboxCheck runs `talon sandbox check`; nil leaves the Sandbox page
	// with the status alone.
	SandboxCheck func(context.Context) (sandbox.Report, error)
	// Logger receives one line per answer, refusal and verification.
	Logger zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Console is the handler of the console's pages. It is safe for
// concurrent use.
type Console struct {
	opts   Options
	rt     *runtime.Runtime
	access *mcpserver.Access
	log    zerolog.Logger
	now    func() time.Time
	key    [32]byte // signs CSRF tokens and sign-in cookies, for this process
	pages  map[string]*template.Template
	mux    *http.ServeMux
	feed   *broker
	gone   *outcomes
	stop   []func()

	verifying sync.Mutex
	verifyMu  sync.Mutex
	verified  map[string]verifyResult // chain ("" for all) -> last verification

	checking  sync.Mutex
	checkMu   sync.Mutex
	lastCheck *checkResult
}

// pageNames are the templates of templates/, one per page.
var pageNames = []string{"approvals", "calls", "receipts", "receipt", "verify", "catalog", "policy", "plugins", "sandbox", "login", "error"}

// New builds the console and subscribes it to the queue and the calls.
// Call Close when the server stops.
//
// # Errors
//
// New fails without a runtime, or when talon's own templates do not parse
// (a build problem).
func New(o Options) (*Console, error) {
	if o.Runtime == nil {
		return nil, ErrNoRuntime
	}
	if o.Access == nil {
		o.Access = mcpserver.NewAccess(mcpserver.HTTPOptions{})
	}
	if o.Profile == "" {
		o.Profile = "default"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Console{opts: o, rt: o.Runtime, access: o.Access, log: o.Logger, now: o.Now,
		pages: map[string]*template.Template{}, verified: map[string]verifyResult{}, gone: newOutcomes(256)}
	if _, err := rand.Read(c.key[:]); err != nil {
		return nil, fmt.Errorf("console: draw a key: %w", err)
	}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console: parse %s: %w", name, err)
		}
		c.pages[name] = t
	}
	parts, err := template.New("parts").Funcs(funcs).ParseFS(templateFS, "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("console: parse parts: %w", err)
	}
	c.pages["parts"] = parts
	c.feed = newBroker()
	if o.Queue != nil {
		c.stop = append(c.stop, o.Queue.Subscribe(c.onApproval))
	}
	if h := o.Runtime.History(); h != nil {
		c.stop = append(c.stop, h.Subscribe(c.feed.call))
	}
	c.routes()
	return c, nil
}

// Close ends the subscriptions and every open event stream.
func (c *Console) Close() error {
	for _, stop := range c.stop {
		stop()
	}
	c.stop = nil
	c.feed.close()
	return nil
}

// ServeHTTP serves the console under [Path].
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.access.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		c.mux.ServeHTTP(w, r)
	})).ServeHTTP(w, r)
}

func (c *Console) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET "+base+"/assets/{file}", c.asset)
	m.HandleFunc("GET "+base+"/login", c.page(c.loginPage, false))
	m.HandleFunc("POST "+base+"/login", c.login)
	m.HandleFunc("GET "+base+"/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, base+"/approvals", http.StatusSeeOther)
	})
	m.HandleFunc("GET "+base+"/approvals", c.page(c.approvalsPage, true))
	m.HandleFunc("POST "+base+"/approvals/{id}", c.signedIn(c.answer))
	m.HandleFunc("GET "+base+"/calls", c.page(c.callsPage, true))
	m.HandleFunc("GET "+base+"/events", c.signedIn(c.events))
	m.HandleFunc("GET "+base+"/receipts", c.page(c.receiptsPage, true))
	m.HandleFunc("GET "+base+"/receipts/export", c.signedIn(c.exportReceipts))
	m.HandleFunc("GET "+base+"/receipts/key", c.signedIn(c.publicKey))
	m.HandleFunc("POST "+base+"/receipts/verify", c.signedIn(c.verify))
	m.HandleFunc("GET "+base+"/receipts/{id}", c.page(c.receiptPage, true))
	m.HandleFunc("GET "+base+"/catalog", c.page(c.catalogPage, true))
	m.HandleFunc("GET "+base+"/policy", c.page(c.policyPage, true))
	m.HandleFunc("GET "+base+"/plugins", c.page(c.pluginsPage, true))
	m.HandleFunc("GET "+base+"/sandbox", c.page(c.sandboxPage, true))
	m.HandleFunc("POST "+base+"/sandbox", c.signedIn(c.runSandboxCheck))
	m.HandleFunc(base+"/", func(w http.ResponseWriter, r *http.Request) {
		v := c.view(w, r)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, POST")
			c.fail(w, r, v, http.StatusMethodNotAllowed, v.T("error-method", "method", r.Method))
			return
		}
		c.fail(w, r, v, http.StatusNotFound, v.T("error-not-found", "path", r.URL.Path))
	})
	c.mux = m
}

// secure sets the headers every response carries: no framing (an approve
// button must not be clickjacked), nothing loaded from elsewhere, no
// caching of pages that show pending calls.
func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// page wraps a page handler: the view (session, language), then the
// sign-in when needed.
func (c *Console) page(fn func(http.ResponseWriter, *http.Request, *view), auth bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := c.view(w, r)
		if auth && !c.authorized(r, v) {
			http.Redirect(w, r, base+"/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		fn(w, r, v)
	}
}

// signedIn wraps a handler that is not a page a browser navigates to
// (answers, downloads, the event stream): without sign-in it is refused
// with 401 rather than redirected.
func (c *Console) signedIn(fn func(http.ResponseWriter, *http.Request, *view)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := c.view(w, r)
		if !c.authorized(r, v) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="talon"`)
			c.fail(w, r, v, http.StatusUnauthorized, v.T("error-sign-in"))
			return
		}
		fn(w, r, v)
	}
}

// render executes a page into a buffer first, so that a template error
// becomes a 500 rather than half a page.
func (c *Console) render(w http.ResponseWriter, status int, name string, v *view) {
	var b bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&b, "layout", v); err != nil {
		c.log.Error().Err(err).Str("page", name).Msg("console page failed to render")
		http.Error(w, "the console could not render this page; see talon's log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fragment renders one named template of parts.html.
func (c *Console) fragment(name string, data any) (string, error) {
	var b strings.Builder
	if err := c.pages["parts"].ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// fail answers with an error page: the status, what went wrong and what
// to do next. Nothing was changed.
func (c *Console) fail(w http.ResponseWriter, _ *http.Request, v *view, status int, msg string) {
	v.Title = v.T("error-title", "status", status)
	v.Data = errorData{Status: status, StatusText: http.StatusText(status), Message: msg}
	c.render(w, status, "error", v)
}

type errorData struct {
	Status     int
	StatusText string
	Message    string
}

// asset serves the embedded stylesheet and script.
func (c *Console) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	data, err := fs.ReadFile(assetFS, "assets/"+name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	switch {
	case strings.HasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".svg"):
		w.Header().Set("Content-Type", "image/svg+xml")
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}
