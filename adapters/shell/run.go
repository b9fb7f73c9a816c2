package shell

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
	"time"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/sandbox"
)

// waitDelay bounds how long output is still read after a command exits
// while something it started keeps the pipe open; the command's process
// group is killed right after.
const waitDelay = time.Second

// Statuses reported the way a shell would.
const (
	statusTimedOut   = 124 // timeout(1)'s status
	statusCannotRun  = 126
	statusNotFound   = 127
	statusRedirError = 1
)

// outcome is what running a program produced.
type outcome struct {
	exitCode int
	stdout   *capBuffer
	stderr   *capBuffer
	timedOut bool
	// canceled is the caller's context error when the caller gave up.
	canceled error
}

// run executes a program: steps left to right, each a pipeline, with "&&"
// and "||" deciding by the last status. timeout zero means none.
func (s *Shell) run(parent context.Context, p *shellparse.Program, dir string, timeout time.Duration) outcome {
	ctx := parent
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, timeout)
		defer cancel()
	}
	out := outcome{stdout: newCapBuffer(s.opts.MaxOutputBytes), stderr: newCapBuffer(s.opts.MaxOutputBytes)}
	status := 0
	for _, st := range p.Steps {
		if ctx.Err() != nil {
			break
		}
		if st.Op == "&&" && status != 0 || st.Op == "||" && status == 0 {
			continue
		}
		status = s.pipeline(ctx, st.Pipeline, dir, out.stdout, out.stderr)
	}
	out.exitCode = status
	switch {
	case parent.Err() != nil:
		out.canceled = parent.Err()
	case ctx.Err() != nil:
		out.timedOut = true
	}
	if (out.timedOut || out.canceled != nil) && out.exitCode == 0 {
		out.exitCode = -1
	}
	return out
}

// pipeline starts every command of a pipeline, each in its own process
// group, connects each stdout to the next stdin, waits for all and returns
// the last command's status.
func (s *Shell) pipeline(ctx context.Context, cmds []shellparse.Command, dir string, stdout, stderr *capBuffer) int {
	procs := make([]*proc, len(cmds))
	var stdin *os.File
	for i, c := range cmds {
		var next, pipeW *os.File
		var out io.Writer = stdout
		if i < len(cmds)-1 {
			r, w, err := os.Pipe()
			if err != nil {
				fmt.Fprintf(stderr, "talon: cannot create a pipe: %v\n", err)
				procs[i] = &proc{status: statusCannotRun}
				closeFile(stdin)
				stdin = nil
				continue
			}
			next, pipeW, out = r, w, w
		}
		procs[i] = s.start(ctx, c, dir, stdin, out, stderr)
		closeFile(stdin)
		closeFile(pipeW)
		stdin = next
	}
	closeFile(stdin)
	status := 0
	for _, p := range procs {
		status = p.wait()
	}
	return status
}

// proc is one command of a pipeline, started or not.
type proc struct {
	cmd    *exec.Cmd
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
	status int
}

// start sets up one command's descriptors and spawns it. A failure is
// reported on stderr as a shell would, and the command gets a status.
func (s *Shell) start(ctx context.Context, c shellparse.Command, dir string, stdin *os.File, stdout io.Writer, stderr *capBuffer) *proc {
	p := &proc{parent: ctx, ctx: ctx}
	var fds [3]any
	if stdin != nil {
		fds[0] = stdin
	}
	fds[1], fds[2] = stdout, stderr
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			closeFile(f)
		}
	}()
	for _, r := range c.Redirects {
		if r.Fd < 0 || r.Fd > 2 {
			fmt.Fprintf(stderr, "talon: descriptor %d cannot be redirected\n", r.Fd)
			p.status = statusRedirError
			return p
		}
		switch r.Op {
		case ">", ">>", "<":
			f, err := openRedirectIn(dir, r)
			if err != nil {
				fmt.Fprintf(stderr, "talon: %s: %v\n", r.Target, err)
				p.status = statusRedirError
				return p
			}
			opened = append(opened, f)
			fds[r.Fd] = f
		case ">&":
			n, err := strconv.Atoi(r.Target)
			if err != nil || n < 0 || n > 2 {
				fmt.Fprintf(stderr, "talon: descriptor %s cannot be duplicated\n", r.Target)
				p.status = statusRedirError
				return p
			}
			fds[r.Fd] = fds[n]
		case "<<":
			fds[r.Fd] = strings.NewReader(r.Target)
		}
	}
	if c.Timeout > 0 {
		p.ctx, p.cancel = context.WithTimeout(ctx, c.Timeout)
	}
	cmd := sandbox.CommandContext(p.ctx, c.Binary)
	cmd.Args = slices.Clone(c.Argv)
	cmd.Dir = dir
	cmd.Env = s.childEnv(c)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = reader(fds[0]), writer(fds[1]), writer(fds[2])
	cmd.WaitDelay = waitDelay
	if err := s.spawn(cmd, c.Nice); err != nil {
		fmt.Fprintf(stderr, "talon: %s: %v\n", c.Argv[0], err)
		p.status = statusCannotRun
		if errors.Is(err, fs.ErrNotExist) {
			p.status = statusNotFound
		}
		return p
	}
	p.cmd = cmd
	return p
}

// wait waits for the command, kills whatever is left of its process group,
// and returns its status: the exit code, 128+N for a signal, 124 when its
// own timeout ended it.
func (p *proc) wait() int {
	if p.cancel != nil {
		defer p.cancel()
	}
	if p.cmd == nil {
		return p.status
	}
	err := p.cmd.Wait()
	_ = sandbox.KillGroup(p.cmd.Process)
	if p.cancel != nil && errors.Is(p.ctx.Err(), context.DeadlineExceeded) && p.parent.Err() == nil {
		return statusTimedOut
	}
	if p.cmd.ProcessState == nil {
		if err != nil {
			return statusCannotRun
		}
		return 0
	}
	if n, ok := sandbox.SignalStatus(p.cmd.ProcessState); ok {
		return n
	}
	return p.cmd.ProcessState.ExitCode()
}

// openRedirectIn opens a redirection target relative to the command's
// directory. Only regular files (and /dev/null) are opened, so a FIFO or
// a device cannot block or flood the call.
func openRedirectIn(dir string, r shellparse.Redirect) (*os.File, error) {
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
			return nil, unwrapPathError(err)
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

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// reader and writer turn a descriptor table entry into what exec.Cmd
// takes; anything else (a here-document duplicated for writing) becomes
// the null device.
func reader(v any) io.Reader {
	if r, ok := v.(io.Reader); ok {
		return r
	}
	return nil
}

func writer(v any) io.Writer {
	switch w := v.(type) {
	case *os.File:
		return w
	case *capBuffer:
		return w
	}
	return nil
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

// capBuffer is the shell's cap on stdout and stderr: the first max bytes
// are kept, the rest read and dropped, and an "[output truncated at N
// bytes]" line marks the cut.
type capBuffer = sandbox.CapWriter

func newCapBuffer(max int) *capBuffer { return sandbox.NewCapWriter(max, sandbox.Discard, nil) }
