// Package codingcli provides claude_code, codex_cli and gemini_cli: each
// runs a vendor's coding-agent CLI non-interactively in the workspace with
// a prompt and returns its answer.
//
// The three tools share one runner and differ only in their [Vendor]: the
// program (claude, codex, gemini), the argument vector around the prompt
// (`claude -p PROMPT`, `codex exec PROMPT`, `gemini -p PROMPT`), the
// environment variables the CLI needs for its credentials, and how to
// install it. A CLI that is not installed is a failed result saying how to
// install it or where to point [tools.coding_cli.<tool>] binary.
//
//	cli, err := codingcli.New(codingcli.ClaudeCode, codingcli.Options{Workspace: root})
//	if err != nil {
//		return err
//	}
//	res, err := cli.Execute(ctx, json.RawMessage(`{"prompt": "Explain what main.go does"}`))
//
// The CLI is an agent of its own: it may read and change files in the
// workspace and reach its vendor's API. So every call is high tier, and its
// plan is the exact process — resolved binary, argument vector (prompt
// included), directory and the names of the environment variables it gets
// — so an approval binds to it and anything else is refused. The process
// starts through the sandbox package, in a process group of its own: a
// timeout or cancellation kills the CLI with everything it started, and
// output over the cap is dropped with a note. Its environment is not
// talon's: only PATH, HOME, USER, LOGNAME, LANG, LC_ALL, TZ, the vendor's
// credential variables and the operator's env_passthrough are handed down,
// with NO_COLOR=1.
//
// The package registers the tools with toolfactory in init; the binary
// includes them with the build tag talon_tools_coding_cli.
package codingcli
