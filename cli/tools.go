package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func newToolsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List, show and call the tools of the catalog",
	}
	cmd.AddCommand(newToolsListCmd(e), newToolsShowCmd(e), newToolsCallCmd(e))
	return cmd
}

type listOptions struct {
	surface string
	profile string
	channel string
	json    bool
	format  string
	all     bool
}

// listedTool is one row of `tools list --json`.
type listedTool struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Tier        tool.Tier `json:"tier"`
	// PerCall is set when Tier is a floor and each call is assessed
	// from its arguments.
	PerCall     bool            `json:"per_call,omitempty"`
	Source      tool.Kind       `json:"source"`
	Attribution string          `json:"attribution"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func newToolsListCmd(e *env) *cobra.Command {
	o := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the catalog",
		Long: `List the tools an agent would see: the catalog selected by [tools] optional for the
surface, minus what the risk profile can never run on the channel.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return toolsList(e, o, cmd.OutOrStdout()) },
	}
	f := cmd.Flags()
	f.StringVar(&o.surface, "surface", "", "kind of client: chat or code (default: [serve] surface, else chat)")
	f.StringVar(&o.profile, "profile", "", "risk profile (default: default)")
	f.Var(newChannelValue(&o.channel), "channel", "channel to view the catalog for: cli, mcp, cron, api")
	f.BoolVar(&o.json, "json", false, "print a JSON array")
	f.StringVar(&o.format, "format", "", "print tool definitions for a model API: openai, anthropic or mcp")
	f.BoolVar(&o.all, "all", false, "list every built-in name talon knows, with whether this binary has it")
	return cmd
}

func toolsList(e *env, o *listOptions, out io.Writer) error {
	if o.all {
		return listKnown(out)
	}
	cfg, err := e.config()
	if err != nil {
		return err
	}
	surface := o.surface
	if surface == "" {
		surface = cfg.Serve.SurfaceName()
	}
	rt, err := e.runtime(runtimeOptions{surface: surface})
	if err != nil {
		return err
	}
	for _, d := range rt.Catalog().Diagnostics() {
		fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", d.Message)
	}
	specs, err := rt.View(runtime.ViewOptions{Profile: o.profile, Channel: o.channel, Locale: e.localeFor(cfg)})
	if err != nil {
		return err
	}
	switch {
	case o.format != "":
		return printFormat(out, o.format, specs)
	case o.json:
		rows := make([]listedTool, len(specs))
		for i, s := range specs {
			rows[i] = listedTool{Name: s.Name, Description: s.Description, Tier: s.Tier, PerCall: rt.PerCall(s.Name), Source: s.Attribution.Kind, Attribution: s.Attribution.String(), InputSchema: s.Input}
		}
		return writeJSON(out, rows)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTIER\tSOURCE\tDESCRIPTION")
	for _, s := range specs {
		tier := s.Tier.String()
		if rt.PerCall(s.Name) {
			// The tier is a floor; each call is assessed from its
			// arguments.
			tier = "per call"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, tier, s.Attribution, firstLine(s.Description))
	}
	return tw.Flush()
}

func listKnown(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFEATURE\tIN THIS BINARY")
	for _, k := range toolfactory.Known() {
		_, ok := toolfactory.Get(k.Name)
		have := "yes"
		if !ok {
			have = "no (build with -tags " + k.Tag + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, k.Feature, have)
	}
	return tw.Flush()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func printFormat(out io.Writer, format string, specs []tool.Spec) error {
	switch format {
	case "openai":
		type fn struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		type entry struct {
			Type     string `json:"type"`
			Function fn     `json:"function"`
		}
		rows := make([]entry, len(specs))
		for i, s := range specs {
			rows[i] = entry{Type: "function", Function: fn{Name: s.Name, Description: s.Description, Parameters: s.Input}}
		}
		return writeJSON(out, rows)
	case "anthropic":
		type entry struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		rows := make([]entry, len(specs))
		for i, s := range specs {
			rows[i] = entry{Name: s.Name, Description: s.Description, InputSchema: s.Input}
		}
		return writeJSON(out, rows)
	case "mcp":
		type entry struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		rows := make([]entry, len(specs))
		for i, s := range specs {
			rows[i] = entry{Name: s.Name, Description: s.Description, InputSchema: s.Input}
		}
		return writeJSON(out, map[string]any{"tools": rows})
	}
	return usageErrorf("unknown --format %q: use openai, anthropic or mcp", format)
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newToolsShowCmd(e *env) *cobra.Command {
	var surface string
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one tool's description, tier and schema",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			rt, err := e.runtime(runtimeOptions{surface: surface})
			if err != nil {
				return err
			}
			specs := rt.Catalog().Specs(e.localeFor(cfg))
			i := slices.IndexFunc(specs, func(s tool.Spec) bool { return s.Name == args[0] })
			if i < 0 {
				_, _, err := rt.Explain(cmd.Context(), tool.Call{Name: args[0]})
				return err
			}
			s := specs[i]
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s  (%s, floor tier %s)\n\n%s\n\nInput schema:\n", s.Name, s.Attribution, s.Tier, s.Description)
			var pretty any
			_ = json.Unmarshal(s.Input, &pretty)
			return writeJSON(out, pretty)
		},
	}
	cmd.Flags().StringVar(&surface, "surface", "", "kind of client: chat or code")
	return cmd
}

type callOptions struct {
	profile string
	channel string
	session string
	json    bool
	yes     bool
}

func newToolsCallCmd(e *env) *cobra.Command {
	o := &callOptions{}
	cmd := &cobra.Command{
		Use:   "call NAME [ARGS_JSON|-]",
		Short: "Call a tool through the full pipeline and print the result",
		Long: `Call a tool the way an agent would: arguments are checked against the schema, the
call is assessed and decided by the risk profile, a person is asked on the terminal
where policy says so (without a terminal such calls are denied), and a successful
call gets a receipt. ARGS_JSON defaults to {}; "-" reads it from standard input.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error { return toolsCall(cmd, e, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.profile, "profile", "", "risk profile (default: default)")
	f.Var(newChannelValue(&o.channel), "channel", "channel the call arrives on: cli, mcp, cron, api")
	f.StringVar(&o.session, "session", "cli", "session id that groups calls (for \"always\" answers)")
	f.BoolVar(&o.json, "json", false, "print the whole result as JSON")
	f.BoolVar(&o.yes, "yes", false, "answer yes to approval prompts (never to always_ask tools, never turning a denial into an allow)")
	return cmd
}

func toolsCall(cmd *cobra.Command, e *env, o *callOptions, args []string) error {
	raw := ""
	if len(args) == 2 {
		raw = args[1]
		if raw == "-" {
			b, err := io.ReadAll(e.io.In)
			if err != nil {
				return err
			}
			raw = string(b)
		}
	}
	var approver approval.Approver = approval.NonInteractive{}
	switch {
	case o.yes:
		approver = yesApprover{}
	case e.io.InTTY:
		approver = &approval.Terminal{In: e.io.In, Out: e.io.ErrOut}
	default:
		if cfg, err := e.config(); err == nil && !cfg.Approvals.Wait() {
			// [approvals] wait = false: the call returns pending (exit 5);
			// the request ends with this process.
			approver = approval.NewQueue(approval.QueueOptions{})
		}
	}
	rt, err := e.runtime(runtimeOptions{approver: approver, receipts: true, runs: true})
	if err != nil {
		return err
	}
	res, err := rt.Call(cmd.Context(), tool.Call{
		Name: args[0], Args: json.RawMessage(raw), Channel: o.channel, Profile: o.profile, SessionID: o.session,
	})
	if err != nil {
		return err
	}
	if res.Pending != "" && !o.json {
		fmt.Fprintf(e.io.ErrOut, "approval pending (id %s): nothing ran. With [approvals] wait = false a call returns at once, and talon tools call leaves nothing waiting once it exits: have such calls approved through talon serve, or call on a terminal\n", res.Pending)
		return errSilent(ExitPending)
	}
	return printResult(cmd.OutOrStdout(), e.io.ErrOut, res, o.json)
}

// printResult prints a finished call the way `tools call` does: the text
// on out, or the error on errOut, or the whole result as JSON; the error
// returned carries the result's exit code.
func printResult(out, errOut io.Writer, res tool.Result, asJSON bool) error {
	if asJSON {
		if err := writeJSON(out, res); err != nil {
			return err
		}
	} else if res.Success {
		fmt.Fprintln(out, strings.TrimRight(res.Output.Text, "\n"))
	} else {
		fmt.Fprintln(errOut, res.Error)
	}
	if code := resultCode(res); code != ExitOK {
		return errSilent(code)
	}
	return nil
}

// yesApprover answers yes for `tools call --yes`. The runtime asks it only
// for calls the profile already allows to be asked for; an always_ask tool
// still needs a person, so it refuses those.
type yesApprover struct{}

func (yesApprover) Approve(_ context.Context, req approval.Request) (approval.Answer, error) {
	if req.AlwaysAsk {
		return approval.No, approval.ErrNoApprover
	}
	return approval.Yes, nil
}
