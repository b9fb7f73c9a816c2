// Package agents makes subagents: agent files that become tools a model
// may delegate to, agent__<name>, each a model running its own tool loop
// over talon's catalog.
//
// An agent file is Markdown with a YAML front matter:
//
//	---
//	name: researcher
//	description: Reads the workspace to answer a question, citing files.
//	model: local
//	tools: [file_read, glob_search, content_search]
//	max_rounds: 6
//	---
//	Answer this question from the files of the workspace: {{ input }}
//
// registered as [agents.researcher] path = "agents/researcher.md" or found
// in [agents] dir, and run on a [models.<name>] endpoint:
//
//	set, err := agents.Load(cfg, agents.Options{})
//	if err != nil {
//		return err // every problem, each naming the file, line or key to fix
//	}
//	rt, err := runtime.New(runtime.Options{Config: cfg, Tools: set.Tools})
//
// # Settings
//
// description is what the model sees (default "Runs the '<name>' subagent
// for a delegated task."); <agent>.<lang>.md next to the file, or the
// agent directory's locales/<lang>/*.ftl (id tool-agent--<name>), localize
// it. input_schema, when present, is the tool's parameters and the whole
// argument object is {{ input }}; otherwise the parameters are
// {"input": any}, and a string input renders as it is, anything else as
// JSON text. tools are the talon tools the agent may call (none by
// default); subagents are agents it may delegate to. model, max_rounds
// (8), timeout_seconds (300) and max_output_bytes (262144) come from the
// file, then from [agents], never from the caller.
//
// # The loop
//
// A call of agent__<name> renders the prompt and asks the model, offering
// the tools the agent may use that the caller's profile can run on its
// channel, with full schemas (deferred discovery does not apply) in the
// catalog's locale. Each tool call the model returns runs through [runtime.Call] on
// the caller's channel, profile and session, with the agent's tools (and
// agent__<subagent> names) as a strict caller allowlist, intersected with
// the caller's own allowlist when it has one; several calls of one round
// run as one [runtime.Runtime.CallBatch]. Results, denials and failures go
// back to the model, until it answers without calling a tool. Reaching
// max_rounds, the timeout, an answer over max_output_bytes or a model
// that fails is a failed result naming the agent; the caller's
// cancellation is the caller's error. Only a finished run succeeds, so
// only a finished run gets a receipt, which records the model, the rounds,
// the tokens and the receipts of the calls made inside.
//
// Approvals asked inside reach the caller's approver with the delegation
// path (researcher → shell); where the caller has no approver they fail
// closed, as every call does.
//
// # Nesting
//
// An agent may delegate to its subagents, which may delegate further. A
// cycle is an error when the agents load; a delegation deeper than
// [MaxDepth] agents is refused when it would start.
package agents
