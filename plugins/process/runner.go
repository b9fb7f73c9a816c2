package process

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	pb "github.com/talonhq/talon/plugins/proto"
	"github.com/talonhq/talon/sandbox"
)

// procRunner starts one plugin process for go-plugin through the sandbox
// spawner. go-plugin gives it the command's environment (the handshake
// cookie, the protocol versions, the client certificate); everything else
// about the process is decided here.
type procRunner struct {
	path     string
	private  *privateCopy
	checksum string
	dir      string
	env      []string
	pdeath   bool
	stderr   io.Writer

	cmd      *exec.Cmd
	stdout   *os.File
	stderrR  *os.File
	stdinW   *os.File
	drained  chan struct{}
	killOnce sync.Once
}

var _ runner.Runner = (*procRunner)(nil)

// Start copies the binary into talon's private directory, checks the
// copy's hash with go-plugin's SecureConfig, and starts the copy. The check
// runs here, not through go-plugin's own SecureConfig field, because the
// command go-plugin would check is the sandbox helper's, not the plugin's.
func (r *procRunner) Start(context.Context) error {
	sum, err := hex.DecodeString(r.checksum)
	if err != nil || len(sum) != sha256.Size {
		return fmt.Errorf("%w: the manifest's sha256 %q is not a hex SHA-256 digest", ErrHashMismatch, r.checksum)
	}
	exe, err := r.private.get(r.path)
	if err != nil {
		return err
	}
	sc := &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	ok, err := sc.Check(exe)
	if err != nil {
		return fmt.Errorf("check the hash of %s: %w", r.path, err)
	}
	if !ok {
		r.private.drop()
		return fmt.Errorf("%w: %s is not the binary the manifest names; reinstall the plugin or run `talon plugins verify`", ErrHashMismatch, r.path)
	}
	cmd := sandbox.CommandContext(context.Background(), exe)
	cmd.Dir = r.dir
	cmd.Env = r.env
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	if r.pdeath {
		setParentDeath(cmd)
	}
	onSpawnThread(func() { err = sandbox.Start(cmd) })
	closeAll(stdinR, stdoutW, stderrW)
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		return fmt.Errorf("start %s: %w", r.path, err)
	}
	r.cmd, r.stdout, r.stderrR, r.stdinW = cmd, stdoutR, stderrR, stdinW
	r.drained = make(chan struct{})
	go func() {
		defer close(r.drained)
		_, _ = io.Copy(r.stderr, stderrR)
	}()
	return nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// Wait waits for the process, then for its stderr to drain (bounded, in
// case a descendant keeps the pipe open).
func (r *procRunner) Wait(context.Context) error {
	if r.cmd == nil {
		return nil
	}
	err := r.cmd.Wait()
	select {
	case <-r.drained:
	case <-time.After(time.Second):
	}
	closeAll(r.stderrR, r.stdinW)
	return err
}

// Kill closes the plugin's standard input (the SDK exits on that) and
// kills its process group.
func (r *procRunner) Kill(context.Context) error {
	var err error
	if r.cmd == nil {
		return nil
	}
	r.killOnce.Do(func() {
		_ = r.stdinW.Close()
		err = sandbox.KillGroup(r.cmd.Process)
	})
	return err
}

func (r *procRunner) Diagnose(context.Context) string { return "" }

// Stdout carries the handshake line.
func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }

// Stderr is empty for go-plugin: the runner re-logs stderr itself, with
// the plugin's attribution and a rate limit.
func (r *procRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *procRunner) Name() string { return r.path }

func (r *procRunner) ID() string {
	if r.cmd == nil || r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// childEnv is the plugin's whole environment: go-plugin's handshake
// variables and talon's own, nothing inherited. The unix socket directory
// go-plugin proposes is dropped so the plugin makes its socket under its
// TMPDIR, which the sandbox lets it write.
func childEnv(fromGoPlugin, own []string) []string {
	out := make([]string, 0, len(fromGoPlugin)+len(own))
	for _, kv := range fromGoPlugin {
		if strings.HasPrefix(kv, plugin.EnvUnixSocketDir+"=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, own...)
}

// ownEnv is what talon sets for every plugin.
func ownEnv(name, workspace string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		pb.EnvPluginName + "=" + name,
		pb.EnvWorkspace + "=" + workspace,
		pb.EnvWatchdog + "=stdin",
	}
}

// privateCopy is the copy of a plugin's binary that actually runs, in a
// directory only talon's user can write. The hash is checked on this copy
// right before each start, so replacing the installed file after the
// check changes nothing, and the binary runs from outside talon's data
// directory, which the sandbox keeps every child out of.
type privateCopy struct {
	mu   sync.Mutex
	dir  string
	path string
}

// get returns the copy, making it from src on first use.
func (c *privateCopy) get(src string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path != "" {
		if _, err := os.Stat(c.path); err == nil {
			return c.path, nil
		}
	}
	if c.dir == "" {
		sweepOnce.Do(sweepStale)
		d, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", copyPrefix, os.Getpid()))
		if err != nil {
			return "", fmt.Errorf("make a private directory for the plugin binary: %w", err)
		}
		c.dir = d
	}
	dst := filepath.Join(c.dir, filepath.Base(src))
	if err := copyFile(src, dst); err != nil {
		return "", fmt.Errorf("copy the plugin binary %s: %w; reinstall the plugin", src, err)
	}
	c.path = dst
	return dst, nil
}

// drop removes the copy, so the next start copies again.
func (c *privateCopy) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path != "" {
		_ = os.Remove(c.path)
		c.path = ""
	}
}

// remove deletes the directory; the plugin must no longer run.
func (c *privateCopy) remove() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
		c.dir, c.path = "", ""
	}
}

// copyPrefix starts the name of every private copy directory, followed
// by the pid of the talon that made it.
const copyPrefix = "talon-plugin-"

var sweepOnce sync.Once

// sweepStale removes the private copy directories of talons that are no
// longer running (killed before they could clean up).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), copyPrefix+"*-*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), copyPrefix)
		pid, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '-'), 0)])
		if err != nil || pid == os.Getpid() || !processGone(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
