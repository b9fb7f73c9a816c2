package server

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
)

// errSessionClosed is what a question to a client returns once its
// session ended.
var errSessionClosed = errors.New("the MCP session ended")

// sender carries what talon sends a client while one of its requests runs
// (an elicitation): the stdio output, or the event stream an HTTP POST
// turned into.
type sender interface {
	send(msg []byte) error
}

// session is one MCP session: its handshake, the calls it has running
// (which notifications/cancelled may end) and the questions talon asked
// it that wait for an answer.
type session struct {
	id string
	// push sends a message outside any request (a list change): the
	// stdio output, or the standalone stream of an HTTP session. It
	// reports false when the client cannot be reached that way.
	push func(msg []byte) bool

	mu          sync.Mutex
	initialized bool
	version     string
	elicit      bool                          // the client takes form elicitations
	logLevel    string                        // logging/setLevel's level; "" is every level
	running     map[string]context.CancelFunc // request id -> cancel
	asked       map[string]chan *message      // talon's request id -> its answer
	next        uint64

	// ctx ends when the session does: its calls are cancelled.
	ctx   context.Context
	close context.CancelFunc
}

func newSession(id string) *session {
	ss := &session{id: id}
	ss.ctx, ss.close = context.WithCancel(context.Background())
	return ss
}

// initParams is what talon reads of initialize.
type initParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		} `json:"elicitation"`
	} `json:"capabilities"`
}

// initialize records the handshake and returns the negotiated revision.
func (ss *session) initialize(params json.RawMessage) (string, *rpcError) {
	var p initParams
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return "", rpcErrorf(codeInvalidParams, "initialize needs params with protocolVersion, capabilities and clientInfo")
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initialized {
		return "", rpcErrorf(codeInvalidRequest, "the session is already initialized")
	}
	ss.initialized = true
	ss.version = negotiate(p.ProtocolVersion)
	if e := p.Capabilities.Elicitation; e != nil {
		// A client that names only URL mode cannot show a form; naming
		// neither means form, for compatibility with older clients.
		ss.elicit = e.Form != nil || e.URL == nil
	}
	return ss.version, nil
}

func (ss *session) ready() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

func (ss *session) canElicit() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.elicit
}

// track remembers how to cancel request id while it runs; the returned
// func forgets it.
func (ss *session) track(id json.RawMessage, cancel context.CancelFunc) func() {
	key := string(id)
	ss.mu.Lock()
	if ss.running == nil {
		ss.running = map[string]context.CancelFunc{}
	}
	ss.running[key] = cancel
	ss.mu.Unlock()
	return func() {
		ss.mu.Lock()
		delete(ss.running, key)
		ss.mu.Unlock()
	}
}

// cancel handles notifications/cancelled: the named request, if it still
// runs, is cancelled.
func (ss *session) cancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	ss.mu.Lock()
	cancel := ss.running[string(p.RequestID)]
	ss.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// ask sends the client a request through out and waits for its answer.
// When ctx ends first, the client is told the request was cancelled.
func (ss *session) ask(ctx context.Context, out sender, method string, params []byte) (json.RawMessage, error) {
	ch := make(chan *message, 1)
	ss.mu.Lock()
	ss.next++
	id := "talon-" + strconv.FormatUint(ss.next, 10)
	key := string(appendString(nil, id))
	if ss.asked == nil {
		ss.asked = map[string]chan *message{}
	}
	ss.asked[key] = ch
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.asked, key)
		ss.mu.Unlock()
	}()
	if err := out.send(appendRequest(nil, id, method, params)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		note := append(append([]byte(`{"requestId":`), key...), `,"reason":"the call no longer waits for this answer"}`...)
		_ = out.send(appendRequest(nil, "", noteCancelled, note))
		return nil, ctx.Err()
	case <-ss.ctx.Done():
		return nil, errSessionClosed
	}
}

// answer routes a response of the client to the question it answers. It
// reports false when nothing waits for it.
func (ss *session) answer(m *message) bool {
	ss.mu.Lock()
	ch := ss.asked[string(m.ID)]
	delete(ss.asked, string(m.ID))
	ss.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- m
	return true
}

// closedCh is closed once the session ended (close was called): its calls
// are cancelled and questions waiting for the client fail.
func (ss *session) closedCh() <-chan struct{} { return ss.ctx.Done() }
