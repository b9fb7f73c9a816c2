package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/talonhq/talon/fleet/fleettest"
	"github.com/talonhq/talon/receipts"
)

func TestMain(m *testing.M) {
	code := fleettest.Main(m)
	if code == 0 {
		// Every fleet, pool and listener the tests started has ended.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// testCtx bounds a test's database work.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// migrated returns a connection to a new database with the schema.
func migrated(t *testing.T) (*DB, string) {
	t.Helper()
	url := fleettest.Database(t)
	db, err := Connect(testCtx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(testCtx(t), "test"); err != nil {
		t.Fatal(err)
	}
	return db, url
}

// eventually polls cond until it holds; the shipper and the inbox work
// in the background, so a test waits for what they write.
func eventually(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 60 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMigrate(t *testing.T) {
	url := fleettest.Database(t)
	ctx := testCtx(t)
	db, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CheckSchema(ctx); !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("an empty database: %v, want ErrNotMigrated", err)
	}
	applied, err := db.Migrate(ctx, "test")
	if err != nil || len(applied) != SchemaVersion() {
		t.Fatalf("Migrate = %v, %v", applied, err)
	}
	if err := db.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if again, err := db.Migrate(ctx, "test"); err != nil || len(again) != 0 {
		t.Fatalf("a second Migrate = %v, %v; want nothing to do", again, err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO talon.schema_migrations (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"CheckSchema": db.CheckSchema(ctx), "Migrate": second(db.Migrate(ctx, "test"))} {
		if !errors.Is(err, ErrSchemaNewer) || !strings.Contains(err.Error(), "upgrade talon") {
			t.Errorf("%s on a newer schema: %v", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestConnectErrors(t *testing.T) {
	c := fleettest.Shared(t)
	tests := []struct {
		name string
		url  string
		want error
		says string
	}{
		{"wrong password", strings.Replace(c.URL("postgres"), fleettest.Password, "wrong", 1), ErrAuth, "check the user and password"},
		{"no such database", c.URL("nothere"), ErrUnreachable, "create the database"},
		{"nobody listening", "postgres://u:p@127.0.0.1:1/db?sslmode=disable", ErrUnreachable, "is PostgreSQL running"},
		{"not postgres", "mysql://u:p@host/db", ErrInvalidOptions, "postgres://"},
		{"empty", "", ErrInvalidOptions, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Connect(testCtx(t), tt.url, ConnectOptions{Timeout: 5 * time.Second})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Connect = %v; want %v saying %q", err, tt.want, tt.says)
			}
			if strings.Contains(err.Error(), fleettest.Password) || strings.Contains(err.Error(), ":wrong@") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

func TestHostID(t *testing.T) {
	dir := t.TempDir()
	id, err := HostID(dir, "")
	if err != nil || !strings.HasPrefix(id, "h-") {
		t.Fatalf("HostID = %q, %v", id, err)
	}
	if again, _ := HostID(dir, ""); again != id {
		t.Errorf("the host id changed: %s then %s", id, again)
	}
	if got, err := HostID(dir, "build-7"); err != nil || got != "build-7" {
		t.Errorf("configured: %q, %v", got, err)
	}
	for _, bad := range []string{"-x", "a b", strings.Repeat("x", 65), "x'y"} {
		if _, err := HostID(dir, bad); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("HostID(%q) = %v, want ErrInvalidOptions", bad, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, HostIDFile), []byte("no good\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := HostID(dir, ""); err == nil || !strings.Contains(err.Error(), "remove the file") {
		t.Errorf("a broken host id file: %v", err)
	}
}

func TestClaim(t *testing.T) {
	db, _ := migrated(t)
	ctx := testCtx(t)
	a := Host{ID: "h-one", Machine: "machine-id:aaaa", Hostname: "laptop-a"}
	if err := db.Claim(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := db.Claim(ctx, a); err != nil {
		t.Fatalf("the same machine again: %v", err)
	}
	b := Host{ID: "h-one", Machine: "machine-id:bbbb", Hostname: "laptop-b"}
	err := db.Claim(ctx, b)
	if !errors.Is(err, ErrHostClaimed) || !strings.Contains(err.Error(), `"laptop-a"`) || !strings.Contains(err.Error(), "fleet/host-id") {
		t.Fatalf("a second machine: %v", err)
	}
	hosts, err := db.Hosts(ctx)
	if err != nil || len(hosts) != 1 || hosts[0].Hostname != "laptop-a" {
		t.Fatalf("Hosts = %+v, %v", hosts, err)
	}
}

// host is one talon of a test: a data directory with a receipt store
// and a fleet shipping it.
type host struct {
	dataDir string
	store   *receipts.Store
	fleet   *Fleet
}

func newHost(t *testing.T, url string, o Options) *host {
	t.Helper()
	h := &host{dataDir: t.TempDir()}
	var err error
	h.store, err = receipts.Open(receipts.Options{Dir: filepath.Join(h.dataDir, "receipts")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.store.Close() })
	o.URL, o.DataDir = url, h.dataDir
	if o.Poll == 0 {
		o.Poll = 10 * time.Millisecond
	}
	o.MaxBackoff = 200 * time.Millisecond
	h.fleet, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.fleet.ShipStore(h.store)
	t.Cleanup(func() { _ = h.fleet.Close() })
	return h
}

func (h *host) issue(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("f%d", i)})
		if _, err := h.store.Issue(context.Background(), receipts.Entry{Tool: "file_read", Attribution: "builtin.file_read",
			Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto, Args: args, Result: "x"}); err != nil {
			t.Fatal(err)
		}
	}
}

// shipped waits until the database holds n records of h's chain.
func (h *host) shipped(t *testing.T, db *DB, n int) {
	t.Helper()
	eventually(t, fmt.Sprintf("host %s ships %d receipts", h.fleet.Host(), n), func() (bool, error) {
		var got int
		err := db.pool.QueryRow(context.Background(), `SELECT count(*) FROM talon.receipts WHERE host_id = $1 AND chain = $2`,
			h.fleet.Host(), h.store.Chain()).Scan(&got)
		if got > n {
			return false, fmt.Errorf("%d rows, more than the %d receipts issued", got, n)
		}
		return got == n, err
	})
}

func TestShipVerifyAndCompare(t *testing.T) {
	db, url := migrated(t)
	ctx := testCtx(t)
	h := newHost(t, url, Options{Batch: 7})
	h.issue(t, 40)
	if _, err := h.store.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	h.issue(t, 10)
	h.fleet.Start()
	h.shipped(t, db, 50)

	rep, err := db.Verify(ctx, VerifyOptions{})
	if err != nil || !rep.OK() || rep.Records != 50 || len(rep.Chains) != 1 {
		t.Fatalf("Verify = %+v, %v\n%s", rep, err, rep)
	}
	// Only one trusted key, the first: the rotation's endorsement links
	// the second.
	keys, _ := receipts.ReadPublicKeys(receipts.PublicKeyPath(filepath.Join(h.dataDir, "receipts")))
	if rep, err := db.Verify(ctx, VerifyOptions{Keys: keys[:1]}); err != nil || !rep.OK() {
		t.Fatalf("Verify with the first key only:\n%s%v", rep, err)
	}
	cmp, err := db.CompareLocal(ctx, h.fleet.Host(), filepath.Join(h.dataDir, "receipts"))
	if err != nil || !cmp.OK() || cmp.Chains[0].Same != 50 {
		t.Fatalf("CompareLocal:\n%s%v", cmp, err)
	}
	st := h.fleet.Stats()
	if !st.State.Connected || st.Shipped != 50 || st.Chains != 1 {
		t.Errorf("Stats = %+v", st)
	}

	// A record changed in the database is named by host, chain and seq.
	tests := []struct {
		name, update string
		reason       receipts.Reason
	}{
		{"record", `UPDATE talon.receipts SET record = replace(record, '"tool":"file_read"', '"tool":"file_write"') WHERE seq = 17`, receipts.ReasonBadSignature},
		{"column", `UPDATE talon.receipts SET tool = 'shell' WHERE seq = 17`, receipts.ReasonMalformed},
		{"row deleted", `DELETE FROM talon.receipts WHERE seq = 17`, receipts.ReasonRemoved},
		{"end deleted", `DELETE FROM talon.receipts WHERE seq > 46`, receipts.ReasonRemoved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := db.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, tt.update); err != nil {
				t.Fatal(err)
			}
			rep, err := verifyWith(ctx, tx, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Chains[0].Problem
			wantSeq := map[string]uint64{"row deleted": 18, "end deleted": 47}[tt.name]
			if wantSeq == 0 {
				wantSeq = 17
			}
			if p == nil || p.Host != h.fleet.Host() || p.Chain != h.store.Chain() || p.Seq != wantSeq || p.Reason != tt.reason {
				t.Fatalf("problem = %+v, want host %s chain %s seq %d: %s\n%s", p, h.fleet.Host(), h.store.Chain(), wantSeq, tt.reason, rep)
			}
		})
	}

	// A log cut from its end: the local log alone verifies, the
	// comparison shows what went.
	if err := h.fleet.Close(); err != nil {
		t.Fatal(err)
	}
	seg := lastSegment(t, filepath.Join(h.dataDir, "receipts", receipts.ChainsDir, h.store.Chain()))
	data, _ := os.ReadFile(seg)
	lines := strings.SplitAfter(string(data), "\n")
	cut := strings.Join(lines[:len(lines)-4], "") // three records and the empty tail
	if err := os.WriteFile(seg, []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	if vr := receipts.Verify(filepath.Join(h.dataDir, "receipts"), nil); !vr.OK() {
		t.Fatalf("the cut log should verify on its own:\n%s", vr)
	}
	cmp, err = db.CompareLocal(ctx, h.fleet.Host(), filepath.Join(h.dataDir, "receipts"))
	if err != nil || cmp.OK() || len(cmp.Chains[0].MissingLocally) != 1 || cmp.Chains[0].MissingLocally[0] != (SeqRange{48, 50}) {
		t.Fatalf("CompareLocal after the cut:\n%s%v", cmp, err)
	}
	if !strings.Contains(cmp.String(), "missing from the local log: seq 48..50") {
		t.Errorf("the comparison does not say what is missing:\n%s", cmp)
	}
}

func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "segment-") && e.Name() > last {
			last = e.Name()
		}
	}
	return filepath.Join(dir, last)
}

func TestShipResumesAfterAnOutage(t *testing.T) {
	db, url := migrated(t)
	h := newHost(t, url, Options{Batch: 50})
	h.fleet.Start()
	h.issue(t, 100)
	h.shipped(t, db, 100)

	c := fleettest.Shared(t)
	c.Kill()
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = c.Restart()
		}
	})
	h.issue(t, 150) // calls go on while the database is away
	eventually(t, "the fleet notices the outage", func() (bool, error) {
		st := h.fleet.Stats()
		return !st.State.Connected && st.State.Err != nil && errors.Is(st.State.Err, ErrUnreachable) && st.Backlog > 0, nil
	})
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	restarted = true
	db2, err := Connect(testCtx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	h.issue(t, 10)
	h.shipped(t, db2, 260)
	rep, err := db2.Verify(testCtx(t), VerifyOptions{})
	if err != nil || !rep.OK() || rep.Records != 260 {
		t.Fatalf("after the outage:\n%s%v", rep, err)
	}
	eventually(t, "the lag goes back to zero", func() (bool, error) {
		st := h.fleet.Stats()
		return st.State.Connected && st.Lag == 0 && st.Backlog == 0, nil
	})
}

func TestFourHostsShipAtOnce(t *testing.T) {
	db, url := migrated(t)
	var hosts []*host
	for range 4 {
		h := newHost(t, url, Options{Batch: 64})
		h.fleet.Start()
		hosts = append(hosts, h)
	}
	done := make(chan struct{})
	for _, h := range hosts {
		go func() {
			defer func() { done <- struct{}{} }()
			h.issue(t, 300)
		}()
	}
	for range hosts {
		<-done
	}
	for _, h := range hosts {
		h.shipped(t, db, 300)
	}
	rep, err := db.Verify(testCtx(t), VerifyOptions{})
	if err != nil || !rep.OK() || rep.Hosts != 4 || rep.Records != 1200 {
		t.Fatalf("four hosts:\n%s%v", rep, err)
	}
}

func TestASecondMachineIsRefused(t *testing.T) {
	db, url := migrated(t)
	a := newHost(t, url, Options{HostID: "shared-id", Machine: "machine-id:one"})
	a.fleet.Start()
	a.issue(t, 3)
	a.shipped(t, db, 3)
	b := newHost(t, url, Options{HostID: "shared-id", Machine: "machine-id:two"})
	b.fleet.Start()
	b.issue(t, 2)
	eventually(t, "the second machine is refused", func() (bool, error) {
		st := b.fleet.Stats()
		return st.State.Refused && errors.Is(st.State.Err, ErrHostClaimed), nil
	})
	var n int
	if err := db.pool.QueryRow(testCtx(t), `SELECT count(*) FROM talon.receipts WHERE chain = $1`, b.store.Chain()).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused machine shipped %d rows (%v)", n, err)
	}
}

func TestANewerSchemaStopsTheFleet(t *testing.T) {
	db, url := migrated(t)
	if _, err := db.pool.Exec(testCtx(t), `INSERT INTO talon.schema_migrations (version) VALUES ($1)`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	for _, auto := range []bool{false, true} {
		h := newHost(t, url, Options{AutoMigrate: auto})
		h.fleet.Start()
		eventually(t, "the fleet stops", func() (bool, error) {
			st := h.fleet.Stats()
			return st.State.Refused && errors.Is(st.State.Err, ErrSchemaNewer), nil
		})
	}
}
