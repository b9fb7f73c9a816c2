package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/fleet"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/telemetry"
)

// fleetTimeout bounds what a fleet command waits for the database.
const fleetTimeout = 30 * time.Second

// fleetAnswerWait is how long talon approvals waits for the server that
// asked to take a fleet answer.
const fleetAnswerWait = 10 * time.Second

func newFleetCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Set up and check the shared PostgreSQL database of receipts and approvals",
		Long: `A fleet is talon processes on many machines sharing one PostgreSQL database
([fleet] database_url): each ships its receipts there, and with [fleet] approvals = true
it publishes the approvals it waits for, so talon approvals on any machine can answer
them. The local receipt log stays the source of truth; no call waits for the database.`,
	}
	cmd.AddCommand(newFleetMigrateCmd(e), newFleetStatusCmd(e))
	return cmd
}

// fleetURL returns the expanded [fleet] database_url.
func (e *env) fleetURL(cfg *config.Config) (string, error) {
	if !cfg.Fleet.Enabled() {
		if e.src.Path == "" {
			return "", usageErrorf("no [fleet] database_url: talon runs on its embedded defaults; add [fleet] database_url = \"postgres://user:password@host/database\" to a talon.toml to use a fleet")
		}
		return "", usageErrorf("no [fleet] database_url in %s; set it to postgres://user:password@host/database to use a fleet", e.src.Path)
	}
	url, _, err := config.ExpandVars(cfg.Fleet.DatabaseURL, lookupEnv(e.io))
	if err != nil {
		return "", usageErrorf("[fleet] database_url: %v", err)
	}
	return url, nil
}

// fleetDB connects to the configured database.
func (e *env) fleetDB(ctx context.Context) (*fleet.DB, *config.Config, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, nil, err
	}
	url, err := e.fleetURL(cfg)
	if err != nil {
		return nil, nil, err
	}
	db, err := fleet.Connect(ctx, url)
	if errors.Is(err, fleet.ErrInvalidOptions) {
		return nil, nil, withCode(ExitUsage, err)
	}
	return db, cfg, err
}

// fleetHost is this data directory's host id.
func (e *env) fleetHost(cfg *config.Config) (string, error) {
	id, err := fleet.HostID(e.dataDir(cfg), cfg.Fleet.HostID)
	if errors.Is(err, fleet.ErrInvalidOptions) {
		return "", withCode(ExitUsage, err)
	}
	return id, err
}

func newFleetMigrateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the fleet's schema in the database",
		Long: `Apply the schema this talon carries to [fleet] database_url, in one transaction:
the talon schema, its tables and this month's and next month's receipt partitions.
Running it again changes nothing; a database whose schema a newer talon made is
refused. Servers can do it themselves with [fleet] auto_migrate = true.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), fleetTimeout)
			defer cancel()
			db, _, err := e.fleetDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			applied, err := db.Migrate(ctx, version)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(applied) == 0 {
				fmt.Fprintf(out, "%s: schema already at version %d\n", db.Where(), fleet.SchemaVersion())
				return nil
			}
			fmt.Fprintf(out, "%s: schema at version %d (applied %s)\n", db.Where(), fleet.SchemaVersion(), joinInts(applied))
			return nil
		},
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

func newFleetStatusCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the fleet database, its schema, this host's shipping lag and pending approvals",
		Long: `Show whether the database answers, its schema version, this host's id, how far each
of this host's receipt chains is shipped (records waiting in the local log, and the
age of the oldest), the hosts the database knows, and how many approvals wait across
the fleet. It exits 1 when the database cannot be reached; calls go on meanwhile and
receipts wait in the local log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), fleetTimeout)
			defer cancel()
			cfg, err := e.config()
			if err != nil {
				return err
			}
			url, err := e.fleetURL(cfg)
			if err != nil {
				return err
			}
			host, err := e.fleetHost(cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			db, err := fleet.Connect(ctx, url, fleet.ConnectOptions{Timeout: 5 * time.Second})
			if err != nil {
				if errors.Is(err, fleet.ErrInvalidOptions) {
					return withCode(ExitUsage, err)
				}
				fmt.Fprintf(out, "database:  not connected: %v\n", err)
				fmt.Fprintf(out, "host:      %s\n", host)
				fmt.Fprintln(out, "calls go on; receipts wait in the local log and are shipped once the database answers")
				return errSilent(ExitError)
			}
			defer db.Close()
			fmt.Fprintf(out, "database:  %s: connected\n", db.Where())
			v, err := db.Version(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "schema:    version %d (this talon: %d)\n", v, fleet.SchemaVersion())
			fmt.Fprintf(out, "host:      %s\n", host)
			if err := db.CheckSchema(ctx); err != nil {
				fmt.Fprintf(out, "%v\n", err)
				return errSilent(ExitError)
			}
			hosts, err := db.Hosts(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "hosts:     %d\n", len(hosts))
			lags, err := db.Lag(ctx, host, e.receiptsDir(cfg))
			if err != nil {
				return err
			}
			now := time.Now()
			for _, l := range lags {
				waiting := l.Local - l.Shipped
				line := fmt.Sprintf("shipping:  chain %s: shipped up to seq %d of %d", l.Chain, l.Shipped, l.Local)
				if waiting > 0 {
					line += fmt.Sprintf(", %d waiting (the oldest for %s)", waiting, now.Sub(l.Oldest).Round(time.Second))
				}
				if l.Problem != "" {
					line += "; stopped: " + l.Problem
				}
				fmt.Fprintln(out, line)
			}
			n, err := db.PendingCount(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "approvals: %d pending across the fleet\n", n)
			return nil
		},
	}
}

// verifyFleet is talon receipts verify --source postgres (every host's
// chains from the database alone) and --against postgres (this host's
// local log compared with what it shipped).
func (e *env) verifyFleet(cmd *cobra.Command, source, against, host string, keys []ed25519.PublicKey, path string) error {
	switch {
	case source != "" && source != "local" && source != "postgres":
		return usageErrorf("unknown --source %q: use local or postgres", source)
	case against != "" && against != "postgres":
		return usageErrorf("unknown --against %q: only postgres", against)
	case source == "postgres" && against != "":
		return usageErrorf("--source postgres and --against postgres are two checks: run them one at a time")
	case source == "postgres" && path != "":
		return usageErrorf("--source postgres reads the database, not %s: leave out the path", path)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
	defer cancel()
	db, cfg, err := e.fleetDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	out := cmd.OutOrStdout()
	if source == "postgres" {
		rep, err := db.Verify(ctx, fleet.VerifyOptions{Host: host, Keys: keys})
		if err != nil {
			return err
		}
		fmt.Fprint(out, rep)
		if !rep.OK() {
			return errSilent(ExitVerify)
		}
		return nil
	}
	if host == "" {
		if host, err = e.fleetHost(cfg); err != nil {
			return err
		}
	}
	if path == "" {
		path = e.receiptsDir(cfg)
	}
	cmp, err := db.CompareLocal(ctx, host, path)
	if err != nil {
		return err
	}
	fmt.Fprint(out, cmp)
	if !cmp.OK() {
		return errSilent(ExitVerify)
	}
	return nil
}

// fleetApprovals reports whether approvals go through the fleet.
func (e *env) fleetApprovals() bool {
	cfg, err := e.config()
	return err == nil && cfg.Fleet.Enabled() && cfg.Fleet.Approvals
}

// serveFleet is what talon serve runs for telemetry and the fleet.
type serveFleet struct {
	tel   *telemetry.Telemetry
	fleet *fleet.Fleet
}

// startTelemetry sets up spans and metrics before anything else reads
// or hides the environment: the OTLP exporters read their OTEL_*
// variables when they are made.
func (e *env) startTelemetry(ctx context.Context, cfg *config.Config, log zerolog.Logger) (*serveFleet, error) {
	attrs := map[string]string{}
	if cfg.Fleet.Enabled() {
		if id, err := e.fleetHost(cfg); err == nil {
			attrs["talon.fleet.host_id"] = id
		}
	}
	getenv := e.io.Getenv
	tel, err := telemetry.New(ctx, telemetry.Options{Getenv: getenv, Version: version, Attributes: attrs, Logger: log})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if tel.Exporting.Traces || tel.Exporting.Metrics {
		log.Info().Bool("traces", tel.Exporting.Traces).Bool("metrics", tel.Exporting.Metrics).Msg("telemetry: exporting over OTLP")
	}
	return &serveFleet{tel: tel}, nil
}

// startFleet starts shipping receipts and, with [fleet] approvals, the
// shared inbox on queue; it does nothing without [fleet] database_url.
func (sf *serveFleet) startFleet(e *env, cfg *config.Config, log zerolog.Logger, queue *approval.Queue) error {
	if !cfg.Fleet.Enabled() {
		return nil
	}
	url, err := e.fleetURL(cfg)
	if err != nil {
		return err
	}
	fl, err := fleet.New(fleet.Options{URL: url, DataDir: e.dataDir(cfg), ReceiptsDir: e.receiptsDir(cfg), HostID: cfg.Fleet.HostID,
		AutoMigrate: cfg.Fleet.AutoMigrate, Version: version, Logger: log})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if e.store != nil {
		fl.ShipStore(e.store)
	}
	if cfg.Fleet.Approvals && queue != nil {
		fl.Attach(queue, cfg.Approvals.Timeout())
	}
	fl.Start()
	sf.fleet = fl
	return nil
}

// registerMetrics adds the gauges of a running serve: its pending
// approvals, the fleet's shipping, and the plugins' pools.
func (sf *serveFleet) registerMetrics(queue *approval.Queue, set *plugins.Set) {
	tel := sf.tel
	var errs []error
	if queue != nil {
		errs = append(errs, tel.Gauge("talon.approvals.pending", "", "Calls waiting for a person's answer in this process.",
			func(report func(float64, ...string)) { report(float64(len(queue.List()))) }))
	}
	if fl := sf.fleet; fl != nil {
		errs = append(errs,
			tel.Counter("talon.receipts.shipped", "", "Receipts this process shipped to the fleet database.",
				func() int64 { return int64(fl.Stats().Shipped) }),
			tel.Gauge("talon.receipts.shipping.lag", "s", "Age of the oldest receipt read from the local log and not yet in the fleet database; 0 when caught up.",
				func(report func(float64, ...string)) { report(fl.Stats().Lag.Seconds()) }),
			tel.Gauge("talon.receipts.shipping.backlog", "", "Receipts read from the local log and waiting for the fleet database.",
				func(report func(float64, ...string)) { report(float64(fl.Stats().Backlog)) }),
			tel.Gauge("talon.fleet.connected", "", "1 while the fleet database answers, else 0.",
				func(report func(float64, ...string)) {
					v := 0.0
					if fl.Stats().State.Connected {
						v = 1
					}
					report(v)
				}))
	}
	if set != nil {
		errs = append(errs, tel.Gauge("talon.plugin.pool.instances", "", "WASM plugin instances, idle (kept warm) and in use.",
			func(report func(float64, ...string)) {
				for _, p := range set.Pools() {
					report(float64(p.Idle), "plugin", p.Attribution, "state", "idle")
					report(float64(p.InUse), "plugin", p.Attribution, "state", "in_use")
				}
			}))
	}
	_ = errors.Join(errs...) // instruments with fixed, valid names
}

// close stops the fleet and flushes telemetry.
func (sf *serveFleet) close() {
	if sf.fleet != nil {
		_ = sf.fleet.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = sf.tel.Shutdown(ctx)
}

// bannerLine tells the operator where receipts and approvals go.
func (sf *serveFleet) bannerLine(b *strings.Builder) {
	if sf == nil || sf.fleet == nil {
		return
	}
	fmt.Fprintf(b, "  fleet:     host %s; receipts shipped to the fleet database", sf.fleet.Host())
	if sf.fleet.Sharing() {
		b.WriteString(", approvals answerable from any machine (talon approvals list --fleet)")
	}
	b.WriteString("; talon fleet status shows the lag\n")
}
