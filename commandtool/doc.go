// Package commandtool turns the operator's [tools.commands.<name>] tables
// into tools: each runs one program with an argv rendered from the call's
// arguments, directly and never through a shell.
//
//	[tools.commands.ripgrep]
//	description = "Search the repository for a pattern"
//	command = ["rg", "--json", "{{ input.pattern }}"]
//	parameters = { type = "object", properties = { pattern = { type = "string" } }, required = ["pattern"] }
//	timeout = 10
//
// becomes the tool tool__ripgrep, attributed to command.ripgrep:
//
//	set, err := commandtool.Load(cfg, commandtool.Options{Workspace: dir})
//	if err != nil {
//		return err // a table with errors: the message names the tool and the key
//	}
//	rt, err := runtime.New(runtime.Options{Config: cfg, Tools: set.Tools})
//
// # Names
//
// The model sees tool__<name>, with every character outside [a-zA-Z0-9_-]
// replaced by '_' (tool__my.tool becomes tool__my_tool); a name still
// longer than 64 characters is an error. tool_policy allow and deny globs
// (doublestar) match these qualified names; deny wins, an empty allow list
// allows everything, and a tool left out is not registered at all.
//
// # Templates
//
// Every element of command is a template that renders to exactly one argv
// element, whatever the values contain:
//
//	{{ input.NAME }}       a string parameter as it is; a number or boolean as its JSON text
//	{{ json input }}       the whole arguments object as compact JSON
//	{{ json input.NAME }}  one parameter as compact JSON (objects and arrays)
//	{{ "text" }}           literal text, e.g. {{ "{{" }} for a literal "{{"
//
// Templates are strict: any other variable is a load error, a parameter
// the template references must be declared in parameters.properties, and
// a call whose arguments lack it fails without running anything.
// command[0] is a fixed program, never a template.
//
// # Load-time expansion
//
// ${VAR} in command, in env values and in cwd is expanded from talon's
// environment when the tool is built ($${ is a literal ${); a variable
// that is not set is a load error naming it and the tool. Values the model
// passes are never expanded.
//
// # Running
//
// The program is resolved when the tool is built (PATH lookup with the
// child's PATH when env sets one) and again at every call; if it now
// resolves elsewhere, the call is refused. env, when set, is the child's
// whole environment; without it the child gets PATH, HOME, LANG, TERM and
// TMPDIR from talon's. cwd defaults to the workspace; a relative cwd is
// relative to it. Arguments are validated against parameters by the tool
// itself before rendering (the runtime validates them too), so
// unvalidated input is never rendered.
//
// Every call runs through [sandbox.Run] in a process group of its own:
// the timeout (default 30 s) kills the group, and stdout and stderr are
// each capped at 16 MiB; over the cap the group is killed and the call
// fails saying so. A non-zero exit or a timeout is a failed result that
// carries the end of stderr.
//
// # Risk and approvals
//
// The tier is the configured tier, high by default. [Tool.Assess] returns
// the plan an approver sees (rendered argv, resolved binary, directory,
// the names of the environment) and marks the call allowlisted, since the
// operator named the program: under the supervised level a high-tier
// command tool asks instead of being blocked. Execute refuses to run when
// the context carries an approved plan ([tool.ApprovedPlan]) that differs
// from the one rendered now.
package commandtool
