//go:build !talon_no_mcp

package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	mcpserver "github.com/talonhq/talon/mcp/server"
)

func newApprovalsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List and answer the approvals a running talon serve is waiting for",
		Long: `A call that needs approval, from an MCP client that cannot ask its user itself,
waits in talon serve until someone answers it here (or the approval timeout passes,
and the call is denied). The commands reach every talon serve that uses the same
data directory, over a Unix socket only this user can open.

Approvals come only from people: a server refuses these commands from any process
that talon started (a tool, a shell line, or a talon approvals run by one of them;
exit code 4), logs the attempt, and keeps the call waiting. Run them in a terminal
of your own.`,
	}
	cmd.AddCommand(newApprovalsListCmd(e), newApprovalsDecideCmd(e, "approve"), newApprovalsDecideCmd(e, "deny"), newApprovalsRulesCmd(e))
	return cmd
}

func (e *env) approvalsDataDir() (string, error) {
	cfg, err := e.config()
	if err != nil {
		return "", err
	}
	d := e.dataDir(cfg)
	if d == "" {
		return "", usageErrorf("no data directory: set HOME, data_dir or --data-dir to the one talon serve uses")
	}
	return d, nil
}

func newApprovalsListCmd(e *env) *cobra.Command {
	var asJSON, fromFleet bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the pending approvals, oldest first",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usageErrorf("talon approvals list takes no arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fromFleet {
				return e.fleetList(cmd, asJSON) // cli/fleet.go
			}
			dir, err := e.approvalsDataDir()
			if err != nil {
				return err
			}
			list, err := mcpserver.ListPending(cmd.Context(), dir)
			if err != nil {
				return approvalsError(err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if list == nil {
					list = []mcpserver.PendingApproval{}
				}
				return writeJSON(out, list)
			}
			return printPending(out, list, time.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().BoolVar(&fromFleet, "fleet", false, "list what waits on every host of the [fleet] database instead of this machine's servers")
	return cmd
}

func printPending(out io.Writer, list []mcpserver.PendingApproval, now time.Time) error {
	if len(list) == 0 {
		fmt.Fprintln(out, "no approvals pending")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tTIER\tAGE\tPLAN")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ID, p.Tool, p.Tier, age(now.Sub(p.Since)), oneLine(p.Summary(), 80))
	}
	return tw.Flush()
}

// age renders a duration the way a person reads a wait: 8s, 2m05s, 1h03m.
func age(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}

func newApprovalsDecideCmd(e *env, verb string) *cobra.Command {
	var always, persist, viaFleet bool
	short := "Deny a pending call: it does not run"
	if verb == "approve" {
		short = "Approve a pending call: it runs"
	}
	cmd := &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("talon approvals %s takes one ID; run `talon approvals list` to see them", verb)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if persist && !always {
				return usageErrorf("--persist saves an --always answer; give both")
			}
			dir, err := e.approvalsDataDir()
			if err != nil {
				return err
			}
			ans := approval.No
			if verb == "approve" {
				ans = approval.Yes
				if always {
					ans = approval.Always
				}
				if persist {
					ans = approval.Permanent
				}
			}
			fleetDecide := func() error { // cli/fleet.go
				if err := mcpserver.CheckPerson(); err != nil {
					return approvalsError(err)
				}
				return e.fleetDecide(cmd, args[0], ans)
			}
			if viaFleet {
				return fleetDecide()
			}
			if err := mcpserver.Decide(cmd.Context(), dir, args[0], ans); err != nil {
				if (errors.Is(err, approval.ErrNotPending) || errors.Is(err, mcpserver.ErrNoServer)) && e.fleetApprovals() {
					return fleetDecide() // not waiting here: another host's
				}
				return approvalsError(err)
			}
			past := map[approval.Answer]string{approval.Yes: "approved", approval.Always: "approved for the rest of the session",
				approval.Permanent: "approved and saved as a rule (talon approvals rules list shows it)", approval.No: "denied"}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", past[ans], args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&viaFleet, "fleet", false, "answer through the [fleet] database: for a call waiting on another machine (talon approvals list --fleet); the answer records your user and host")
	if verb == "approve" {
		cmd.Flags().BoolVar(&always, "always", false, "also allow the same call again for the rest of its session (never for always_ask tools)")
		cmd.Flags().BoolVar(&persist, "persist", false, "with --always: save the call's exact plan as a rule, so it runs without asking in later sessions too (never for inline code like python -c or sh -c)")
	}
	return cmd
}

// approvalsError gives the errors of the control endpoint their exit codes:
// an id nobody waits for is a usage error, a refusal of this process is a
// denial.
func approvalsError(err error) error {
	switch {
	case errors.Is(err, approval.ErrNotPending):
		return withCode(ExitUsage, err)
	case errors.Is(err, mcpserver.ErrRefusedPeer):
		return withCode(ExitDenied, err)
	}
	return err
}
