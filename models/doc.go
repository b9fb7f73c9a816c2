// Package models talks to the language models that agents run on: any
// endpoint of OpenAI's Chat Completions API (OpenAI, vLLM, the llama.cpp
// server, Ollama) through github.com/openai/openai-go, and Anthropic's
// Messages API through github.com/anthropics/anthropic-sdk-go.
//
//	m, err := models.New("local", cfg.Models["local"], models.Options{})
//	if err != nil {
//		return err // names the model and what to set
//	}
//	resp, err := m.Complete(ctx, models.Request{
//		Messages: []models.Message{{Role: models.RoleUser, Text: "Summarize notes.txt"}},
//		Tools:    tools,
//	})
//
// A [Request] is a provider-neutral conversation; tool results are
// messages of [RoleTool]. A [Response] is a final answer when it has no
// tool calls.
//
// # Keys
//
// api_key_env names the environment variable holding the key; it is read
// once, when the model is built, through [secret.Lookup] (so it still
// reads a variable talon took out of its environment). The key is sent
// only to the model's own base_url, never logged, and cut from every error
// text. The SDKs' own environment defaults (OPENAI_API_KEY,
// ANTHROPIC_BASE_URL and the like) are never read: a model talks to the
// endpoint its table names, with the key its table names.
//
// # Timeouts and retries
//
// Each request has its own timeout (timeout_seconds, 120 s by default). A
// request that failed with 408, 409, 429, a 5xx or a broken connection is
// retried up to max_retries times (2 by default) with exponential backoff
// from 0.5 s, honoring Retry-After; the caller's context bounds it all.
// Failures are [ErrUnavailable], [ErrRejected] or [ErrGarbage], naming the
// model, the endpoint and what to check.
package models
