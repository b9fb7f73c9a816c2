package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/cli"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/sandbox"
)

// mainEnv makes the test binary talon itself, so the browser test drives
// a real talon serve; the sandbox's helper is the same binary again.
const mainEnv = "TALON_CONSOLE_TEST_MAIN"

func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if os.Getenv(mainEnv) == "talon" {
		os.Exit(cli.Main(os.Args[1:], cli.System()))
	}
}

// screenshotsEnv names the directory the browser test writes its
// screenshots to (make console-screenshots sets it to docs/console);
// unset, they go to a temporary directory.
const screenshotsEnv = "TALON_CONSOLE_SCREENSHOTS"

// chromium finds the browser: $TALON_CHROMIUM, else Debian's chromium.
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TALON_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: make test installs it with scripts/tools.sh (Debian package chromium); in CI the browser test must run")
	}
	t.Skip("chromium is not installed, so the console's browser test is skipped: install the Debian package chromium (make test does it with scripts/tools.sh) or set TALON_CHROMIUM")
	return ""
}

// lockedBuffer collects output written from several goroutines.
type lockedBuffer = syncbuf.Buffer

// serveToken is the bearer token of the test's talon serve.
const serveToken = "browser-test-token-0123456789"

// server is a talon serve started from this test binary.
type server struct {
	console, mcp string
	stderr       *lockedBuffer
}

func startServe(t testing.TB) *server {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "talon.toml"), []byte("[approvals]\ntimeout_seconds = 300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = ws
	// With a token the console takes answers whatever this machine's
	// sandbox can do, and the browser signs in as an operator would.
	cmd.Env = []string{mainEnv + "=talon", "PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"TALON_SERVE_TOKEN=" + serveToken}
	s := &server{stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("talon serve did not stop on SIGTERM:\n%s", s.stderr.String())
		}
	})
	consoleRE := regexp.MustCompile(`console:\s+(http://\S+)`)
	mcpRE := regexp.MustCompile(`url:\s+(http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := s.stderr.String()
		if c, m := consoleRE.FindStringSubmatch(out), mcpRE.FindStringSubmatch(out); c != nil && m != nil {
			s.console, s.mcp = strings.TrimSuffix(c[1], "/"), m[1]
			return s
		}
		select {
		case err := <-exited:
			t.Fatalf("talon serve exited: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("talon serve printed no console URL:\n%s", out)
		}
	}
}

// browser is one headless chromium with one tab, for the whole test.
type browser struct {
	t    testing.TB
	ctx  context.Context
	shot string
}

// attackerHost is a name the browser resolves to loopback, so that a page
// of another site can be served from this machine.
const attackerHost = "evil.test"

func startBrowser(t testing.TB) *browser {
	t.Helper()
	exe := chromium(t)
	shots := os.Getenv(screenshotsEnv)
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("host-resolver-rules", "MAP "+attackerHost+" 127.0.0.1"),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	// The first action starts the browser and lives as long as its
	// context: run it on the tab's own context, not a bounded one.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, shot: shots}
}

// do runs steps within a bound, failing the test on error.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

func (b *browser) eval(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("browser: %s: %v", js, err)
	}
	return s
}

// waitFor polls a JavaScript predicate. A poll cut short because the page
// navigated (a form posted, a redirect followed) starts again on the new
// page.
func (b *browser) waitFor(js string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(10*time.Millisecond)))
		if err == nil {
			return
		}
		if ctx.Err() == nil && (strings.Contains(err.Error(), "navigated or closed") || strings.Contains(err.Error(), "Cannot find context")) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		b.t.Fatalf("browser: waiting for %s: %v\npage:\n%s", js, err, b.eval(`document.body.innerText`))
	}
}

func (b *browser) text() string { return b.eval(`document.body.innerText`) }

// screenshot saves the viewport as name.png.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	// Rows that just arrived fade in; show them settled.
	b.eval(`document.querySelectorAll(".new").forEach(e => e.classList.remove("new")), ""`)
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shot, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// fits checks that the page needs no sideways scrolling at the current
// width.
func (b *browser) fits(what string) {
	b.t.Helper()
	if got := b.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); got != "0" {
		wide := b.eval(`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 5).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(", ")`)
		b.t.Errorf("%s: the page is %s px wider than the window (%s)", what, got, wide)
	}
}

// widths are the ones the console must work at: a laptop, a laptop at
// 200 % zoom (half the CSS pixels, twice the scale), a phone.
var widths = []struct {
	name          string
	width, height int64
	scale         float64
}{
	{"laptop", 1280, 900, 1},
	{"laptop at 200 %", 640, 450, 2},
	{"phone", 390, 844, 3},
}

func (b *browser) atEachWidth(what string) {
	b.t.Helper()
	for _, w := range widths {
		b.do(chromedp.EmulateViewport(w.width, w.height, chromedp.EmulateScale(w.scale)))
		b.fits(what + " at " + w.name)
	}
	b.do(chromedp.EmulateViewport(1280, 900))
}

// mcpClient is an MCP client without elicitation: its calls that need
// approval wait in the server's queue.
func mcpClient(t testing.TB, url string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "browser-test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// bearer sends the token with every request of the MCP client.
type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+serveToken)
	return http.DefaultTransport.RoundTrip(r)
}

// signIn enters the token on the sign-in page the console sends a
// browser to, as an operator would.
func (b *browser) signIn(s *server) {
	b.t.Helper()
	b.do(chromedp.Navigate(s.console + "/approvals"))
	if !strings.HasPrefix(b.eval(`location.pathname`), "/console/login") {
		b.t.Fatalf("without the token the console did not ask for it: %s", b.eval(`location.href`))
	}
	b.screenshot("login")
	b.do(chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), serveToken+"\r"))
	b.waitFor(`location.pathname === "/console/approvals"`)
	if got := b.eval(`document.cookie`); got != "" {
		b.t.Errorf("the console's cookies are readable by the page's script: %q", got)
	}
}

type callResult struct {
	res *sdk.CallToolResult
	err error
}

func callAsync(cs *sdk.ClientSession, path string) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write",
			Arguments: map[string]any{"path": path, "content": "written from the browser test\n"}})
		done <- callResult{res, err}
	}()
	return done
}

func wait(t testing.TB, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("the MCP call never returned")
	}
	return callResult{}
}

// openApprovals loads the Approvals page and waits until its event stream
// is live.
func (b *browser) openApprovals(s *server, query string) {
	b.t.Helper()
	b.do(chromedp.Navigate(s.console + "/approvals" + query))
	b.waitFor(`document.getElementById("approvals") && document.getElementById("approvals").dataset.live === "1"`)
}

// TestBrowser drives the console of a real talon serve in headless
// Chromium: a waiting call appears live and is approved with a click, its
// receipt then shows as verified; another is denied with the keyboard
// alone; a form posted from another site is refused; every page fits a
// laptop, a laptop at 200 % zoom and a phone. It writes a screenshot of
// each page.
func TestBrowser(t *testing.T) {
	b := startBrowser(t)
	s := startServe(t)
	cs := mcpClient(t, s.mcp)
	b.signIn(s)

	t.Run("approve", func(t *testing.T) {
		b.t = t
		b.openApprovals(s, "")
		start := time.Now()
		done := callAsync(cs, "approved.txt")
		b.waitFor(`document.querySelector("article.approval") !== null`)
		t.Logf("the waiting call appeared in the open console %s after the call was sent", time.Since(start).Round(time.Millisecond))
		page := b.text()
		for _, want := range []string{"file_write", "builtin.file_write", "tier medium", "bytes to approved.txt", "Approve once"} {
			if !strings.Contains(page, want) {
				t.Errorf("the approval lacks %q:\n%s", want, page)
			}
		}
		b.screenshot("approvals")
		b.atEachWidth("approvals")
		b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
		b.screenshot("approvals-phone")
		b.do(chromedp.EmulateViewport(1280, 900))
		b.openApprovals(s, "?lang=ja")
		if !strings.Contains(b.text(), "今回だけ許可") {
			t.Errorf("the Japanese page is not in Japanese:\n%s", b.text())
		}
		b.screenshot("approvals-ja")
		b.openApprovals(s, "?lang=en")

		b.do(chromedp.Click(chromedp.CSS("article.approval button.approve")))
		b.waitFor(`document.querySelector(".flash") !== null`)
		r := wait(t, done)
		if r.err != nil || r.res.IsError {
			t.Fatalf("the approved call failed: %v %+v", r.err, r.res)
		}
		raw, _ := json.Marshal(r.res.Meta["talon/receipt"])
		var rec struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil || rec.ID == "" {
			t.Fatalf("the result carries no receipt: %s", raw)
		}
		b.do(chromedp.Navigate(s.console + "/receipts/" + rec.ID))
		if page := b.text(); !strings.Contains(page, "Verified: the signature holds") {
			t.Fatalf("the receipt page does not show the receipt verified:\n%s", page)
		}
		b.screenshot("receipt")
		b.atEachWidth("receipt")
	})

	t.Run("deny with the keyboard", func(t *testing.T) {
		b.t = t
		b.openApprovals(s, "")
		done := callAsync(cs, "denied.txt")
		b.waitFor(`document.querySelector("article.approval") !== null`)
		// Tab through the page until the Deny button has the focus.
		for i := 0; ; i++ {
			if i > 100 {
				t.Fatal("the Deny button cannot be reached with the Tab key")
			}
			b.do(chromedp.KeyEvent("\t"))
			if b.eval(`document.activeElement ? document.activeElement.className : ""`) == "deny" {
				break
			}
		}
		b.do(chromedp.KeyEvent("\r"))
		b.waitFor(`document.querySelector(".flash") !== null`)
		r := wait(t, done)
		if r.err != nil || !r.res.IsError || !strings.Contains(fmt.Sprint(r.res.Content[0].(*sdk.TextContent).Text), "Denied by user.") {
			t.Fatalf("the denied call ended %v %+v", r.err, r.res)
		}
	})

	t.Run("answer forged by another site", func(t *testing.T) {
		b.t = t
		b.openApprovals(s, "")
		done := callAsync(cs, "forged.txt")
		b.waitFor(`document.querySelector("article.approval") !== null`)
		id := b.eval(`document.querySelector("article.approval").dataset.id`)
		target := s.console + "/approvals/" + id
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>free prizes</title>
<form id="f" method="post" action="%s"><input name="answer" value="yes"><input name="csrf" value="guess"></form>
<script>document.getElementById("f").submit()</script>`, target)
		}))
		defer evil.Close()
		attacker := strings.Replace(evil.URL, "127.0.0.1", attackerHost, 1)
		b.do(chromedp.Navigate(attacker))
		b.waitFor(`location.href.startsWith(` + jsString(s.console) + `)`)
		if page := b.text(); !strings.Contains(page, "is not allowed") {
			t.Errorf("the forged answer was not refused for its origin:\n%s", page)
		}
		b.openApprovals(s, "")
		if b.eval(`document.getElementById("approval-`+id+`") ? "waiting" : "gone"`) != "waiting" {
			t.Fatal("the forged answer decided the call")
		}
		b.do(chromedp.Click(chromedp.CSS("article.approval button.deny")))
		b.waitFor(`document.querySelector(".flash") !== null`)
		if r := wait(t, done); r.err != nil || !r.res.IsError {
			t.Fatalf("the call ended %v %+v, want it denied", r.err, r.res)
		}
	})

	t.Run("pages", func(t *testing.T) {
		b.t = t
		// A few calls policy allows, for the feed and the receipts.
		for _, expr := range []string{"6*7", "2**10", "sqrt(2)"} {
			if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": expr}}); err != nil {
				t.Fatal(err)
			}
		}
		b.do(chromedp.Navigate(s.console + "/receipts"))
		b.do(chromedp.Click(chromedp.CSS(`form.inline button`)))
		b.waitFor(`location.pathname === "/console/receipts/verify" && document.querySelector(".verdict") !== null`)
		if page := b.text(); !strings.Contains(page, "Verified: 4 records") {
			t.Errorf("verifying the chain from the page:\n%s", page)
		}
		b.screenshot("verify")
		pages := []struct {
			name, path, want string
			action           string
		}{
			{name: "calls", path: "/calls", want: "file_write"},
			{name: "receipts", path: "/receipts", want: "signature verified"},
			{name: "catalog", path: "/catalog", want: "Write text to a file"},
			{name: "policy", path: "/policy?tool=file_write&args=" + `{"path":"notes.txt","content":"hello"}`, want: "medium risk needs approval"},
			{name: "plugins", path: "/plugins", want: "No plugin is installed."},
			{name: "sandbox", path: "/sandbox", want: "Run the check"},
		}
		// The sandbox check starts this test binary, built with the race
		// detector, some thirty times: only the screenshots for the
		// documentation are worth that.
		if os.Getenv(screenshotsEnv) != "" {
			pages[len(pages)-1].action = "form.inline button"
		}
		for _, p := range pages {
			b.do(chromedp.Navigate(s.console + p.path))
			if p.action != "" {
				b.do(chromedp.Click(chromedp.CSS(p.action)))
				b.waitFor(`document.querySelector("table.proofs") !== null`)
			}
			if page := b.text(); !strings.Contains(page, p.want) {
				t.Errorf("%s lacks %q:\n%s", p.name, p.want, page)
			}
			b.screenshot(p.name)
			b.atEachWidth(p.name)
		}
	})
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkApprovalRowBrowser measures, in headless Chromium, the time
// from an MCP client sending a call that needs approval to a real talon
// serve until the call's row is in the open Approvals page: the whole
// path an operator sees. Target: under 200 ms (issue 21). The row is
// answered with the page's own form and removed before the next call.
func BenchmarkApprovalRowBrowser(b *testing.B) {
	br := startBrowser(b)
	s := startServe(b)
	cs := mcpClient(b, s.mcp)
	br.signIn(s)
	br.do(chromedp.Navigate(s.console + "/approvals"))
	br.waitFor(`document.getElementById("approvals").dataset.live === "1"`)
	var total, worst time.Duration
	n := 0
	for b.Loop() {
		br.eval(`window.__seen = new Promise(resolve => {
			const list = document.getElementById("approvals");
			const o = new MutationObserver(() => {
				if (list.querySelector("article.approval")) { o.disconnect(); resolve(performance.timeOrigin + performance.now()); }
			});
			o.observe(list, {childList: true});
		}), ""`)
		start := time.Now()
		done := callAsync(cs, "bench.txt")
		ctx, cancel := context.WithTimeout(br.ctx, 30*time.Second)
		seen, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.__seen`, chromedp.EvalAwaitPromise))
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		d := time.UnixMicro(int64(seen * 1000)).Sub(start)
		total += d
		worst = max(worst, d)
		n++
		br.eval(`(() => {
			const f = document.querySelector("article.approval form");
			const d = new URLSearchParams(new FormData(f));
			d.set("answer", "no");
			fetch(f.action, {method: "POST", body: d});
			return "";
		})()`)
		<-done
		br.waitFor(`document.querySelector("article.approval") === null`)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms/row")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/row")
}
