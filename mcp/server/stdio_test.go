package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
)

func callLine(id int, expr string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculator","arguments":{"expression":%q}}}`, id, expr)
}

// wireReply is one line the server wrote.
type wireReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serveLines runs a stdio session over the given input, which ends after
// the last line, and returns every reply by id ("null" for id-less errors).
func serveLines(t *testing.T, f *fixture, lines []string) map[string][]wireReply {
	t.Helper()
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.srv.ServeStdio(ctx, io.NopCloser(in), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the session did not end at the end of its input")
	}
	replies := map[string][]wireReply{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r wireReply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", sc.Text())
		}
		id := string(r.ID)
		if id == "" {
			id = "null"
		}
		replies[id] = append(replies[id], r)
	}
	return replies
}

// At the end of its input a stdio server answers every request it has
// read before it exits: a client that pipes requests and closes its end
// gets all of them.
func TestStdioAnswersEverythingReadBeforeEOF(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	const calls = 100
	lines := []string{initLine, initializedLine}
	for i := 1; i <= calls; i++ {
		lines = append(lines, callLine(i, fmt.Sprintf("%d+1", i)))
	}
	replies := serveLines(t, f, lines)
	if r := replies["0"]; len(r) != 1 || r[0].Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	for i := 1; i <= calls; i++ {
		r := replies[fmt.Sprint(i)]
		if len(r) != 1 {
			t.Errorf("call %d: %d replies, want 1", i, len(r))
			continue
		}
		if r[0].Error != nil || !strings.Contains(string(r[0].Result), fmt.Sprintf(`"%d"`, i+1)) {
			t.Errorf("call %d: %+v %s", i, r[0].Error, r[0].Result)
		}
	}
}

// Many clients each piping one initialize: every one is answered.
func TestStdioAnswersInitializeBeforeEOF(t *testing.T) {
	for i := range 20 {
		f := newFixture(t, fixtureOptions{})
		if r := serveLines(t, f, []string{initLine})["0"]; len(r) != 1 || r[0].Error != nil {
			t.Fatalf("run %d: initialize got %+v", i, r)
		}
	}
}

// A bad message gets the JSON-RPC error it deserves and the session goes
// on: the request after it is answered.
func TestStdioBadMessagesAreAnsweredAndSurvived(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1)
	tests := []struct {
		name string
		line string
		id   string // the id the error must carry
		code int
	}{
		{name: "not JSON", line: `{"jsonrpc":"2.0","id":5,"method":`, id: "null", code: -32700},
		{name: "garbage", line: `hello`, id: "null", code: -32700},
		{name: "trailing data", line: `{"jsonrpc":"2.0","id":5,"method":"ping"} x`, id: "null", code: -32700},
		{name: "too deep", line: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":` + deep + `}`, id: "null", code: -32700},
		{name: "wrong version", line: `{"jsonrpc":"1.0","id":5,"method":"ping"}`, id: "5", code: -32600},
		{name: "no version", line: `{"id":5,"method":"ping"}`, id: "5", code: -32600},
		{name: "not an object", line: `42`, id: "null", code: -32600},
		{name: "string", line: `"ping"`, id: "null", code: -32600},
		{name: "empty object", line: `{}`, id: "null", code: -32600},
		{name: "bad id", line: `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, id: "null", code: -32600},
		{name: "method not a string", line: `{"jsonrpc":"2.0","id":5,"method":7}`, id: "5", code: -32600},
		{name: "empty batch", line: `[]`, id: "null", code: -32600},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, id: "null", code: -32600},
		{name: "too long", line: `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", maxLineBytes) + `"}}`, id: "null", code: -32700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			replies := serveLines(t, f, []string{initLine, initializedLine, tt.line, callLine(9, "2*3")})
			errs := replies[tt.id]
			if len(errs) != 1 || errs[0].Error == nil || errs[0].Error.Code != tt.code {
				t.Errorf("bad message: replies for id %s = %+v, want one error %d", tt.id, errs, tt.code)
			}
			if r := replies["9"]; len(r) != 1 || r[0].Error != nil || !strings.Contains(string(r[0].Result), `"6"`) {
				t.Errorf("the call after the bad message: %+v", r)
			}
		})
	}
}

// Blank lines and CRLF endings are not errors.
func TestStdioToleratesBlankLinesAndCRLF(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	replies := serveLines(t, f, []string{initLine + "\r", "", "  ", initializedLine, callLine(1, "1+2") + "\r"})
	if len(replies["null"]) != 0 {
		t.Errorf("errors for blank lines: %+v", replies["null"])
	}
	if r := replies["1"]; len(r) != 1 || r[0].Error != nil {
		t.Errorf("call: %+v", r)
	}
}
