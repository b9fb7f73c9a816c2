//go:build !talon_no_mcp

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/fleet"
)

// fleetList is talon approvals list --fleet.
func (e *env) fleetList(cmd *cobra.Command, asJSON bool) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), fleetTimeout)
	defer cancel()
	db, _, err := e.fleetDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.Pending(ctx)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if asJSON {
		if list == nil {
			list = []fleet.Approval{}
		}
		return writeJSON(out, list)
	}
	return printFleetPending(out, list, time.Now())
}

func printFleetPending(out io.Writer, list []fleet.Approval, now time.Time) error {
	if len(list) == 0 {
		fmt.Fprintln(out, "no approvals pending across the fleet")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHOST\tTOOL\tTIER\tAGE\tPLAN")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Host, a.Tool, a.Tier, age(now.Sub(a.RequestedAt)), oneLine(a.Summary(), 80))
	}
	return tw.Flush()
}

// fleetDecide answers an approval through the fleet database.
func (e *env) fleetDecide(cmd *cobra.Command, id string, ans approval.Answer) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), fleetTimeout)
	defer cancel()
	db, cfg, err := e.fleetDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	hostID, _ := fleet.HostID(e.dataDir(cfg), cfg.Fleet.HostID)
	out, err := db.Answer(ctx, id, ans, fleet.CurrentApprover(hostID), fleetAnswerWait)
	switch {
	case errors.Is(err, fleet.ErrNoApproval):
		return withCode(ExitUsage, err)
	case errors.Is(err, fleet.ErrAnswered), errors.Is(err, fleet.ErrExpired), errors.Is(err, fleet.ErrNotApplied):
		return withCode(ExitDenied, err)
	case err != nil:
		return err
	}
	a := out.Approval
	past := map[approval.Answer]string{approval.Yes: "approved", approval.Always: "approved for the rest of the session",
		approval.Permanent: "approved and saved as a rule", approval.No: "denied"}
	if !out.Settled {
		fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s on host %s); host %s has not taken the answer yet: its talon serve may be down or away from the database\n",
			past[ans], a.ID, a.Tool, a.Host, a.Host)
		return nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s on host %s)\n", past[ans], a.ID, a.Tool, a.Host)
	return nil
}
