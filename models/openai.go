package models

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openAI speaks the Chat Completions API of OpenAI and of the servers that
// copy it (vLLM, the llama.cpp server, Ollama).
type openAI struct {
	base
	svc openai.ChatCompletionService
}

var _ Model = (*openAI)(nil)

func newOpenAI(b base) *openAI {
	// The service is built without openai.NewClient, which would read
	// OPENAI_API_KEY, OPENAI_BASE_URL and friends from the environment:
	// a model talks to the endpoint and with the key its table names,
	// nothing else.
	opts := []option.RequestOption{
		option.WithBaseURL(b.url), option.WithHTTPClient(b.hc),
		option.WithMaxRetries(b.retries), option.WithRequestTimeout(b.timeout),
	}
	if b.key != "" {
		opts = append(opts, option.WithAPIKey(b.key))
	}
	return &openAI{base: b, svc: openai.NewChatCompletionService(opts...)}
}

func (m *openAI) Complete(ctx context.Context, req Request) (*Response, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.id), Messages: m.messages(req)}
	if m.explicitMaxTokens {
		// max_tokens, not max_completion_tokens: the compatible servers
		// all read it.
		params.MaxTokens = openai.Int(int64(m.maxTokens))
	}
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schemaObject(t.Schema))}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	resp, err := m.svc.New(ctx, params)
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return nil, m.describe(ctx, apiErr.StatusCode, apiErr.Message, err)
		}
		if isTransport(err) {
			return nil, m.describe(ctx, 0, "", err)
		}
		return nil, m.garbage(ctx, err.Error())
	}
	if len(resp.Choices) == 0 {
		return nil, m.garbage(ctx, "the answer has no choices")
	}
	msg := resp.Choices[0].Message
	out := &Response{Text: msg.Content, Model: resp.Model, Stop: resp.Choices[0].FinishReason,
		Usage: Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}}
	if out.Text == "" && msg.Refusal != "" {
		out.Text = msg.Refusal
	}
	for i, tc := range msg.ToolCalls {
		call := ToolCall{ID: callID(tc.ID, 0, i), Name: tc.Function.Name, Args: json.RawMessage(tc.Function.Arguments)}
		if tc.Type == "custom" {
			// Never offered; its free-form input is passed on as a string,
			// which the runtime refuses as arguments.
			call.Name, call.Args = tc.Custom.Name, json.RawMessage(strconv.Quote(tc.Custom.Input))
		}
		if call.Name == "" {
			return nil, m.garbage(ctx, "a tool call has no name")
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	m.log.Debug().Str("model", m.name).Int("tool_calls", len(out.ToolCalls)).
		Int64("input_tokens", out.Usage.InputTokens).Int64("output_tokens", out.Usage.OutputTokens).Msg("model turn")
	return out, nil
}

func (m *openAI) messages(req Request) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleAssistant:
			a := &openai.ChatCompletionAssistantMessageParam{}
			if msg.Text != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = openai.String(msg.Text)
			}
			for _, tc := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Args)},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: a})
		case RoleTool:
			out = append(out, openai.ToolMessage(msg.Text, msg.ToolCallID))
		default:
			out = append(out, openai.UserMessage(msg.Text))
		}
	}
	return out
}
