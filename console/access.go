package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Cookies of the console. All are HttpOnly and SameSite=Strict, scoped to
// the console's path.
const (
	// sessionCookie identifies one browser to the CSRF tokens.
	sessionCookie = "talon_console"
	// authCookie proves a browser entered the token, for this process.
	authCookie = "talon_console_auth"
	// langCookie keeps the language the operator picked.
	langCookie = "talon_console_lang"
)

// csrfLifetime is how long a page's CSRF token stays good.
const csrfLifetime = 24 * time.Hour

// maxForm bounds a form body.
const maxForm = 64 << 10

// sessionOf returns the browser's session id, setting a new one when it
// has none (or one that is not ours to read).
func (c *Console) sessionOf(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(sessionCookie); err == nil && validSession(ck.Value) {
		return ck.Value
	}
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ""
	}
	sid := base64.RawURLEncoding.EncodeToString(b[:])
	setCookie(w, r, sessionCookie, sid)
	return sid
}

func validSession(s string) bool {
	if len(s) != 24 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: base, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// mac signs parts with the process's key.
func (c *Console) mac(parts ...string) []byte {
	h := hmac.New(sha256.New, c.key[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// csrfToken is "<unix seconds>.<mac of the session and time>".
func (c *Console) csrfToken(sid string) string {
	if sid == "" {
		return ""
	}
	ts := strconv.FormatInt(c.now().Unix(), 10)
	return ts + "." + base64.RawURLEncoding.EncodeToString(c.mac("csrf", sid, ts)[:18])
}

// checkCSRF reports why tok does not belong to sid's page now, or "".
func (c *Console) checkCSRF(sid, tok string) string {
	ts, sig, ok := strings.Cut(tok, ".")
	if sid == "" || !ok {
		return "error-csrf-missing"
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.mac("csrf", sid, ts)[:18]) {
		return "error-csrf-stale"
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "error-csrf-stale"
	}
	age := c.now().Sub(time.Unix(sec, 0))
	if age > csrfLifetime || age < -time.Minute {
		return "error-csrf-stale"
	}
	return ""
}

// authValue is what the sign-in cookie holds for a session: it proves the
// token was entered in this browser session, to this process, without
// holding the token itself.
func (c *Console) authValue(sid string) string {
	return base64.RawURLEncoding.EncodeToString(c.mac("signed-in", sid))
}

// authorized applies the token rule of the MCP endpoint: no token set,
// the token in an Authorization header, or a sign-in cookie of this
// session.
func (c *Console) authorized(r *http.Request, v *view) bool {
	if c.access.Bearer(r) {
		return true
	}
	ck, err := r.Cookie(authCookie)
	if err != nil || v.sid == "" {
		return false
	}
	want := c.authValue(v.sid)
	return hmac.Equal([]byte(ck.Value), []byte(want))
}

// stateChange checks what every POST must carry: a form within bounds, the
// console's own origin, no cross-site fetch, and a good CSRF token. It
// writes the refusal and returns false when one fails.
func (c *Console) stateChange(w http.ResponseWriter, r *http.Request, v *view) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, v, http.StatusBadRequest, v.T("error-form"))
		return false
	}
	if why := crossSite(r); why != "" {
		c.log.Warn().Str("origin", r.Header.Get("Origin")).Str("sec_fetch_site", r.Header.Get("Sec-Fetch-Site")).
			Str("request", r.Method+" "+r.URL.Path).Msg("console refused a request from another site")
		c.fail(w, r, v, http.StatusForbidden, v.T(why))
		return false
	}
	if why := c.checkCSRF(v.sid, r.PostForm.Get("csrf")); why != "" {
		c.log.Warn().Str("request", r.Method+" "+r.URL.Path).Str("reason", why).Msg("console refused a request without a good CSRF token")
		c.fail(w, r, v, http.StatusForbidden, v.T(why))
		return false
	}
	return true
}

// crossSite names why a state change did not come from the console's own
// pages: an Origin other than the request's own host (the MCP rules let
// every loopback origin through, a page on another local port included),
// or a browser that says the request is cross-site.
func crossSite(r *http.Request) string {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return "error-origin"
		}
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return ""
	}
	return "error-origin"
}

// loginPage asks for the token. Without a token to enter it says so.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("login-title")
	v.Nav = "login"
	next := safeNext(r.URL.Query().Get("next"))
	if !c.access.TokenRequired() || c.authorized(r, v) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	v.Data = loginData{Next: next}
	c.render(w, http.StatusOK, "login", v)
}

type loginData struct {
	Next  string
	Wrong bool
}

// login checks the token and sets the sign-in cookie.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	v := c.view(w, r)
	if !c.stateChange(w, r, v) {
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if !c.access.TokenRequired() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	if !c.access.TokenMatches(r.PostForm.Get("token")) {
		c.log.Warn().Str("remote", remoteHost(r)).Msg("console sign-in with a wrong token")
		v.Title = v.T("login-title")
		v.Nav = "login"
		v.Data = loginData{Next: next, Wrong: true}
		c.render(w, http.StatusUnauthorized, "login", v)
		return
	}
	setCookie(w, r, authCookie, c.authValue(v.sid))
	c.log.Info().Str("remote", remoteHost(r)).Msg("console signed in")
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// safeNext keeps a redirect target inside the console.
func safeNext(next string) string {
	if !strings.HasPrefix(next, base+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return base + "/approvals"
	}
	return next
}

func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// localPort is the port the request reached.
func localPort(r *http.Request) int {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return 0
	}
	if tcp, ok := local.(*net.TCPAddr); ok {
		return tcp.Port
	}
	_, p, err := net.SplitHostPort(local.String())
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// answersRefused says why this console takes no answers, or "": a tool
// process could connect to its port and no token keeps it out.
func (c *Console) answersRefused(r *http.Request) string {
	if c.access.TokenRequired() {
		return ""
	}
	if c.opts.Reach == nil {
		return "tool processes are not known to be kept from this port"
	}
	return c.opts.Reach(localPort(r))
}
