package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/sandbox"
)

// Statuses reported the way a shell would.
const (
	statusTimedOut  = 124
	statusCannotRun = 126
	statusNotFound  = 127
	statusRedirect  = 1
)

// waitDelay bounds how long output is still read after a command exits
// while something it started keeps the pipe open.
const waitDelay = time.Second

// proc is one background command line.
type proc struct {
	id      string
	seq     int
	session string
	line    string
	started time.Time
	stdout  *ring
	stderr  *ring

	mu       sync.Mutex
	cmds     []*exec.Cmd // started and not yet waited for
	inMu     sync.Mutex
	stdinW   *os.File // guarded by inMu; nil once closed
	killed   bool
	exitCode int
	finished time.Time
	changed  chan struct{} // closed and replaced on every change
	done     chan struct{}

	// cursors of poll, per stream.
	pollOut, pollErr int64

	cancel context.CancelFunc
}

// signal wakes every poll waiting for a change.
func (p *proc) signal() {
	p.mu.Lock()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *proc) changes() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// state returns whether the process finished and its status.
func (p *proc) state() (finished bool, code int, at time.Time, killed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.finished.IsZero(), p.exitCode, p.finished, p.killed
}

// runner starts the commands of a program.
type runner struct {
	dir string
	env func(shellparse.Command) []string
}

// run executes the program's steps left to right, "&&" and "||" deciding
// by the last status, and records the final status. It returns when the
// last command exited.
func (p *proc) run(ctx context.Context, r runner, prog *shellparse.Program, stdinR *os.File, now func() time.Time) {
	status := 0
	for _, st := range prog.Steps {
		if ctx.Err() != nil || p.isKilled() {
			break
		}
		if st.Op == "&&" && status != 0 || st.Op == "||" && status == 0 {
			continue
		}
		status = p.pipeline(ctx, r, st.Pipeline, stdinR)
	}
	_ = stdinR.Close()
	p.inMu.Lock()
	if p.stdinW != nil {
		_ = p.stdinW.Close()
		p.stdinW = nil
	}
	p.inMu.Unlock()
	p.mu.Lock()
	if p.killed && status == 0 {
		status = 128 + 9
	}
	p.exitCode = status
	p.finished = now()
	p.mu.Unlock()
	close(p.done)
	p.signal()
}

func (p *proc) isKilled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// kill ends every process group of the line and stops it from starting
// more. It reports whether the line was still running.
func (p *proc) kill() bool {
	p.mu.Lock()
	running := p.finished.IsZero()
	if running {
		p.killed = true
	}
	cmds := slices.Clone(p.cmds)
	p.mu.Unlock()
	for _, c := range cmds {
		_ = sandbox.KillGroup(c.Process)
	}
	if p.cancel != nil {
		p.cancel()
	}
	return running
}

// pipeline starts every command of one pipeline, each in a process group
// of its own, and returns the last command's status.
func (p *proc) pipeline(ctx context.Context, r runner, cmds []shellparse.Command, stdinR *os.File) int {
	type started struct {
		cmd    *exec.Cmd
		ctx    context.Context
		cancel context.CancelFunc
		status int
	}
	list := make([]*started, len(cmds))
	var in *os.File = stdinR
	for i, c := range cmds {
		var next, pipeW *os.File
		var out io.Writer = p.stdout
		if i < len(cmds)-1 {
			pr, pw, err := os.Pipe()
			if err != nil {
				fmt.Fprintf(p.stderr, "talon: cannot create a pipe: %v\n", err)
				list[i] = &started{status: statusCannotRun}
				continue
			}
			next, pipeW, out = pr, pw, pw
		}
		s := &started{ctx: ctx}
		list[i] = s
		cmd, status := p.start(ctx, r, c, in, out, &s.ctx, &s.cancel)
		s.cmd, s.status = cmd, status
		if in != stdinR {
			_ = in.Close()
		}
		closeFile(pipeW)
		in = next
	}
	if in != stdinR {
		closeFile(in)
	}
	status := 0
	for _, s := range list {
		status = p.wait(ctx, s.cmd, s.ctx, s.cancel, s.status)
	}
	return status
}

// start sets up one command's descriptors and spawns it; a failure is
// reported on stderr as a shell would and gives the command a status.
func (p *proc) start(ctx context.Context, r runner, c shellparse.Command, stdin *os.File, stdout io.Writer, cctx *context.Context, cancel *context.CancelFunc) (*exec.Cmd, int) {
	var fds [3]any
	if stdin != nil {
		fds[0] = stdin
	}
	fds[1], fds[2] = stdout, p.stderr
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			closeFile(f)
		}
	}()
	for _, rd := range c.Redirects {
		if rd.Fd < 0 || rd.Fd > 2 {
			fmt.Fprintf(p.stderr, "talon: descriptor %d cannot be redirected\n", rd.Fd)
			return nil, statusRedirect
		}
		switch rd.Op {
		case ">", ">>", "<":
			f, err := openRedirect(r.dir, rd)
			if err != nil {
				fmt.Fprintf(p.stderr, "talon: %s: %v\n", rd.Target, err)
				return nil, statusRedirect
			}
			opened = append(opened, f)
			fds[rd.Fd] = f
		case ">&":
			n, err := strconv.Atoi(rd.Target)
			if err != nil || n < 0 || n > 2 {
				fmt.Fprintf(p.stderr, "talon: descriptor %s cannot be duplicated\n", rd.Target)
				return nil, statusRedirect
			}
			fds[rd.Fd] = fds[n]
		case "<<":
			fds[rd.Fd] = strings.NewReader(rd.Target)
		}
	}
	if c.Timeout > 0 {
		*cctx, *cancel = context.WithTimeout(ctx, c.Timeout) //nolint:gosec // the caller calls *cancel when the command ends
	}
	cmd := sandbox.CommandContext(*cctx, c.Binary)
	cmd.Args = slices.Clone(c.Argv)
	cmd.Dir = r.dir
	cmd.Env = r.env(c)
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	if rd, ok := fds[0].(io.Reader); ok {
		cmd.Stdin = rd
	}
	cmd.Stdout, cmd.Stderr = asWriter(fds[1]), asWriter(fds[2])
	cmd.WaitDelay = waitDelay
	dieWithParent(cmd)
	p.mu.Lock()
	if p.killed {
		p.mu.Unlock()
		return nil, 128 + 9
	}
	err := sandbox.StartNice(cmd, c.Nice)
	if err == nil {
		p.cmds = append(p.cmds, cmd)
	}
	p.mu.Unlock()
	if err != nil {
		fmt.Fprintf(p.stderr, "talon: %s: %v\n", c.Argv[0], err)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, statusNotFound
		}
		return nil, statusCannotRun
	}
	return cmd, 0
}

// wait waits for one command, kills what is left of its group, and
// returns its status.
func (p *proc) wait(parent context.Context, cmd *exec.Cmd, ctx context.Context, cancel context.CancelFunc, status int) int {
	if cancel != nil {
		defer cancel()
	}
	if cmd == nil {
		return status
	}
	err := cmd.Wait()
	_ = sandbox.KillGroup(cmd.Process)
	p.mu.Lock()
	p.cmds = slices.DeleteFunc(p.cmds, func(c *exec.Cmd) bool { return c == cmd })
	p.mu.Unlock()
	if cancel != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return statusTimedOut
	}
	if cmd.ProcessState == nil {
		if err != nil {
			return statusCannotRun
		}
		return 0
	}
	if n, ok := sandbox.SignalStatus(cmd.ProcessState); ok {
		return n
	}
	return cmd.ProcessState.ExitCode()
}

// openRedirect opens a redirection target relative to the workspace:
// regular files and the null device only, so a FIFO or a device cannot
// block the line.
func openRedirect(dir string, r shellparse.Redirect) (*os.File, error) {
	path := r.Target
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if path != os.DevNull {
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.Mode().IsRegular():
			return nil, errors.New("not a regular file")
		case err != nil && (r.Op == "<" || !errors.Is(err, fs.ErrNotExist)):
			return nil, err
		}
	}
	switch r.Op {
	case ">":
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	case ">>":
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	default:
		return os.Open(path)
	}
}

func asWriter(v any) io.Writer {
	switch w := v.(type) {
	case *os.File:
		return w
	case *ring:
		return w
	}
	return nil
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
