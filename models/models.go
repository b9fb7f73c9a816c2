package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/secret"
)

var (
	// ErrNoKey reports an api_key_env whose variable is not set.
	ErrNoKey = errors.New("API key not set")
	// ErrUnavailable reports an endpoint that could not be reached or kept
	// failing (connection refused, 429, 5xx) after every retry.
	ErrUnavailable = errors.New("model endpoint unavailable")
	// ErrRejected reports a request the endpoint refused (4xx other than
	// 408, 409 and 429): a wrong model id, key or request.
	ErrRejected = errors.New("model endpoint refused the request")
	// ErrGarbage reports an answer that is not a model turn talon can read.
	ErrGarbage = errors.New("model answered something talon cannot read")
	// ErrConfig reports a [models.<name>] table that cannot make a model.
	ErrConfig = errors.New("invalid model")
)

// Role is who a [Message] is from.
type Role string

// The roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call back to the model.
	RoleTool Role = "tool"
)

// Message is one message of a conversation.
type Message struct {
	Role Role
	// Text is the message's text: the prompt, the model's words or a tool
	// result.
	Text string
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall
	// ToolCallID names the call a RoleTool message answers.
	ToolCallID string
	// IsError marks a RoleTool message that reports a failure.
	IsError bool
}

// ToolCall is one call of a tool the model asked for.
type ToolCall struct {
	ID   string
	Name string
	// Args is the arguments as the model wrote them; not necessarily
	// valid JSON.
	Args json.RawMessage
}

// Tool is a tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments (an object).
	Schema json.RawMessage
}

// Request is one turn asked of a model.
type Request struct {
	// System is the system prompt; "" sends none.
	System   string
	Messages []Message
	Tools    []Tool
}

// Usage counts the tokens of one or more turns.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Add returns u plus o.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// Response is the model's turn: a final answer when ToolCalls is empty.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// Model is the model id the endpoint says answered.
	Model string
	// Stop is why the model stopped, as the endpoint says it.
	Stop string
}

// Model is a configured model endpoint. Implementations are safe for
// concurrent use.
type Model interface {
	// Name returns the [models.<name>] key.
	Name() string
	// ID returns the model id sent to the endpoint.
	ID() string
	// Complete asks for the next turn. Retries on 408, 409, 429, 5xx and
	// broken connections happen inside, with exponential backoff; ctx
	// bounds them all.
	//
	// # Errors
	//
	// ErrUnavailable, ErrRejected or ErrGarbage, wrapped with the model's
	// name and what to check; the context's error when ctx ended.
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Options configure how models are built. The zero value of each field is
// its documented default.
type Options struct {
	// LookupEnv reads the variable api_key_env names; nil means
	// [secret.Lookup], which still sees what secret.Protect removed.
	LookupEnv func(string) (string, bool)
	// HTTPClient sends the requests; nil means a client of this package
	// with its own transport (HTTPS_PROXY applies, as for every Go
	// program).
	HTTPClient *http.Client
	// Logger receives one debug line per request; never the key.
	Logger zerolog.Logger
}

// New builds the model configured as [models.<name>].
//
// # Errors
//
// A provider other than openai or anthropic, or no model id, wraps
// [ErrConfig]; an api_key_env whose variable is unset or empty wraps
// [ErrNoKey]. Both name the model and what to set.
func New(name string, mc config.Model, opts Options) (Model, error) {
	if strings.TrimSpace(mc.Model) == "" {
		return nil, fmt.Errorf("%w %s: no model id; set models.%s.model", ErrConfig, name, name)
	}
	key := ""
	if mc.APIKeyEnv != "" {
		lookup := opts.LookupEnv
		if lookup == nil {
			lookup = secret.Lookup
		}
		v, ok := lookup(mc.APIKeyEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("%w: model %s reads its API key from $%s (models.%s.api_key_env), which is not set; export it before starting talon",
				ErrNoKey, name, mc.APIKeyEnv, name)
		}
		key = v
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	b := base{name: name, id: mc.Model, key: key, url: mc.Endpoint(), timeout: mc.Timeout(), retries: mc.MaxRetries(),
		maxTokens: mc.TokenLimit(), explicitMaxTokens: mc.MaxTokens > 0, hc: hc, log: opts.Logger}
	switch mc.Provider {
	case config.ProviderOpenAI:
		return newOpenAI(b), nil
	case config.ProviderAnthropic:
		return newAnthropic(b), nil
	}
	return nil, fmt.Errorf("%w %s: provider %q is not known; set models.%s.provider to %q or %q",
		ErrConfig, name, mc.Provider, name, config.ProviderOpenAI, config.ProviderAnthropic)
}

// base is what both providers share.
type base struct {
	name, id, key, url string
	timeout            time.Duration
	retries            int
	maxTokens          int
	explicitMaxTokens  bool
	hc                 *http.Client
	log                zerolog.Logger
}

func (b *base) Name() string { return b.name }
func (b *base) ID() string   { return b.id }

// defaultHTTPClient is the transport of every model: no overall timeout
// (each request has its own, and streaming is not used), keep-alives for
// the rounds of a loop.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.MaxIdleConnsPerHost = 8
	return &http.Client{Transport: t}
}

// describe turns an SDK error into one of this package's, naming the model
// and what to check. The key never appears: it is cut from any text the
// endpoint sent back.
func (b *base) describe(ctx context.Context, status int, msg string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	msg = b.redact(strings.TrimSpace(msg))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	where := fmt.Sprintf("model %s (%s at %s)", b.name, b.id, b.url)
	switch {
	case status == 0:
		return fmt.Errorf("%w: %s could not be reached after %d attempts: %s; check that the server runs and base_url is right",
			ErrUnavailable, where, b.retries+1, b.redact(err.Error()))
	case status == http.StatusTooManyRequests || status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict:
		return fmt.Errorf("%w: %s answered %d %s after %d attempts: %s; wait and try again, or raise models.%s.max_retries",
			ErrUnavailable, where, status, http.StatusText(status), b.retries+1, msg, b.name)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%w: %s answered %d %s: %s; check the key in the variable models.%s.api_key_env names",
			ErrRejected, where, status, http.StatusText(status), msg, b.name)
	case status == http.StatusNotFound:
		return fmt.Errorf("%w: %s answered 404 Not Found: %s; check models.%s.model and base_url",
			ErrRejected, where, msg, b.name)
	default:
		return fmt.Errorf("%w: %s answered %d %s: %s", ErrRejected, where, status, http.StatusText(status), msg)
	}
}

// garbage wraps a decoding failure.
func (b *base) garbage(ctx context.Context, what string) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%w: model %s (%s at %s): %s; check that base_url and provider name a model endpoint",
		ErrGarbage, b.name, b.id, b.url, b.redact(what))
}

// isTransport reports whether err is about the connection, not about what
// came back: the endpoint is down, refused, reset or too slow.
func isTransport(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED)
}

func (b *base) redact(s string) string {
	if b.key == "" {
		return s
	}
	return strings.ReplaceAll(s, b.key, "[secret]")
}

// schemaObject decodes a tool's JSON Schema, or an empty object schema.
func schemaObject(s json.RawMessage) map[string]any {
	var m map[string]any
	if len(s) > 0 {
		_ = json.Unmarshal(s, &m)
	}
	if m == nil {
		m = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return m
}

// callID returns id, or a stable id for a call the endpoint sent without
// one (some local servers do).
func callID(id string, round, i int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("call_%d_%d", round, i)
}
