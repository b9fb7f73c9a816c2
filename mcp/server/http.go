package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultPath is where [Server.HTTPHandler] serves MCP.
const DefaultPath = "/mcp"

// DefaultSessionTimeout closes HTTP sessions that have sent nothing for
// this long.
const DefaultSessionTimeout = 24 * time.Hour

// Headers of the streamable HTTP transport.
const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	methodDiscover = "server/discover"
)

var (
	// ErrNonLoopback refuses a bind beyond this machine that was not asked
	// for on the command line.
	ErrNonLoopback = errors.New("refusing a non-loopback listen address")
	// ErrNoToken refuses a bind beyond this machine without a bearer token.
	ErrNoToken = errors.New("refusing to listen beyond loopback without a bearer token")
)

// HTTPOptions configure [Server.HTTPHandler]. The zero value serves
// DefaultPath without a token, to loopback origins only.
type HTTPOptions struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every request.
	Token string
	// AllowedOrigins are browser origins accepted besides loopback ones,
	// e.g. "https://app.example.com". A request without Origin is
	// accepted; any other origin is refused.
	AllowedOrigins []string
	// Path is where MCP is served; "" means [DefaultPath].
	Path string
	// SessionTimeout closes idle sessions; zero means
	// [DefaultSessionTimeout].
	SessionTimeout time.Duration
}

// HTTPHandler serves MCP over streamable HTTP. Requests are checked in this
// order: path, Origin (DNS rebinding and cross-site requests), the Host of
// a request that reached a loopback address (it must be a loopback name),
// bearer token: the rules [Access] applies to other handlers.
//
// A session starts with an initialize POST, whose answer carries its
// Mcp-Session-Id. A POST carrying a request is answered with JSON, or with
// an event stream when talon asks the client something before the answer
// (an approval by elicitation); notifications and responses get 202. A
// GET opens the session's stream for what talon sends outside a request
// (list changes), and DELETE ends the session. A session that sent nothing
// for SessionTimeout, with no request or stream open, is forgotten.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Path == "" {
		o.Path = DefaultPath
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	a := NewAccess(o)
	h := &httpTransport{s: s, timeout: o.SessionTimeout, sessions: map[string]*httpSession{}}
	guarded := a.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Bearer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="talon"`)
			http.Error(w, "missing or wrong bearer token: send Authorization: Bearer <[serve] token>", http.StatusUnauthorized)
			return
		}
		h.serve(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != o.Path {
			http.Error(w, fmt.Sprintf("talon serves MCP at %s", o.Path), http.StatusNotFound)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// httpTransport is the streamable HTTP transport of one handler: its
// sessions by id.
type httpTransport struct {
	s       *Server
	timeout time.Duration

	mu        sync.Mutex
	sessions  map[string]*httpSession
	lastSweep time.Time
}

// httpSession is a session and the HTTP requests it has open.
type httpSession struct {
	*session
	lastUsed atomic.Int64 // unix nanoseconds
	open     atomic.Int32 // requests being served, the stream included

	streamMu sync.Mutex
	stream   *eventStream // the standalone stream of a GET; nil without one
}

func (h *httpTransport) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "talon serves MCP over POST, GET and DELETE", http.StatusMethodNotAllowed)
	}
}

// bodyPool holds request body buffers: a decoded message keeps none of
// its bytes.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (h *httpTransport) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	if jsonOK, streamOK := accepts(r.Header.Values("Accept")); !jsonOK || !streamOK {
		http.Error(w, "Accept must list both application/json and text/event-stream", http.StatusBadRequest)
		return
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxLineBytes))
	var m *message
	var rerr *rpcError
	if err == nil {
		m, rerr = decodeMessage(buf.Bytes())
	}
	if buf.Cap() <= 64<<10 {
		bodyPool.Put(buf)
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("request body longer than %d bytes", maxLineBytes), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "could not read the request body", http.StatusBadRequest)
		return
	case rerr != nil:
		var id []byte
		if m != nil {
			id = m.ID
		}
		writeJSON(w, http.StatusBadRequest, appendErrorResponse(nil, id, rerr))
		return
	}

	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		switch {
		case m.Method == methodInitialize && m.isCall():
			h.initialize(w, r, m)
		case m.Method == methodDiscover && m.isCall():
			// The stateless revisions' handshake: its clients fall back
			// to initialize.
			writeJSON(w, http.StatusOK, appendErrorResponse(nil, m.ID, errUnsupported(m.Method)))
		default:
			http.Error(w, "missing Mcp-Session-Id: start a session with initialize first", http.StatusBadRequest)
		}
		return
	}
	hs := h.lookup(sid)
	if hs == nil {
		http.Error(w, "unknown or expired MCP session: start a new one with initialize", http.StatusNotFound)
		return
	}
	if v := r.Header.Get(versionHeader); v != "" && !supported(v) {
		http.Error(w, fmt.Sprintf("unsupported %s %q: talon serves %s", versionHeader, v, strings.Join(supportedVersions, ", ")), http.StatusBadRequest)
		return
	}
	hs.enter()
	defer hs.leave()
	switch {
	case m.Method == "":
		hs.answer(m)
		w.WriteHeader(http.StatusAccepted)
	case !m.isCall():
		h.s.notify(hs.session, m)
		w.WriteHeader(http.StatusAccepted)
	default:
		out := &postStream{w: w}
		resp := h.s.handle(r.Context(), hs.session, m, out)
		if resp == nil {
			resp = appendErrorResponse(nil, m.ID, &rpcError{Code: codeRequestCancelled, Message: "the request was cancelled"})
		}
		out.finish(resp)
	}
}

// codeRequestCancelled answers an HTTP request whose call its client
// cancelled (over stdio such a request gets no answer).
const codeRequestCancelled = -32800

// initialize starts a session.
func (h *httpTransport) initialize(w http.ResponseWriter, r *http.Request, m *message) {
	hs := &httpSession{session: newSession(randomHex(16))}
	hs.push = hs.pushEvent
	resp := h.s.handle(r.Context(), hs.session, m, nil)
	if !hs.ready() {
		// The handshake failed: there is no session to speak of.
		writeJSON(w, http.StatusOK, resp)
		return
	}
	hs.lastUsed.Store(time.Now().UnixNano())
	h.mu.Lock()
	h.sweepLocked()
	h.sessions[hs.id] = hs
	h.mu.Unlock()
	h.s.addSession(hs.session)
	w.Header().Set(sessionHeader, hs.id)
	writeJSON(w, http.StatusOK, resp)
}

// lookup returns the live session id, or nil.
func (h *httpTransport) lookup(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	hs := h.sessions[id]
	if hs != nil && (hs.closed() || hs.expired(h.timeout)) {
		h.dropLocked(hs)
		return nil
	}
	return hs
}

// sweepLocked forgets expired sessions, at most once a minute.
func (h *httpTransport) sweepLocked() {
	now := time.Now()
	if now.Sub(h.lastSweep) < time.Minute {
		return
	}
	h.lastSweep = now
	for _, hs := range h.sessions {
		if hs.closed() || hs.expired(h.timeout) {
			h.dropLocked(hs)
		}
	}
}

func (h *httpTransport) dropLocked(hs *httpSession) {
	delete(h.sessions, hs.id)
	h.s.removeSession(hs.session)
}

func (h *httpTransport) get(w http.ResponseWriter, r *http.Request) {
	if _, streamOK := accepts(r.Header.Values("Accept")); !streamOK {
		http.Error(w, "Accept must list text/event-stream", http.StatusBadRequest)
		return
	}
	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		http.Error(w, "missing Mcp-Session-Id: a stream belongs to a session", http.StatusBadRequest)
		return
	}
	hs := h.lookup(sid)
	if hs == nil {
		http.Error(w, "unknown or expired MCP session: start a new one with initialize", http.StatusNotFound)
		return
	}
	hs.enter()
	defer hs.leave()
	hs.streamMu.Lock()
	if hs.stream != nil {
		hs.streamMu.Unlock()
		http.Error(w, "the session already has a stream open", http.StatusConflict)
		return
	}
	st := &eventStream{w: w}
	if err := st.start(); err != nil {
		hs.streamMu.Unlock()
		return
	}
	hs.stream = st
	hs.streamMu.Unlock()
	select {
	case <-r.Context().Done():
	case <-hs.closedCh():
	}
	hs.streamMu.Lock()
	hs.stream = nil
	hs.streamMu.Unlock()
}

func (h *httpTransport) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		http.Error(w, "missing Mcp-Session-Id: name the session to end", http.StatusBadRequest)
		return
	}
	hs := h.lookup(sid)
	if hs == nil {
		http.Error(w, "unknown or expired MCP session", http.StatusNotFound)
		return
	}
	h.mu.Lock()
	h.dropLocked(hs)
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (hs *httpSession) enter() {
	hs.open.Add(1)
	hs.lastUsed.Store(time.Now().UnixNano())
}

func (hs *httpSession) leave() {
	hs.lastUsed.Store(time.Now().UnixNano())
	hs.open.Add(-1)
}

func (hs *httpSession) expired(timeout time.Duration) bool {
	return hs.open.Load() == 0 && time.Since(time.Unix(0, hs.lastUsed.Load())) > timeout
}

func (hs *httpSession) closed() bool {
	select {
	case <-hs.closedCh():
		return true
	default:
		return false
	}
}

// pushEvent sends msg on the session's standalone stream, when one is
// open.
func (hs *httpSession) pushEvent(msg []byte) bool {
	hs.streamMu.Lock()
	defer hs.streamMu.Unlock()
	return hs.stream != nil && hs.stream.event(msg) == nil
}

// eventStream writes server-sent events.
type eventStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (e *eventStream) start() error {
	e.rc = http.NewResponseController(e.w)
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	e.w.WriteHeader(http.StatusOK)
	return e.rc.Flush()
}

// event writes one message event and flushes it.
func (e *eventStream) event(msg []byte) error {
	b := make([]byte, 0, len(msg)+24)
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	b = append(b, "\n\n"...)
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.rc.Flush()
}

// postStream answers one POSTed request: with JSON, unless talon sends
// the client something first, which turns the answer into an event
// stream.
type postStream struct {
	mu       sync.Mutex
	w        http.ResponseWriter
	events   *eventStream
	finished bool
}

func (p *postStream) send(msg []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return errors.New("the request was already answered")
	}
	if p.events == nil {
		p.events = &eventStream{w: p.w}
		if err := p.events.start(); err != nil {
			return err
		}
	}
	return p.events.event(msg)
}

// finish writes the answer.
func (p *postStream) finish(resp []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished = true
	if p.events != nil {
		_ = p.events.event(resp)
		return
	}
	writeJSON(p.w, http.StatusOK, resp)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// accepts reads Accept headers: whether JSON and event streams are
// acceptable.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

func supported(version string) bool {
	for _, v := range supportedVersions {
		if v == version {
			return true
		}
	}
	return false
}

// tokenMatches compares the bearer token in constant time (over hashes,
// so the length does not leak either).
func tokenMatches(r *http.Request, want [32]byte) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// originAllowed accepts no Origin at all (non-browser clients), loopback
// origins, and the configured ones.
func originAllowed(origin string, allowed map[string]bool) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if IsLoopbackHost(u.Hostname()) {
		return true
	}
	return allowed[normalizeOrigin(origin)]
}

func normalizeOrigin(o string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
}

// IsLoopbackHost reports whether host (a name or an IP, without port) is
// this machine only: "localhost", a *.localhost name or a loopback IP.
// The empty host, meaning every interface, is not.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckListen decides whether talon may listen on addr. A loopback address
// is always fine. Any other address must come from the command line
// (fromFlag), so a config file alone never exposes the tools to the
// network, and a bearer token must be configured.
func CheckListen(addr string, fromFlag bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q is not host:port: write it like 127.0.0.1:7357", addr)
	}
	if IsLoopbackHost(host) {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	if !fromFlag {
		return fmt.Errorf("%w %s (%s) from the config file: pass --listen %s on the command line to expose talon beyond this machine, with a token",
			ErrNonLoopback, addr, where, addr)
	}
	if token == "" {
		return fmt.Errorf("%w on %s (%s): anyone who can reach it could call tools; set [serve] token or $TALON_SERVE_TOKEN, or listen on 127.0.0.1",
			ErrNoToken, addr, where)
	}
	return nil
}

// Access holds the access rules of the MCP endpoint for other handlers on
// its listener (the operator's console), so that both refuse the same
// requests: [Access.Guard] applies the Origin check of
// [Server.HTTPHandler] and the Host check the MCP library makes on a
// loopback listener, and [Access.Bearer] the bearer token.
type Access struct {
	allowed map[string]bool
	token   bool
	want    [32]byte
}

// NewAccess compiles the rules of o (its Token and AllowedOrigins).
func NewAccess(o HTTPOptions) *Access {
	a := &Access{allowed: make(map[string]bool, len(o.AllowedOrigins)), token: o.Token != ""}
	for _, s := range o.AllowedOrigins {
		a.allowed[normalizeOrigin(s)] = true
	}
	if a.token {
		a.want = sha256.Sum256([]byte(o.Token))
	}
	return a
}

// Guard refuses with 403 a request whose Origin is neither loopback nor
// allowed, or that reached a loopback address under a Host that is not a
// loopback name (DNS rebinding), and passes the others to next. It does
// not check the token: see [Access.Bearer].
func (a *Access) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); !originAllowed(origin, a.allowed) {
			http.Error(w, fmt.Sprintf("origin %q is not allowed: add it to [serve] allowed_origins if this page should reach talon", origin), http.StatusForbidden)
			return
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			lhost, _, _ := net.SplitHostPort(local.String())
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if IsLoopbackHost(lhost) && !IsLoopbackHost(host) {
				http.Error(w, fmt.Sprintf("host %q is not a loopback name: talon listens on loopback, so open it as localhost or 127.0.0.1", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TokenRequired reports whether a token is set.
func (a *Access) TokenRequired() bool { return a.token }

// Bearer reports whether r may pass the token check as the MCP endpoint
// would let it: no token is set, or r carries it as "Authorization:
// Bearer <token>".
func (a *Access) Bearer(r *http.Request) bool { return !a.token || tokenMatches(r, a.want) }

// TokenMatches compares s with the token in constant time; false when no
// token is set.
func (a *Access) TokenMatches(s string) bool {
	sum := sha256.Sum256([]byte(strings.TrimSpace(s)))
	return a.token && subtle.ConstantTimeCompare(sum[:], a.want[:]) == 1
}
