package cli

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/receipts"
)

// receiptsDir is where the store lives: [receipts] path, else
// <data dir>/receipts.
func (e *env) receiptsDir(cfg *config.Config) string {
	if cfg.Receipts.Path != "" {
		p := cfg.Receipts.Path
		if !filepath.IsAbs(p) && cfg.ConfigDir() != "" {
			p = filepath.Join(cfg.ConfigDir(), p)
		}
		return p
	}
	return filepath.Join(e.dataDir(cfg), "receipts")
}

func (e *env) dataDir(cfg *config.Config) string {
	if e.g.dataDir != "" {
		return e.g.dataDir
	}
	return cfg.DataDir(e.io.getenv)
}

// openReceipts opens the store for writing, once per command. Other
// processes (a running `talon serve`, more `talon tools call`) may write it
// at the same time: each writes a chain of its own.
func (e *env) openReceipts(cfg *config.Config) (*receipts.Store, error) {
	if e.store != nil || !cfg.Receipts.Enabled() {
		return e.store, nil
	}
	log, err := e.logger()
	if err != nil {
		return nil, err
	}
	s, err := receipts.Open(receipts.Options{Dir: e.receiptsDir(cfg), StoreArguments: cfg.Receipts.StoreArguments, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("open receipt store: %w", err)
	}
	e.store = s
	return s, nil
}

func newReceiptsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "receipts",
		Short: "List, show, verify and export the signed receipts of successful calls",
	}
	cmd.AddCommand(newReceiptsListCmd(e), newReceiptsShowCmd(e), newReceiptsVerifyCmd(e),
		newReceiptsExportCmd(e), newReceiptsKeyCmd(e))
	return cmd
}

func newReceiptsListCmd(e *env) *cobra.Command {
	var f receipts.Filter
	var since string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List receipts, oldest first, every chain merged by time",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			if since != "" {
				if f.Since, err = parseSince(since, time.Now()); err != nil {
					return withCode(ExitUsage, err)
				}
			}
			rs, err := receipts.List(e.receiptsDir(cfg), f)
			if err != nil {
				return err
			}
			if asJSON {
				if rs == nil {
					rs = []receipts.Receipt{}
				}
				return writeJSON(cmd.OutOrStdout(), rs)
			}
			return receipts.WriteTable(cmd.OutOrStdout(), rs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Tool, "tool", "", "only receipts of this tool")
	fl.StringVar(&f.Session, "session", "", "only receipts of this session")
	fl.StringVar(&since, "since", "", "only receipts since a time: a duration back (24h, 30m) or a date (2026-11-30, RFC 3339)")
	fl.IntVar(&f.Limit, "limit", 0, "at most this many, the newest")
	fl.BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// parseSince reads a duration back from now, a date or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: use a duration such as 24h or a date such as 2026-11-30", s)
}

func newReceiptsShowCmd(e *env) *cobra.Command {
	var asJSON, tree bool
	cmd := &cobra.Command{
		Use:   "show ID|TOKEN|CHAIN:SEQ|SEQ",
		Short: "Show every field of one receipt",
		Long: `Show one receipt, found by its id, its token (tr1.<seq>.<sig>), its chain and seq
(CHAIN:SEQ, as receipts list shows them), or a bare seq when only one chain has it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			r, err := receipts.Find(e.receiptsDir(cfg), args[0])
			if err != nil {
				if errors.Is(err, receipts.ErrAmbiguous) {
					return withCode(ExitUsage, err)
				}
				if errors.Is(err, receipts.ErrNotFound) {
					return withCode(ExitUsage, fmt.Errorf("%w: list them with `talon receipts list`", err))
				}
				return err
			}
			if tree {
				n, err := receipts.Tree(e.receiptsDir(cfg), r.ID)
				if err != nil {
					return err
				}
				return receipts.WriteTree(cmd.OutOrStdout(), n)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), r)
			}
			return receipts.WriteDetail(cmd.OutOrStdout(), r)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stored record")
	cmd.Flags().BoolVar(&tree, "tree", false, "print the receipt with the receipts issued inside it (a subagent's calls), as a tree")
	return cmd
}

func newReceiptsVerifyCmd(e *env) *cobra.Command {
	var pubkey, source, against, host string
	cmd := &cobra.Command{
		Use:   "verify [PATH]",
		Short: "Check every signature and the hash chain; exit 0 only when all hold",
		Long: `Verify checks a receipt store (its directory, one chain's directory, or one JSONL
file such as an export) with only a public key: every signature, and each hash
chain across its segments in seq order. Every process that wrote the store
wrote a chain of its own; each chain is verified on its own and reported on its
own line. For each chain it names the first bad record and why: bad signature,
broken chain, gap, torn record, unknown key, reordered, inserted or removed. It
exits 0 only when every chain verifies. PATH defaults to this machine's store;
--pubkey defaults to the store's own public key file.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			} else {
				cfg, err := e.config()
				if err != nil {
					return err
				}
				path = e.receiptsDir(cfg)
			}
			var keys []ed25519.PublicKey
			if pubkey != "" {
				ks, err := receipts.ReadPublicKeys(pubkey)
				if err != nil {
					return withCode(ExitUsage, fmt.Errorf("read --pubkey: %w", err))
				}
				keys = ks
			}
			if (source != "" && source != "local") || against != "" {
				arg := ""
				if len(args) == 1 {
					arg = args[0]
				}
				return e.verifyFleet(cmd, source, against, host, keys, arg) // cli/fleet.go
			}
			rep := receipts.VerifyKeys(path, keys)
			if errors.Is(rep.Err, receipts.ErrNoPublicKey) {
				// A copy (an export, a chain directory) without the
				// store's key file beside it: nothing was checked, and
				// the fix is in the command line.
				return withCode(ExitUsage, fmt.Errorf("%w (talon receipts key prints it on the machine that made the receipts)", rep.Err))
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(rep.String(), "\n"))
			if !rep.OK() {
				return errSilent(ExitVerify)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&pubkey, "pubkey", "", "public key file (from `talon receipts key`)")
	cmd.Flags().StringVar(&source, "source", "local", "where the receipts are: local (the store or PATH) or postgres (every host's chains in the [fleet] database, verified from it alone)")
	cmd.Flags().StringVar(&against, "against", "", "postgres: compare the local store with what this host shipped to the [fleet] database (records cut from the log, records never shipped)")
	cmd.Flags().StringVar(&host, "host", "", "with --source or --against postgres: the host id to check (default: every host, or this one for --against)")
	return cmd
}

func newReceiptsExportCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write every receipt as JSONL, exactly as stored",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" {
				return usageErrorf("unknown --format %q: only jsonl is supported", format)
			}
			cfg, err := e.config()
			if err != nil {
				return err
			}
			return receipts.Export(e.receiptsDir(cfg), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl")
	return cmd
}

func newReceiptsKeyCmd(e *env) *cobra.Command {
	var rotate bool
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Print the public key that verifies this machine's receipts",
		Long: `Print the public key in talon's one-line text form. Give it to anyone who should
verify receipts: talon receipts verify --pubkey key.pub STORE. The key pair is
made on first use.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			dir := e.receiptsDir(cfg)
			if rotate {
				s, err := e.openReceipts(cfg)
				if err != nil {
					return err
				}
				id, err := s.RotateKey(cmd.Context())
				if err != nil {
					return fmt.Errorf("rotate the receipt key: %w", err)
				}
				fmt.Fprintf(e.io.ErrOut, "new key %s: the next receipt starts a new segment endorsed by the previous key\n", id)
				fmt.Fprintln(cmd.OutOrStdout(), receipts.FormatPublicKey(s.PublicKey()))
				return nil
			}
			keys, err := receipts.ReadPublicKeys(receipts.PublicKeyPath(dir))
			if err != nil {
				s, oerr := e.openReceipts(cfg)
				if oerr != nil {
					return oerr
				}
				keys = []ed25519.PublicKey{s.PublicKey()}
			}
			for _, k := range keys {
				fmt.Fprintln(cmd.OutOrStdout(), receipts.FormatPublicKey(k))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&rotate, "rotate", false, "make a new key pair; later receipts are signed with it, and the log stays verifiable with either key")
	return cmd
}
