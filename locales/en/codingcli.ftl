### Descriptions of the tools of the tools-coding-cli feature: claude_code, codex_cli and gemini_cli.

## claude_code

tool-claude-code = Hand a task to Claude Code, Anthropic's coding agent, running non-interactively in the workspace, and return its final answer. The agent reads the files itself and may change them, so describe the task completely: what to do, where, and how to check it. Runs usually need approval, and a run that takes too long is stopped.
tool-claude-code-param-prompt = The task for the agent, in plain language, for example "Add a unit test for parseConfig in config.go and run the tests". It must not start with "-".

## codex_cli

tool-codex-cli = Hand a task to the Codex CLI, OpenAI's coding agent, running non-interactively in the workspace, and return its final answer. The agent reads the files itself and may change them, so describe the task completely: what to do, where, and how to check it. Runs usually need approval, and a run that takes too long is stopped.
tool-codex-cli-param-prompt = The task for the agent, in plain language, for example "Find why TestLoad fails and fix it". It must not start with "-".

## gemini_cli

tool-gemini-cli = Hand a task to the Gemini CLI, Google's coding agent, running non-interactively in the workspace, and return its final answer. The agent reads the files itself and may change them, so describe the task completely: what to do, where, and how to check it. Runs usually need approval, and a run that takes too long is stopped.
tool-gemini-cli-param-prompt = The task for the agent, in plain language, for example "Summarize the architecture of this repository". It must not start with "-".
