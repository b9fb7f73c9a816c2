//go:build !talon_no_mcp

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
)

func newApprovalsRulesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List, add and remove the approvals saved for good",
		Long: `A call approved with [p]ermanently, or with talon approvals approve ID --always
--persist, is saved as a rule in approvals.toml in talon's configuration
directory ($XDG_CONFIG_HOME/talon, else ~/.config/talon), where no tool can
reach it. A rule allows one tool's call under one profile with exactly its plan:
the binary, arguments, directory and environment names of every command. It turns
an ask into an allow and nothing else: a call policy denies stays denied, and a
tool in always_ask asks every time. Calls whose commands run code written in their
own arguments (python -c, sh -c, awk, find -exec, ...) are never saved.`,
	}
	cmd.AddCommand(newRulesListCmd(e), newRulesAddCmd(e), newRulesRemoveCmd(e))
	return cmd
}

// rulesStore is the approvals file of this user.
func (e *env) rulesStore() (*approval.Rules, error) {
	path := approval.DefaultRulesPath(e.io.getenv)
	if path == "" {
		return nil, usageErrorf("no configuration directory: set HOME or XDG_CONFIG_HOME")
	}
	return approval.OpenRules(path, nil), nil
}

func newRulesListCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved rules, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := e.rulesStore()
			if err != nil {
				return err
			}
			list, err := store.List()
			if err != nil {
				return withCode(ExitUsage, err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if list == nil {
					list = []approval.SavedRule{}
				}
				return writeJSON(out, list)
			}
			return printRules(out, list)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func printRules(out io.Writer, list []approval.SavedRule) error {
	if len(list) == 0 {
		fmt.Fprintln(out, "no saved rules")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tPROFILE\tDIR\tPLAN")
	for _, r := range list {
		plan := r.Summary
		if plan == "" {
			var parts []string
			for _, c := range r.Commands {
				parts = append(parts, strings.Join(c.Argv, " "))
			}
			plan = strings.Join(parts, " | ") + " (pattern)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Tool, r.Profile, r.Commands[0].Dir, oneLine(plan, 80))
	}
	return tw.Flush()
}

func newRulesAddCmd(e *env) *cobra.Command {
	var toolName, profile, workdir string
	var pattern bool
	cmd := &cobra.Command{
		Use:   "add [flags] -- COMMAND LINE",
		Short: "Save a rule for a command line, as talon would plan it",
		Long: `The line is analysed exactly as the tool would analyse the call (in --workdir,
under --profile) and its plan is saved. With --pattern each argument is a pattern
instead: '*' matches any run of characters, '?' one, and a whole "**" any number
of arguments; quote them so the line's own glob expansion leaves them alone:

  talon approvals rules add --pattern -- make test "'**'"`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("give the command line to save, after --")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := e.rulesStore()
			if err != nil {
				return err
			}
			callArgs := map[string]string{"command": strings.Join(args, " ")}
			if workdir != "" {
				callArgs["workdir"] = workdir
			}
			raw, _ := json.Marshal(callArgs)
			rt, err := e.runtime(runtimeOptions{})
			if err != nil {
				return err
			}
			ex, res, err := rt.Explain(cmd.Context(), tool.Call{Name: toolName, Args: raw, Channel: tool.ChannelCLI, Profile: profile})
			if err != nil {
				return err
			}
			if res != nil {
				return withCode(ExitUsage, errors.New(res.Error))
			}
			if ex.Decision == risk.Deny {
				return withCode(ExitDenied, fmt.Errorf("policy denies this call (%s): a saved rule only spares a person the question, it never allows what policy denies", ex.Why))
			}
			rule, err := approval.RuleFromPlan(ex.Tool, ex.Profile, ex.Plan)
			if err != nil {
				return withCode(ExitDenied, err)
			}
			if pattern {
				rule.Pattern, rule.Summary = true, ""
			}
			rule.By = "talon approvals rules add"
			saved, err := store.Add(rule)
			if err != nil {
				if errors.Is(err, approval.ErrRulesFile) {
					return withCode(ExitUsage, err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "saved rule %s\n", saved)
			if ex.Decision == risk.Allow && ex.Rule == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "note: policy already allows this call without asking (%s)\n", ex.Why)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&toolName, "tool", "shell", "the tool the rule is for")
	f.StringVar(&profile, "profile", risk.DefaultProfile, "the risk profile the rule holds under")
	f.StringVar(&workdir, "workdir", "", "the directory the line runs in, relative to the workspace")
	f.BoolVar(&pattern, "pattern", false, "read the arguments as patterns (*, ?, and ** for any number of arguments)")
	return cmd
}

func newRulesRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a saved rule",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("talon approvals rules remove takes one ID; run `talon approvals rules list` to see them")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := e.rulesStore()
			if err != nil {
				return err
			}
			if err := store.Remove(args[0]); err != nil {
				if errors.Is(err, approval.ErrNoRule) || errors.Is(err, approval.ErrRulesFile) {
					return withCode(ExitUsage, err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed rule %s\n", args[0])
			return nil
		},
	}
}
