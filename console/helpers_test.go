package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/talonhq/talon/adapters/standard"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testConfig has a profile whose file_write a person must decide every
// time.
const testConfig = `
[risk_profiles.strict]
always_ask = ["file_write"]
`

type fixtureOptions struct {
	token string
	// reach is what Options.Reach says; "" means tools cannot connect.
	reach string
	// rules is the saved-rules file; "" means none, so nothing can be
	// kept for good.
	rules        string
	noReceipts   bool
	sandboxCheck bool
	check        func(context.Context) (sandbox.Report, error)
	plugins      func() ([]*plugins.Report, error)
}

// fixture is a console in front of a real runtime with the built-in
// tools, an approval queue and a receipt store, served on loopback.
type fixture struct {
	t       *testing.T
	rt      *runtime.Runtime
	q       *approval.Queue
	store   *receipts.Store
	dir     string
	ws      string
	c       *Console
	mcp     *mcpserver.Server
	srv     *httptest.Server
	client  *http.Client
	results chan callResult
}

type callResult struct {
	res tool.Result
	err error
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, ws: t.TempDir(), results: make(chan callResult, 16)}
	data := t.TempDir()
	cfg, _, err := config.Parse("talon.toml", []byte(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	f.q = approval.NewQueue(approval.QueueOptions{Timeout: time.Minute})
	var rec runtime.Recorder
	if !o.noReceipts {
		f.dir = filepath.Join(data, "receipts")
		f.store, err = receipts.Open(receipts.Options{Dir: f.dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.store.Close() })
		rec = f.store
	}
	// Calls wait in the queue as they do under talon serve: MCP clients
	// without elicitation, and Go callers, are parked there.
	var rules *approval.Rules
	if o.rules != "" {
		rules = approval.OpenRules(o.rules, func(err error) { t.Error(err) })
	}
	f.rt, err = runtime.New(runtime.Options{Config: cfg, Workspace: f.ws, DataDir: data,
		Approver: &mcpserver.Approver{Queue: f.q}, Receipts: rec, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	f.mcp, err = mcpserver.New(mcpserver.Options{Runtime: f.rt})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Runtime: f.rt, Queue: f.q, ReceiptsDir: f.dir,
		Access: mcpserver.NewAccess(mcpserver.HTTPOptions{Token: o.token}),
		Reach:  func(int) string { return o.reach },
	}
	if o.sandboxCheck {
		opts.SandboxCheck = fakeCheck
	}
	if o.check != nil {
		opts.SandboxCheck = o.check
	}
	opts.Plugins = o.plugins
	f.c, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", f.mcp.HTTPHandler(mcpserver.HTTPOptions{Token: o.token}))
	mux.Handle(Path, f.c)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = f.c.Close()
		f.srv.CloseClientConnections()
		f.srv.Close()
		_ = f.mcp.Close()
	})
	f.client = f.newClient()
	return f
}

// newClient is a browser of its own: a cookie jar, redirects not
// followed so that tests see them.
func (f *fixture) newClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// call starts a call on the MCP channel; its result arrives on f.results.
func (f *fixture) call(name, args, session, profile string) {
	go func() {
		res, err := f.rt.Call(context.Background(), tool.Call{Name: name, Args: json.RawMessage(args),
			Channel: tool.ChannelMCP, SessionID: session, Profile: profile})
		f.results <- callResult{res, err}
	}()
}

// waiting returns the pending approval once n wait.
func (f *fixture) waiting(n int) []approval.Pending {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if l := f.q.List(); len(l) == n {
			return l
		}
		time.Sleep(2 * time.Millisecond)
	}
	f.t.Fatalf("%d calls wait, want %d", len(f.q.List()), n)
	return nil
}

func (f *fixture) result() callResult {
	f.t.Helper()
	select {
	case r := <-f.results:
		return r
	case <-time.After(30 * time.Second):
		f.t.Fatal("the call never returned")
	}
	return callResult{}
}

// req is one request of a test.
type req struct {
	method  string
	path    string
	form    url.Values
	headers map[string]string
	host    string
	client  *http.Client
}

type resp struct {
	status int
	body   string
	header http.Header
}

func (f *fixture) do(r req) resp {
	f.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	}
	hr, err := http.NewRequest(r.method, f.srv.URL+r.path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if r.form != nil {
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	if r.host != "" {
		hr.Host = r.host
	}
	c := r.client
	if c == nil {
		c = f.client
	}
	res, err := c.Do(hr)
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, body: string(b), header: res.Header}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf loads a page with client c and returns its CSRF token.
func (f *fixture) csrf(c *http.Client) string {
	f.t.Helper()
	r := f.do(req{path: "/console/receipts", client: c})
	m := csrfRE.FindStringSubmatch(r.body)
	if m == nil {
		f.t.Fatalf("no CSRF token on the page (status %d):\n%s", r.status, r.body)
	}
	return m[1]
}

// origin is the console's own origin, as a browser sends it.
func (f *fixture) origin() string { return f.srv.URL }
