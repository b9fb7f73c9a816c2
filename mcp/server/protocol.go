package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// JSON-RPC 2.0 error codes, and MCP's.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// MCP methods talon answers or sends.
const (
	methodInitialize   = "initialize"
	methodPing         = "ping"
	methodToolsList    = "tools/list"
	methodToolsCall    = "tools/call"
	methodElicit       = "elicitation/create"
	noteInitialized    = "notifications/initialized"
	noteCancelled      = "notifications/cancelled"
	noteToolsChanged   = "notifications/tools/list_changed"
	latestProtocol     = "2025-11-25"
	statelessProtocols = "2026-07-28"
)

// supportedVersions are the protocol revisions talon serves, newest first:
// those with a session and the initialize handshake. Approvals ask the
// client in the middle of a call and list changes are pushed to the
// session, which the stateless revisions (2026-07-28 and later) do
// differently; their clients fall back to the newest revision listed here.
var supportedVersions = []string{latestProtocol, "2025-06-18", "2025-03-26", "2024-11-05"}

// protocolVersions returns the protocol revisions talon serves.
func protocolVersions() []string { return slices.Clone(supportedVersions) }

// negotiate picks the revision of a session: the client's when talon
// serves it, else the newest talon serves.
func negotiate(client string) string {
	if slices.Contains(supportedVersions, client) {
		return client
	}
	return latestProtocol
}

// message is one JSON-RPC 2.0 message as read: a request (Method and ID),
// a notification (Method, no ID) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// rpcError is a JSON-RPC error object; it is also the Go error of a request
// that failed as a whole.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code) }

func rpcErrorf(code int64, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// isCall reports a request that expects an answer.
func (m *message) isCall() bool { return m.Method != "" && len(m.ID) > 0 }

// decodeMessage parses one JSON-RPC message. The error is what to answer
// with, and id the request's id when it has a usable one.
func decodeMessage(data []byte) (*message, *rpcError) {
	data = bytes.TrimSpace(data)
	if why := checkJSON(data); why != "" {
		return nil, &rpcError{Code: codeParseError, Message: why}
	}
	switch data[0] {
	case '{':
	case '[':
		return nil, &rpcError{Code: codeInvalidRequest, Message: "JSON-RPC batches are not supported; send one message at a time"}
	default:
		return nil, &rpcError{Code: codeInvalidRequest, Message: "a message must be a JSON object"}
	}
	m := new(message)
	if err := json.Unmarshal(data, m); err != nil {
		// A member of the wrong type: the id is still worth answering to.
		if !validID(m.ID) {
			m.ID = nil
		}
		return m, &rpcError{Code: codeInvalidRequest, Message: "not a JSON-RPC 2.0 message: " + err.Error()}
	}
	switch {
	case m.JSONRPC != "2.0":
		return m, &rpcError{Code: codeInvalidRequest, Message: `not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"`}
	case len(m.ID) > 0 && !validID(m.ID):
		m.ID = nil
		return m, &rpcError{Code: codeInvalidRequest, Message: "not a JSON-RPC 2.0 message: the id must be a string or a number"}
	case m.Method == "" && len(m.ID) == 0:
		return m, &rpcError{Code: codeInvalidRequest, Message: "not a JSON-RPC 2.0 message: neither a method nor an id"}
	case m.Method == "" && (m.Result == nil) == (m.Error == nil):
		return m, &rpcError{Code: codeInvalidRequest, Message: "not a JSON-RPC 2.0 message: a response has exactly one of result and error"}
	}
	return m, nil
}

// validID accepts the ids JSON-RPC allows a request: strings and numbers.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// checkJSON says why data is not one JSON value of sane depth, or "".
func checkJSON(data []byte) string {
	if len(data) == 0 || !json.Valid(data) {
		return "not valid JSON"
	}
	depth, inString, escaped := 0, false, false
	for _, b := range data {
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

// appendResponse appends the response to request id with result, a JSON
// value.
func appendResponse(b []byte, id json.RawMessage, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// appendErrorResponse appends the error answer to request id; a nil id is
// JSON null (the request could not be read).
func appendErrorResponse(b []byte, id json.RawMessage, e *rpcError) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, "}}"...)
}

func appendID(b []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(b, "null"...)
	}
	return append(b, id...)
}

// appendRequest appends a request (or, with an empty id, a notification)
// of talon to the client.
func appendRequest(b []byte, id, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != "" {
		b = append(b, `"id":`...)
		b = appendString(b, id)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = appendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does; <, > and & are left as they are.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// errUnsupported refuses a method talon does not serve.
func errUnsupported(method string) *rpcError {
	return rpcErrorf(codeMethodNotFound, "method %q is not served by talon", method)
}

// asRPCError turns err into the error object of a response.
func asRPCError(err error) *rpcError {
	var e *rpcError
	if errors.As(err, &e) {
		return e
	}
	return &rpcError{Code: codeInternalError, Message: err.Error()}
}
