// Package fleettest starts a throwaway PostgreSQL cluster for tests: one
// initdb in a temporary directory, one postmaster as a child of the test
// process on a loopback port, stopped and removed when the test binary is
// done. Tests of a package share one cluster and take a database each.
//
//	func TestMain(m *testing.M) { os.Exit(fleettest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		url := fleettest.Database(t) // skips where PostgreSQL is absent
//		...
//	}
//
// # Notes
//
// PostgreSQL refuses to run as root; a root test process runs initdb and
// postgres as the unprivileged user nobody. The binaries are looked up in
// $TALON_PG_BIN, /usr/lib/postgresql/<version>/bin (15 first) and PATH.
// Without them a test is skipped, except where $CI is set: there it
// fails, since make test installs the Debian package postgresql.
package fleettest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Superuser and Password are the cluster's superuser and its password
// (TCP connections authenticate with scram-sha-256).
const (
	Superuser = "talon_test"
	Password  = "talon-test-password"
)

// ErrNoPostgres means the PostgreSQL server binaries are not installed.
var ErrNoPostgres = errors.New("postgresql server binaries not found (install the Debian package postgresql, or set TALON_PG_BIN)")

// Options configure [Start].
type Options struct {
	// Durable keeps PostgreSQL's default of flushing the WAL to disk at
	// every commit; without it the cluster skips fsync, which tests of
	// logic do not need (a commit still survives a crash of PostgreSQL,
	// only not one of the machine). Benchmarks set it.
	Durable bool
}

// Cluster is a running throwaway PostgreSQL cluster.
type Cluster struct {
	Dir  string // the cluster's directory (data, socket, log)
	Port int
	bin  string
	cred *syscall.Credential

	mu  sync.Mutex
	cmd *exec.Cmd
	end chan struct{}
}

// Bin returns the directory of the PostgreSQL server binaries.
func Bin() (string, error) {
	if b := os.Getenv("TALON_PG_BIN"); b != "" {
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		if (vi == 15) != (vj == 15) {
			return vi == 15
		}
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNoPostgres
}

// Start makes a cluster in a new temporary directory and starts it.
func Start(o Options) (*Cluster, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "talon-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	fail := func(err error) (*Cluster, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return fail(fmt.Errorf("PostgreSQL does not run as root and there is no user nobody to run it as: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(err)
		}
	}
	pw := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pw, []byte(Password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if c.cred != nil {
		if err := os.Chown(pw, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return fail(err)
		}
	}
	initdb := c.command(context.Background(), "initdb", "-D", c.data(), "-U", Superuser, "--pwfile", pw,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %w\n%s", err, out))
	}
	conf := []string{
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '" + dir + "'",
		"max_connections = 200",
		"shared_buffers = '64MB'",
		"log_min_messages = warning",
	}
	if !o.Durable {
		conf = append(conf, "fsync = off", "full_page_writes = off")
	}
	f, err := os.OpenFile(filepath.Join(c.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fail(err)
	}
	_, err = f.WriteString("\n" + strings.Join(conf, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	if c.Port, err = freePort(); err != nil {
		return fail(err)
	}
	if err := c.Restart(); err != nil {
		return fail(err)
	}
	return c, nil
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// command runs a PostgreSQL program as the cluster's user.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.Dir
	cmd.Env = []string{"PATH=" + c.bin + ":/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

// URL returns the connection URL of a database of the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, Password, c.Port, db)
}

// Restart starts the postmaster when it is not running and waits until
// it accepts connections.
func (c *Cluster) Restart() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil {
		return nil
	}
	var log bytes.Buffer
	cmd := c.command(context.Background(), "postgres", "-D", c.data(), "-p", strconv.Itoa(c.Port))
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &log}, &syncWriter{w: &log}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	end := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(end)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			break
		}
		select {
		case <-end:
			return fmt.Errorf("postgres exited at start: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-end
			return fmt.Errorf("postgres did not accept connections within 60 s: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.cmd, c.end = cmd, end
	return nil
}

// Kill stops the postmaster the way a crash would (an immediate
// shutdown: no checkpoint, every connection cut) and waits until it is
// gone. [Cluster.Restart] brings it back, recovering from the WAL.
func (c *Cluster) Kill() { c.stop(syscall.SIGQUIT) }

// Stop shuts the cluster down and removes its directory.
func (c *Cluster) Stop() error {
	c.stop(syscall.SIGINT)
	return os.RemoveAll(c.Dir)
}

func (c *Cluster) stop(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(sig)
	select {
	case <-c.end:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.end
	}
	c.cmd = nil
	// The backends notice their postmaster is gone and leave; a new
	// postmaster waits for them through the lock file.
}

// CreateDatabase makes a new, empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return c.URL(name), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w.Len() > 1<<20 {
		return len(p), nil
	}
	return s.w.Write(p)
}

// The package's shared cluster, started on first use by [Shared] and
// stopped by [Main].
var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
)

// Main runs a package's tests and stops the shared cluster afterwards.
// Call it from TestMain: os.Exit(fleettest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		_ = shared.Stop()
	}
	return code
}

// Shared returns the package's cluster, starting it on first use. A
// test that kills it must bring it back before it ends.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start(Options{}) })
	if errors.Is(sharedErr, ErrNoPostgres) && os.Getenv("CI") == "" {
		t.Skipf("skipped: %v", sharedErr)
	}
	if sharedErr != nil {
		t.Fatalf("start a PostgreSQL cluster: %v", sharedErr)
	}
	return shared
}

// Database returns the URL of a new, empty database in the package's
// shared cluster.
func Database(t testing.TB) string {
	t.Helper()
	c := Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, err := c.CreateDatabase(ctx)
	if err != nil {
		t.Fatalf("create a database: %v", err)
	}
	return url
}
