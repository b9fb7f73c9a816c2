package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func newPolicyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Inspect how policy decides calls",
	}
	cmd.AddCommand(newPolicyExplainCmd(e))
	return cmd
}

func newPolicyExplainCmd(e *env) *cobra.Command {
	var profile, channel string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain TOOL [ARGS_JSON]",
		Short: "Show the tier, reasons, plan and decision for a call, without running it",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := e.runtime(runtimeOptions{})
			if err != nil {
				return err
			}
			raw := ""
			if len(args) == 2 {
				raw = args[1]
			}
			ex, res, err := rt.Explain(cmd.Context(), tool.Call{Name: args[0], Args: json.RawMessage(raw), Channel: channel, Profile: profile})
			if err != nil {
				return err
			}
			if res != nil {
				fmt.Fprintln(e.io.ErrOut, res.Error)
				return errSilent(ExitToolFail)
			}
			out := cmd.OutOrStdout()
			cfg, err := e.config()
			if err != nil {
				return err
			}
			prot := e.protectedRules(cfg)
			if asJSON {
				return writeJSON(out, struct {
					runtime.Explanation
					Protected []protectedRule `json:"protected"`
				}{ex, prot})
			}
			defer printProtected(out, prot)
			fmt.Fprintf(out, "tool:     %s (%s)\nprofile:  %s\nchannel:  %s\ntier:     %s\n", ex.Tool, ex.Attribution, ex.Profile, ex.Channel, ex.Tier)
			for _, r := range ex.Reasons {
				fmt.Fprintf(out, "reason:   %s\n", r)
			}
			if ex.Plan != nil {
				if ex.Plan.Summary != "" {
					fmt.Fprintf(out, "plan:     %s\n", ex.Plan.Summary)
				}
				for _, c := range ex.Plan.Commands {
					fmt.Fprintf(out, "argv:     %s  (%s)\n", strings.Join(c.Argv, " "), c.Binary)
					if c.Dir != "" && c.Dir != rt.Workspace() {
						fmt.Fprintf(out, "dir:      %s\n", c.Dir)
					}
				}
			}
			if ex.Sandbox != "" {
				fmt.Fprintf(out, "sandbox:  %s\n", ex.Sandbox)
			}
			fmt.Fprintf(out, "decision: %s\nwhy:      %s\n", ex.Decision, ex.Why)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&profile, "profile", "", "risk profile (default: default)")
	f.Var(newChannelValue(&channel), "channel", "channel: cli, mcp, cron, api")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
