// Package modeltest serves scripted model turns over real HTTP, speaking
// OpenAI's Chat Completions API or Anthropic's Messages API, so agents can
// be tested end to end without a model.
//
//	srv := modeltest.New(modeltest.OpenAI)
//	defer srv.Close()
//	srv.Script("m1",
//		modeltest.Turn{Calls: []modeltest.Call{{Name: "file_read", Args: `{"path":"notes.txt"}`}}},
//		modeltest.Turn{Text: "The notes say hello."},
//	)
//	// [models.local] provider = "openai", base_url = srv.URL, model = "m1"
//
// Each model id has its own queue of turns, consumed one per request; a
// request for a model whose queue is empty is answered 500, naming it.
// Every request is recorded, decoded into a provider-neutral [Request].
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Provider is the API a [Server] speaks.
type Provider string

// The providers.
const (
	OpenAI    Provider = "openai"
	Anthropic Provider = "anthropic"
)

// Turn is one scripted answer.
type Turn struct {
	// Text is the answer's text.
	Text string `json:"text,omitempty"`
	// Calls are tool calls; a turn with calls is not a final answer.
	Calls []Call `json:"calls,omitempty"`
	// Status, when set, answers with this HTTP status and an error body.
	Status int `json:"status,omitempty"`
	// Raw, when set, is sent verbatim with status 200.
	Raw string `json:"raw,omitempty"`
	// Hang holds the request until the client gives up.
	Hang bool `json:"hang,omitempty"`
	// InputTokens and OutputTokens are the usage reported; zero means 10
	// and 5.
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
}

// Call is a scripted tool call.
type Call struct {
	// ID is the call id; "" means one the server makes up.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Args is the arguments' JSON text as the model writes it.
	Args string `json:"args,omitempty"`
}

// Request is a request the server received, in provider-neutral form.
type Request struct {
	Model string
	// System is the system prompt, if any.
	System string
	// Tools are the names of the tools offered.
	Tools []string
	// Messages are the conversation so far.
	Messages []Message
	// Auth is the credential the request carried (Authorization bearer or
	// x-api-key), for tests that check a key is sent.
	Auth string
	// Body is the raw request body.
	Body []byte
}

// Message is one message of a recorded [Request].
type Message struct {
	Role string // "user", "assistant" or "tool"
	Text string
	// ToolCallID is set on tool results.
	ToolCallID string
	// Calls are the names of the tools an assistant message called.
	Calls []string
}

// LastToolResults returns the tool results at the end of the request's
// conversation.
func (r Request) LastToolResults() []Message {
	var out []Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		out = append([]Message{r.Messages[i]}, out...)
	}
	return out
}

// Server is a scripted model endpoint.
type Server struct {
	// URL is the base URL to configure as base_url.
	URL string
	// Key, when set, is the credential every request must carry; others
	// are answered 401.
	Key string
	// Latency is added to every answer.
	Latency time.Duration

	provider Provider
	srv      *httptest.Server
	held     chan string

	mu       sync.Mutex
	scripts  map[string][]Turn
	requests []Request
	ids      int
}

// New starts a server speaking provider's API.
func New(provider Provider) *Server {
	s := &Server{provider: provider, scripts: map[string][]Turn{}, held: make(chan string, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	if provider == OpenAI {
		s.URL += "/v1"
	}
	return s
}

// Close stops the server; a request held by a hanging turn is released.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script appends turns to the queue of a model id.
func (s *Server) Script(model string, turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[model] = append(s.scripts[model], turns...)
}

// LoadScript appends the turns of a JSON document {"<model id>": [turns]}.
func (s *Server) LoadScript(data []byte) error {
	var m map[string][]Turn
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("model script: %w", err)
	}
	for model, turns := range m {
		s.Script(model, turns...)
	}
	return nil
}

// Held receives the model id of each request a hanging turn holds, once
// the server holds it.
func (s *Server) Held() <-chan string { return s.held }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsFor returns the requests received for one model id.
func (s *Server) RequestsFor(model string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// Pending returns how many scripted turns are left, over all models.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.scripts {
		n += len(t)
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	wantPath := "/v1/chat/completions"
	if s.provider == Anthropic {
		wantPath = "/v1/messages"
	}
	if r.Method != http.MethodPost || r.URL.Path != wantPath {
		s.fail(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	req, err := s.decode(body)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	req.Auth = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if k := r.Header.Get("X-Api-Key"); k != "" {
		req.Auth = k
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	queue := s.scripts[req.Model]
	var turn Turn
	ok := len(queue) > 0
	if ok {
		turn, s.scripts[req.Model] = queue[0], queue[1:]
	}
	s.ids++
	id := s.ids
	s.mu.Unlock()

	if s.Key != "" && req.Auth != s.Key {
		s.fail(w, http.StatusUnauthorized, "invalid api key")
		return
	}
	if !ok {
		s.fail(w, http.StatusInternalServerError, "modeltest: the script of model "+req.Model+" is exhausted")
		return
	}
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case turn.Hang:
		select {
		case s.held <- req.Model:
		default:
		}
		<-r.Context().Done()
		return
	case turn.Status != 0:
		// Retry quickly: tests of retries should not wait for backoff.
		w.Header().Set("Retry-After-Ms", "1")
		s.fail(w, turn.Status, fmt.Sprintf("scripted status %d", turn.Status))
		return
	case turn.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, turn.Raw)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.answer(req.Model, turn, id))
}

func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s.provider == Anthropic {
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": msg}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil, "param": nil}})
}

func usage(t Turn) (int64, int64) {
	in, out := t.InputTokens, t.OutputTokens
	if in == 0 {
		in = 10
	}
	if out == 0 {
		out = 5
	}
	return in, out
}

func (s *Server) answer(model string, t Turn, id int) any {
	in, out := usage(t)
	if s.provider == Anthropic {
		var content []map[string]any
		if t.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": t.Text})
		}
		stop := "end_turn"
		for i, c := range t.Calls {
			var input any = map[string]any{}
			if c.Args != "" {
				_ = json.Unmarshal([]byte(c.Args), &input)
			}
			content = append(content, map[string]any{"type": "tool_use", "id": callID(c, id, i, "toolu"), "name": c.Name, "input": input})
			stop = "tool_use"
		}
		if content == nil {
			content = []map[string]any{}
		}
		return map[string]any{
			"id": fmt.Sprintf("msg_%d", id), "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out},
		}
	}
	msg := map[string]any{"role": "assistant", "content": t.Text}
	finish := "stop"
	if len(t.Calls) > 0 {
		var calls []map[string]any
		for i, c := range t.Calls {
			args := c.Args
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": callID(c, id, i, "call"), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": args}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}

func callID(c Call, id, i int, prefix string) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("%s_%d_%d", prefix, id, i)
}

// decode reads a request body of either API.
func (s *Server) decode(body []byte) (Request, error) {
	req := Request{Body: body}
	if s.provider == Anthropic {
		var in struct {
			Model  string `json:"model"`
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type      string          `json:"type"`
					Text      string          `json:"text"`
					Name      string          `json:"name"`
					ToolUseID string          `json:"tool_use_id"`
					Content   json.RawMessage `json:"content"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return req, fmt.Errorf("request body: %w", err)
		}
		req.Model = in.Model
		for _, s := range in.System {
			req.System += s.Text
		}
		for _, t := range in.Tools {
			req.Tools = append(req.Tools, t.Name)
		}
		for _, m := range in.Messages {
			msg := Message{Role: m.Role}
			for _, b := range m.Content {
				switch b.Type {
				case "text":
					msg.Text += b.Text
				case "tool_use":
					msg.Calls = append(msg.Calls, b.Name)
				case "tool_result":
					req.Messages = append(req.Messages, Message{Role: "tool", ToolCallID: b.ToolUseID, Text: resultText(b.Content)})
				}
			}
			if msg.Text != "" || len(msg.Calls) > 0 {
				req.Messages = append(req.Messages, msg)
			}
		}
		return req, nil
	}
	var in struct {
		Model string `json:"model"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return req, fmt.Errorf("request body: %w", err)
	}
	req.Model = in.Model
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range in.Messages {
		msg := Message{Role: m.Role, Text: resultText(m.Content), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.Calls = append(msg.Calls, c.Function.Name)
		}
		if m.Role == "system" {
			req.System += msg.Text
			continue
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// resultText reads message content that is a string or a list of text
// parts.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
