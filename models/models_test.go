package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/models/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var providers = []modeltest.Provider{modeltest.OpenAI, modeltest.Anthropic}

const testKey = "sk-test-0123456789abcdef"

func newModel(t *testing.T, p modeltest.Provider, mc config.Model) (models.Model, *modeltest.Server) {
	t.Helper()
	srv := modeltest.New(p)
	t.Cleanup(srv.Close)
	mc.Provider = string(p)
	if mc.Model == "" {
		mc.Model = "m1"
	}
	if mc.BaseURL == "" {
		mc.BaseURL = srv.URL
	}
	if mc.APIKeyEnv == "" {
		mc.APIKeyEnv = "TEST_MODEL_KEY"
		srv.Key = testKey
	}
	m, err := models.New("local", mc, models.Options{LookupEnv: func(k string) (string, bool) {
		if k == "TEST_MODEL_KEY" {
			return testKey, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

func zero() *int { z := 0; return &z }

func TestConversation(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m, srv := newModel(t, p, config.Model{})
			srv.Script("m1",
				modeltest.Turn{Text: "Reading.", Calls: []modeltest.Call{
					{ID: "c1", Name: "file_read", Args: `{"path":"a.txt"}`},
					{ID: "c2", Name: "file_read", Args: `{"path":"b.txt"}`},
				}, InputTokens: 100, OutputTokens: 20},
				modeltest.Turn{Text: "Both say hello.", InputTokens: 150, OutputTokens: 7},
			)
			ctx := context.Background()
			tools := []models.Tool{{Name: "file_read", Description: "Read a file", Schema: json.RawMessage(
				`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}}
			req := models.Request{System: "Be brief.", Tools: tools, Messages: []models.Message{{Role: models.RoleUser, Text: "Read a.txt and b.txt"}}}
			r1, err := m.Complete(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(r1.ToolCalls) != 2 || r1.ToolCalls[0].Name != "file_read" || r1.ToolCalls[1].ID != "c2" ||
				string(r1.ToolCalls[0].Args) != `{"path":"a.txt"}` {
				t.Fatalf("tool calls = %+v", r1.ToolCalls)
			}
			if r1.Usage != (models.Usage{InputTokens: 100, OutputTokens: 20}) {
				t.Errorf("usage = %+v", r1.Usage)
			}
			req.Messages = append(req.Messages,
				models.Message{Role: models.RoleAssistant, Text: r1.Text, ToolCalls: r1.ToolCalls},
				models.Message{Role: models.RoleTool, ToolCallID: "c1", Text: "hello from a"},
				models.Message{Role: models.RoleTool, ToolCallID: "c2", Text: "denied", IsError: true},
			)
			r2, err := m.Complete(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Text != "Both say hello." || len(r2.ToolCalls) != 0 {
				t.Errorf("final = %+v", r2)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			last := reqs[1]
			if last.System != "Be brief." || len(last.Tools) != 1 || last.Tools[0] != "file_read" || last.Auth != testKey {
				t.Errorf("request = %+v", last)
			}
			res := last.LastToolResults()
			if len(res) != 2 || res[0].ToolCallID != "c1" || res[0].Text != "hello from a" || res[1].ToolCallID != "c2" {
				t.Errorf("tool results = %+v", res)
			}
			if p == modeltest.Anthropic && !strings.Contains(string(last.Body), `"additionalProperties":false`) {
				t.Errorf("schema keywords lost: %s", last.Body)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name    string
		mc      config.Model
		turns   []modeltest.Turn
		closed  bool
		want    error
		wantMsg []string
	}{
		{name: "retried 429 then answer", turns: []modeltest.Turn{{Status: 429}, {Status: 503}, {Text: "ok"}}},
		{name: "5xx after every retry", mc: config.Model{MaxRetriesSetting: new(int)}, turns: []modeltest.Turn{{Status: 500}},
			want: models.ErrUnavailable, wantMsg: []string{"model local", "500", "after 1 attempts", "max_retries"}},
		{name: "401", turns: []modeltest.Turn{{Status: 401}}, want: models.ErrRejected, wantMsg: []string{"401", "api_key_env"}},
		{name: "404 names the model id", turns: []modeltest.Turn{{Status: 404}}, want: models.ErrRejected, wantMsg: []string{"404", "models.local.model"}},
		{name: "garbage", turns: []modeltest.Turn{{Raw: "<html>not json</html>"}}, want: models.ErrGarbage, wantMsg: []string{"model local"}},
		{name: "no choices", turns: []modeltest.Turn{{Raw: `{"id":"x","object":"chat.completion","choices":[]}`}}, want: models.ErrGarbage},
		{name: "endpoint down", mc: config.Model{MaxRetriesSetting: zero()}, closed: true, want: models.ErrUnavailable,
			wantMsg: []string{"could not be reached", "base_url"}},
		{name: "request timeout", mc: config.Model{MaxRetriesSetting: zero(), TimeoutSeconds: 1}, turns: []modeltest.Turn{{Hang: true}},
			want: models.ErrUnavailable},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(string(p)+"/"+tt.name, func(t *testing.T) {
				if p == modeltest.Anthropic && tt.name == "no choices" {
					tt.turns = []modeltest.Turn{{Raw: `{"id":"x","type":"error"}`}}
				}
				m, srv := newModel(t, p, tt.mc)
				srv.Script("m1", tt.turns...)
				if tt.closed {
					srv.Close()
				}
				r, err := m.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: models.RoleUser, Text: "hi"}}})
				if tt.want == nil {
					if err != nil || r.Text != "ok" {
						t.Fatalf("r = %+v, err = %v", r, err)
					}
					return
				}
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				for _, w := range tt.wantMsg {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error shows the key: %v", err)
				}
			})
		}
	}
}

func TestCancel(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m, srv := newModel(t, p, config.Model{})
			srv.Script("m1", modeltest.Turn{Hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := m.Complete(ctx, models.Request{Messages: []models.Message{{Role: models.RoleUser, Text: "hi"}}})
				done <- err
			}()
			select {
			case <-srv.Held():
			case err := <-done:
				t.Fatalf("returned before the server held the request: %v", err)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	tests := []struct {
		name string
		mc   config.Model
		want error
		msg  string
	}{
		{name: "missing key", mc: config.Model{Provider: "openai", Model: "m", APIKeyEnv: "NOPE_KEY"}, want: models.ErrNoKey, msg: "$NOPE_KEY"},
		{name: "no model id", mc: config.Model{Provider: "openai"}, want: models.ErrConfig, msg: "models.local.model"},
		{name: "unknown provider", mc: config.Model{Provider: "cohere", Model: "m"}, want: models.ErrConfig, msg: "models.local.provider"},
		{name: "no key needed", mc: config.Model{Provider: "anthropic", Model: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := models.New("local", tt.mc, models.Options{LookupEnv: none})
			if tt.want == nil {
				if err != nil || m.Name() != "local" || m.ID() != "m" {
					t.Fatalf("m = %v, err = %v", m, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.want, tt.msg)
			}
		})
	}
}
