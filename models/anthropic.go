package models

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicModel speaks Anthropic's Messages API.
type anthropicModel struct {
	base
	svc anthropic.MessageService
}

var _ Model = (*anthropicModel)(nil)

func newAnthropic(b base) *anthropicModel {
	// As for OpenAI, the service is built without anthropic.NewClient,
	// which reads ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and a profile
	// from the environment and the home directory.
	opts := []option.RequestOption{
		option.WithBaseURL(b.url), option.WithHTTPClient(b.hc),
		option.WithMaxRetries(b.retries), option.WithRequestTimeout(b.timeout),
	}
	if b.key != "" {
		opts = append(opts, option.WithAPIKey(b.key))
	}
	return &anthropicModel{base: b, svc: anthropic.NewMessageService(opts...)}
}

func (m *anthropicModel) Complete(ctx context.Context, req Request) (*Response, error) {
	params := anthropic.MessageNewParams{Model: anthropic.Model(m.id), MaxTokens: int64(m.maxTokens), Messages: m.messages(req)}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: inputSchema(t.Schema)}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	resp, err := m.svc.New(ctx, params)
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			return nil, m.describe(ctx, apiErr.StatusCode, apiErrorMessage(apiErr), err)
		}
		if isTransport(err) {
			return nil, m.describe(ctx, 0, "", err)
		}
		return nil, m.garbage(ctx, err.Error())
	}
	if resp.Type != "" && resp.Type != "message" || len(resp.Content) == 0 && resp.StopReason == "" {
		return nil, m.garbage(ctx, "the answer is not a message")
	}
	out := &Response{Model: string(resp.Model), Stop: string(resp.StopReason),
		Usage: Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}}
	var text []string
	for _, block := range resp.Content {
		switch block.Type {
		case "text":
			text = append(text, block.Text)
		case "tool_use":
			if block.Name == "" {
				return nil, m.garbage(ctx, "a tool_use block has no name")
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: callID(block.ID, 0, len(out.ToolCalls)), Name: block.Name, Args: block.Input})
		}
	}
	out.Text = strings.Join(text, "")
	m.log.Debug().Str("model", m.name).Int("tool_calls", len(out.ToolCalls)).
		Int64("input_tokens", out.Usage.InputTokens).Int64("output_tokens", out.Usage.OutputTokens).Msg("model turn")
	return out, nil
}

// messages maps a conversation onto Messages turns: tool results travel
// in user turns, consecutive results in one.
func (m *anthropicModel) messages(req Request) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	var results []anthropic.ContentBlockParamUnion
	flush := func() {
		if len(results) > 0 {
			out = append(out, anthropic.NewUserMessage(results...))
			results = nil
		}
	}
	for _, msg := range req.Messages {
		if msg.Role == RoleTool {
			text := msg.Text
			if text == "" {
				text = "(no output)"
			}
			results = append(results, anthropic.NewToolResultBlock(msg.ToolCallID, text, msg.IsError))
			continue
		}
		flush()
		switch msg.Role {
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if strings.TrimSpace(msg.Text) != "" {
				blocks = append(blocks, anthropic.NewTextBlock(msg.Text))
			}
			for _, tc := range msg.ToolCalls {
				var input any = json.RawMessage(tc.Args)
				if !json.Valid(tc.Args) {
					input = map[string]any{}
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			if len(blocks) == 0 {
				blocks = append(blocks, anthropic.NewTextBlock("(no output)"))
			}
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		default:
			out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(msg.Text)))
		}
	}
	flush()
	return out
}

// inputSchema maps a JSON Schema onto the SDK's type: properties and
// required in their fields, every other keyword kept as is.
func inputSchema(s json.RawMessage) anthropic.ToolInputSchemaParam {
	obj := schemaObject(s)
	p := anthropic.ToolInputSchemaParam{Properties: obj["properties"], ExtraFields: map[string]any{}}
	if req, ok := obj["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				p.Required = append(p.Required, s)
			}
		}
	}
	for k, v := range obj {
		switch k {
		case "type", "properties", "required":
		default:
			p.ExtraFields[k] = v
		}
	}
	return p
}

func apiErrorMessage(e *anthropic.Error) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(e.RawJSON()), &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return e.RawJSON()
}
