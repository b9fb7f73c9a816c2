package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func newAgentsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List, show and run the subagents of the config",
		Long: `Subagents are agent files (Markdown with a YAML front matter) registered as
[agents.<name>] path = "agents/<name>.md" or found in [agents] dir. Each becomes
the tool agent__<name>: a model, from [models.<name>], running its own tool loop
over the catalog, every call decided by policy and receipted.`,
	}
	cmd.AddCommand(newAgentsListCmd(e), newAgentsShowCmd(e), newAgentsRunCmd(e))
	return cmd
}

// inspectAgents reads the agents of the config without building models;
// with report, it prints their errors and warnings to stderr.
func (e *env) inspectAgents(report bool) (*config.Config, *agents.Set, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, nil, err
	}
	set, problems := agents.Inspect(cfg, agents.Options{LookupEnv: lookupEnv(e.io)})
	for _, p := range problems {
		if report && p.Severity != agents.SeverityNote {
			fmt.Fprintf(e.io.ErrOut, "talon: %s: %s\n", p.Severity, p.Error())
		}
	}
	return cfg, set, nil
}

// listedAgent is one row of `agents list --json`.
type listedAgent struct {
	Name        string   `json:"name"`
	Tool        string   `json:"tool"`
	Description string   `json:"description"`
	Model       string   `json:"model"`
	Tools       []string `json:"tools"`
	Subagents   []string `json:"subagents"`
	File        string   `json:"file"`
	Selected    bool     `json:"selected"`
}

func newAgentsListCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered agents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, set, err := e.inspectAgents(true)
			if err != nil {
				return err
			}
			rows := make([]listedAgent, len(set.Agents))
			for i, a := range set.Agents {
				rows[i] = listedAgent{Name: a.Name, Tool: a.ToolName, Description: a.Description(), Model: a.Model,
					Tools: nonNil(a.File.Tools), Subagents: nonNil(a.File.Subagents), File: a.Path, Selected: a.Selected}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(out, "no agents: register one as [agents.<name>] path = \"agents/<name>.md\", or set [agents] dir")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMODEL\tTOOLS\tSUBAGENTS\tDESCRIPTION")
			for _, r := range rows {
				name := r.Name
				if !r.Selected {
					name += " (not in tools.optional)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, dash(r.Model), dash(strings.Join(r.Tools, ",")),
					dash(strings.Join(r.Subagents, ",")), firstLine(r.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// findAgent looks an agent up by its name or its tool name.
func findAgent(set *agents.Set, name string) (*agents.Agent, error) {
	if a, ok := set.Agent(strings.TrimPrefix(name, agents.ToolPrefix)); ok {
		return a, nil
	}
	msg := fmt.Sprintf("no agent %q", name)
	if s := spelling.Closest(name, set.Names()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return nil, usageErrorf("%s; run `talon agents list` to see the registered agents", msg)
}

func newAgentsShowCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Show one agent: its model, tools, subagents, limits, parameters and prompt",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, set, err := e.inspectAgents(true)
			if err != nil {
				return err
			}
			a, err := findAgent(set, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s  (agent.%s)\n\n%s\n\n", a.ToolName, a.Name, a.Description())
			m := cfg.Models[a.Model]
			fmt.Fprintf(out, "file:       %s\n", a.Path)
			fmt.Fprintf(out, "model:      %s (%s %s at %s)\n", dash(a.Model), dash(m.Provider), dash(m.Model), m.Endpoint())
			fmt.Fprintf(out, "tools:      %s\n", dash(strings.Join(a.File.Tools, ", ")))
			fmt.Fprintf(out, "subagents:  %s\n", dash(strings.Join(a.File.Subagents, ", ")))
			fmt.Fprintf(out, "limits:     %d rounds, %s, %d bytes of answer\n", a.MaxRounds, a.Timeout, a.MaxOutputBytes)
			if len(a.Descriptions) > 0 {
				langs := make([]string, 0, len(a.Descriptions))
				for l := range a.Descriptions {
					langs = append(langs, l)
				}
				slices.Sort(langs)
				fmt.Fprintf(out, "localized:  %s\n", strings.Join(langs, ", "))
			}
			if !a.Selected {
				fmt.Fprintf(out, "catalog:    not selected; add %s to [tools] optional\n", a.ToolName)
			}
			fmt.Fprintln(out, "\nParameters:")
			var schema any = map[string]any{"type": "object", "properties": map[string]any{"input": map[string]any{}}, "required": []string{"input"}}
			if a.File.InputSchema != nil {
				_ = json.Unmarshal(a.File.InputSchema, &schema)
			}
			if err := writeJSON(out, schema); err != nil {
				return err
			}
			fmt.Fprintf(out, "\nPrompt:\n%s", a.File.Body)
			return nil
		},
	}
}

type agentRunOptions struct {
	model   string
	profile string
	session string
	json    bool
	yes     bool
}

func newAgentsRunCmd(e *env) *cobra.Command {
	o := &agentRunOptions{}
	cmd := &cobra.Command{
		Use:   "run NAME INPUT",
		Short: "Run an agent through the full pipeline and print its answer",
		Long: `Run an agent the way a model delegating to it would: agent__NAME is called through
the pipeline on the cli channel, and every tool call the agent's model makes is
decided by the risk profile (a person is asked on the terminal where policy says
so; without a terminal such calls are denied). Each round's tool calls stream to
standard error. INPUT is the task: for an agent with an input_schema, a JSON
object of its parameters; otherwise text, or a JSON object or array passed as
JSON. "-" reads it from standard input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return agentsRun(cmd, e, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "run on this [models] entry instead of the agent's own (subagents keep theirs)")
	f.StringVar(&o.profile, "profile", "", "risk profile (default: default)")
	f.StringVar(&o.session, "session", "cli", "session id that groups calls (for \"always\" answers)")
	f.BoolVar(&o.json, "json", false, "print the whole result as JSON")
	f.BoolVar(&o.yes, "yes", false, "answer yes to approval prompts (never to always_ask tools, never turning a denial into an allow)")
	return cmd
}

func agentsRun(cmd *cobra.Command, e *env, o *agentRunOptions, args []string) error {
	// Problems are reported once, by the runtime's load below.
	cfg, set, err := e.inspectAgents(false)
	if err != nil {
		return err
	}
	a, err := findAgent(set, args[0])
	if err != nil {
		// An agent whose file does not load is not in the set: say why.
		if _, rerr := e.runtime(runtimeOptions{}); rerr != nil {
			return rerr
		}
		return err
	}
	input := args[1]
	if input == "-" {
		b, err := io.ReadAll(e.io.In)
		if err != nil {
			return err
		}
		input = strings.TrimRight(string(b), "\n")
	}
	raw, err := agentArgs(a, input)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if o.model != "" {
		mc, ok := cfg.Models[o.model]
		if !ok {
			msg := fmt.Sprintf("--model %q is not defined in [models]", o.model)
			names := sortedNames(cfg.Models)
			if s := spelling.Closest(o.model, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return usageErrorf("%s; add [models.%s] to the config or pick one of: %s", msg, o.model, dash(strings.Join(names, ", ")))
		}
		m, err := models.New(o.model, mc, models.Options{LookupEnv: lookupEnv(e.io)})
		if err != nil {
			return withCode(ExitUsage, err)
		}
		ctx = agents.WithModel(ctx, a.Name, m)
	}
	var approver approval.Approver = approval.NonInteractive{}
	switch {
	case o.yes:
		approver = yesApprover{}
	case e.io.InTTY:
		approver = &approval.Terminal{In: e.io.In, Out: e.io.ErrOut}
	}
	rt, err := e.runtime(runtimeOptions{approver: approver, receipts: true, runs: true})
	if err != nil {
		return err
	}
	if _, ok := rt.Catalog().Lookup(a.ToolName); !ok {
		return usageErrorf("agent %s is not in the catalog; add %s to [tools] optional", a.Name, a.ToolName)
	}
	ctx = agents.WithObserver(ctx, streamRounds(e.io.ErrOut))
	res, err := rt.Call(ctx, tool.Call{Name: a.ToolName, Args: raw, Channel: tool.ChannelCLI, Profile: o.profile, SessionID: o.session})
	if err != nil {
		return err
	}
	return printResult(cmd.OutOrStdout(), e.io.ErrOut, res, o.json)
}

// agentArgs builds the arguments of agent__NAME from the INPUT argument.
func agentArgs(a *agents.Agent, input string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(input)
	if a.File.InputSchema != nil {
		var obj map[string]any
		if err := json.Unmarshal([]byte(trimmed), &obj); err != nil {
			return nil, usageErrorf("agent %s takes a JSON object of its parameters (see `talon agents show %s`): %v", a.Name, a.Name, err)
		}
		return json.RawMessage(trimmed), nil
	}
	var v any = input
	if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		var parsed any
		if json.Unmarshal([]byte(trimmed), &parsed) == nil {
			v = parsed
		}
	}
	return json.Marshal(map[string]any{"input": v})
}

// streamRounds prints each step of every agent loop, one line each.
func streamRounds(w io.Writer) agents.Observer {
	var mu sync.Mutex
	return func(ev agents.Event) {
		mu.Lock()
		defer mu.Unlock()
		who := strings.Join(ev.Path, " → ")
		switch ev.Outcome {
		case "":
			fmt.Fprintf(w, "%s: round %d: %s %s\n", who, ev.Round, ev.Tool, compactArgs(ev.Args))
		case "answer":
			fmt.Fprintf(w, "%s: answered after %d rounds (%d tokens in, %d out)\n", who, ev.Round, ev.Usage.InputTokens, ev.Usage.OutputTokens)
		case "ok":
			fmt.Fprintf(w, "%s: round %d: %s: ok\n", who, ev.Round, ev.Tool)
		default:
			fmt.Fprintf(w, "%s: round %d: %s: %s: %s\n", who, ev.Round, ev.Tool, ev.Outcome, firstLine(ev.Detail))
		}
	}
}

// compactArgs shows a call's arguments on one line, cut at 200 bytes.
func compactArgs(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// loadAgents builds the agents of cfg as tools, with their messages, for a
// runtime; warnings go to the streams or the log.
func (e *env) loadAgents(cfg *config.Config, log zerolog.Logger, warn func(string)) ([]tool.Tool, []runtime.MessageSource, error) {
	set, err := agents.Load(cfg, agents.Options{LookupEnv: lookupEnv(e.io), Locale: e.localeFor(cfg), Logger: log})
	if err != nil {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("%w; run talon lint for every problem", err))
	}
	for _, w := range set.Warnings {
		warn(w)
	}
	var messages []runtime.MessageSource
	for _, m := range set.Messages {
		messages = append(messages, runtime.MessageSource{FS: m.FS, Source: m.Source})
	}
	return set.Tools, messages, nil
}

// agentsLint adds the problems of the config's agents to lint's findings:
// those of agent files at their file and line, the others at their key.
func (l *linter) agentsLint(cfg *config.Config, lookup func(string) (string, bool), cwd string) {
	for _, p := range agents.Check(cfg, agents.Options{LookupEnv: lookup}) {
		sev := lintError
		switch p.Severity {
		case agents.SeverityWarning:
			sev = lintWarning
		case agents.SeverityNote:
			sev = lintNote
		}
		if p.File != "" {
			l.findings = append(l.findings, finding{File: displayPath(p.File, cwd), Line: p.Line, Severity: sev, Message: p.Msg})
			continue
		}
		key := p.Key
		if key == nil {
			key = []string{"agents"}
		}
		l.add(sev, key, 0, p.Msg)
	}
}
