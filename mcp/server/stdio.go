package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// maxLineBytes bounds one message on stdio, as the HTTP transport
	// bounds a request body.
	maxLineBytes = 4 << 20
	// maxJSONDepth bounds the nesting of a message: deeper documents are
	// refused before anything decodes them.
	maxJSONDepth = 64
)

// errConnClosed is what a write after Close returns.
var errConnClosed = errors.New("stdio connection closed")

// stdioTransport is the newline-delimited JSON-RPC transport of
// `talon serve --stdio`. Unlike the SDK's IO transport it keeps a session
// alive across a bad message, answering it with the JSON-RPC error it
// deserves (-32700 for what is not one JSON value of sane depth and size,
// -32600 for JSON that is not a request), and at the end of its input it
// answers every request already read before reporting end of file, so a
// client that pipes its requests and closes its end gets every answer.
type stdioTransport struct {
	in  io.ReadCloser
	out io.Writer
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{
		out:       t.out,
		in:        t.in,
		msgs:      make(chan jsonrpc.Message),
		inputDone: make(chan struct{}),
		closed:    make(chan struct{}),
		pending:   map[jsonrpc.ID]struct{}{},
		changed:   make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	in  io.ReadCloser
	out io.Writer
	wmu sync.Mutex // one whole line at a time

	msgs      chan jsonrpc.Message // decoded messages for the session
	inputDone chan struct{}        // closed after the last message was handed over
	readErr   error                // why input ended; set before inputDone closes

	closeOnce sync.Once
	closed    chan struct{}

	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{} // requests read and not yet answered
	changed chan struct{}           // closed and replaced when pending shrinks
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) readLoop() {
	defer close(c.inputDone)
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLineBytes)
		switch {
		case tooLong:
			c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("message longer than %d bytes", maxLineBytes))
		case len(bytes.TrimSpace(line)) > 0:
			if msg := c.decode(line); msg != nil && !c.deliver(msg) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			return
		}
	}
}

// readLine returns the next line without its ending. A line over max
// bytes is consumed whole and reported as too long, with no bytes.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// decode turns one line into a message for the session, or answers it
// with an error and returns nil.
func (c *stdioConn) decode(line []byte) jsonrpc.Message {
	if why := checkJSON(line); why != "" {
		c.reject(nil, jsonrpc.CodeParseError, why)
		return nil
	}
	switch bytes.TrimSpace(line)[0] {
	case '{':
	case '[':
		c.reject(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported over stdio; send one message per line")
		return nil
	default:
		c.reject(nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON object")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.reject(requestID(line), jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
		return nil
	}
	return msg
}

// checkJSON says why line is not one JSON value of sane depth, or "".
func checkJSON(line []byte) string {
	if !json.Valid(line) {
		return "not valid JSON"
	}
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > maxJSONDepth {
				return fmt.Sprintf("nested deeper than %d levels", maxJSONDepth)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return ""
}

// requestID is the id of a message that did not decode, when it has a
// usable one.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// deliver hands msg to the session, remembering a request until it is
// answered. It reports false when the connection closed first.
func (c *stdioConn) deliver(msg jsonrpc.Message) bool {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = struct{}{}
		c.mu.Unlock()
	}
	select {
	case c.msgs <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// Read returns the next message. At the end of the input it first waits
// until every request read has been answered.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.msgs:
		return msg, nil
	case <-c.inputDone:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A client that closed only its end of our input is still reading our
	// answers; one that went away altogether is not, and then the calls
	// it left are cancelled rather than finished for nobody.
	gone := readerGone(c.out, c.closed)
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-changed:
		case <-gone:
			return nil, io.EOF
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.readErr != nil {
		return nil, c.readErr
	}
	return nil, io.EOF
}

// Write writes msg as one line; a response settles its request.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.settle(resp.ID)
	}
	return err
}

func (c *stdioConn) settle(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; !ok {
		return
	}
	delete(c.pending, id)
	close(c.changed)
	c.changed = make(chan struct{})
}

// reject answers a message the session never sees. id is the raw id, or
// nil for null.
func (c *stdioConn) reject(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message}})
	if err == nil {
		_ = c.writeLine(data)
	}
}

func (c *stdioConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return errConnClosed
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close ends the connection; a Read waiting for input returns.
func (c *stdioConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}
