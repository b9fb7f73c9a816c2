package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// Job is one background command line: started with background or
// yield_ms, or run on a terminal. Its output is kept in two rings of the
// newest bytes; a line on a terminal has one stream, stdout, cleaned of
// control sequences. It is safe for concurrent use.
type Job struct {
	id      string
	seq     int
	session string
	line    string
	workdir string
	started time.Time
	pty     bool
	stdout  *ring
	stderr  *ring
	notify  tool.Notifier

	mu       sync.Mutex
	cmds     []*exec.Cmd // started and not yet waited for
	killed   bool
	timedOut bool
	detached bool // handed to the caller as a background process
	exitCode int
	finished time.Time
	changed  chan struct{} // closed and replaced on every change
	done     chan struct{}
	// cursors of Poll, per stream.
	pollOut, pollErr int64

	inMu   sync.Mutex
	stdinW *os.File // the pipe's write end, or the terminal; nil once closed

	cancel context.CancelFunc
}

// runner starts the commands of a program.
type runner struct {
	dir   string
	env   func(shellparse.Command) []string
	spawn func(cmd *exec.Cmd, nice int) error
}

// JobState is where a [Job] is.
type JobState struct {
	Finished bool
	// ExitCode is the status of the last command, 128+N for signal N;
	// meaningful once Finished.
	ExitCode int
	// At is when it finished.
	At time.Time
	// Killed is set when kill (or Close) ended it, TimedOut when its
	// timeout_seconds did.
	Killed, TimedOut bool
}

// ID returns the process id the caller uses ("p3").
func (j *Job) ID() string { return j.id }

// Line returns the canonical command line that runs.
func (j *Job) Line() string { return j.line }

// PTY reports a line that runs on a terminal.
func (j *Job) PTY() bool { return j.pty }

// Started returns when the line started.
func (j *Job) Started() time.Time { return j.started }

// Done is closed once the line's last command exited.
func (j *Job) Done() <-chan struct{} { return j.done }

// State returns where the line is.
func (j *Job) State() JobState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return JobState{Finished: !j.finished.IsZero(), ExitCode: j.exitCode, At: j.finished, Killed: j.killed, TimedOut: j.timedOut}
}

// signal wakes every poll waiting for a change.
func (j *Job) signal() {
	j.mu.Lock()
	close(j.changed)
	j.changed = make(chan struct{})
	j.mu.Unlock()
}

// Changes returns a channel closed at the next change: output, or the
// end of the line.
func (j *Job) Changes() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.changed
}

// detach marks the line as handed to the caller as a background process,
// so its end is notified. It reports false when the line already
// finished.
func (j *Job) detach() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.finished.IsZero() {
		return false
	}
	j.detached = true
	return true
}

// open makes the line's standard input: a pipe, or a terminal whose
// other side the line's command gets.
func (j *Job) open() (*os.File, error) {
	if j.pty {
		master, slave, err := openTerminal()
		if err != nil {
			return nil, err
		}
		j.stdinW = master
		return slave, nil
	}
	r, w, err := stdinPipe()
	if err != nil {
		return nil, err
	}
	j.stdinW = w
	return r, nil
}

// run executes the program's steps left to right, "&&" and "||" deciding
// by the last status, records the final status and tells the caller when
// it was detached. It returns when the last command exited.
func (j *Job) run(ctx context.Context, spec jobSpec, in *os.File, now func() time.Time) {
	var reader sync.WaitGroup
	if j.pty {
		// The terminal's output is one stream; what the line writes to it
		// is cleaned of control sequences for the model.
		master := j.stdinW
		clean := newVTCleaner(j.stdout)
		reader.Go(func() {
			_, _ = io.Copy(clean, master)
			clean.Flush()
		})
	}
	status := 0
	for _, st := range spec.prog.Steps {
		if ctx.Err() != nil || j.isKilled() {
			break
		}
		if st.Op == "&&" && status != 0 || st.Op == "||" && status == 0 {
			continue
		}
		status = j.pipeline(ctx, spec.run, st.Pipeline, in)
	}
	_ = in.Close()
	if j.pty {
		// The terminal reaches end of file once nothing holds its other
		// side; something that left the group may, for a while.
		if !waitTimeout(&reader, waitDelay) {
			j.closeInput()
			reader.Wait()
		}
	}
	j.closeInput()
	j.mu.Lock()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !j.killed {
		j.timedOut = true
		status = statusTimedOut
	}
	if j.killed && status == 0 {
		status = 128 + 9
	}
	j.exitCode = status
	j.finished = now()
	notify := j.detached && j.notify != nil
	j.mu.Unlock()
	close(j.done)
	j.signal()
	if notify {
		j.notify(j.exitNotice())
	}
}

// exitNotice is what the caller is told when a detached line ends.
func (j *Job) exitNotice() tool.Notice {
	st := j.State()
	status := "exited with status " + strconv.Itoa(st.ExitCode)
	switch {
	case st.Killed:
		status = "was killed (status " + strconv.Itoa(st.ExitCode) + ")"
	case st.TimedOut:
		status = "timed out (status " + strconv.Itoa(st.ExitCode) + ")"
	}
	level := tool.NoticeInfo
	if st.ExitCode != 0 {
		level = tool.NoticeWarning
	}
	return tool.Notice{
		Level:  level,
		Logger: "talon.process",
		Text:   fmt.Sprintf("background process %s %s: %s", j.id, status, j.line),
		Data: map[string]any{
			"process": j.id, "status": exitStatusWord(st), "exit_code": st.ExitCode, "command": j.line,
			"stdout_bytes": j.stdout.Total(), "stderr_bytes": j.stderr.Total(),
		},
	}
}

func exitStatusWord(st JobState) string {
	switch {
	case st.Killed:
		return "killed"
	case st.TimedOut:
		return "timed_out"
	}
	return "exited"
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// closeInput closes the write end of standard input (the terminal, for a
// line on one).
func (j *Job) closeInput() {
	j.inMu.Lock()
	if j.stdinW != nil {
		_ = j.stdinW.Close()
		j.stdinW = nil
	}
	j.inMu.Unlock()
}

func (j *Job) isKilled() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.killed
}

// Kill ends every process group of the line and stops it from starting
// more. It reports whether the line was still running.
func (j *Job) Kill() bool {
	j.mu.Lock()
	running := j.finished.IsZero()
	if running {
		j.killed = true
	}
	cmds := slices.Clone(j.cmds)
	j.mu.Unlock()
	for _, c := range cmds {
		_ = sandbox.KillGroup(c.Process)
	}
	if j.cancel != nil {
		j.cancel()
	}
	return running
}

// pipeline starts every command of one pipeline, each in a process group
// of its own, and returns the last command's status.
func (j *Job) pipeline(ctx context.Context, r runner, cmds []shellparse.Command, stdin *os.File) int {
	type started struct {
		cmd    *exec.Cmd
		ctx    context.Context
		cancel context.CancelFunc
		status int
	}
	list := make([]*started, len(cmds))
	in := stdin
	for i, c := range cmds {
		var next, pipeW *os.File
		var out io.Writer = j.stdout
		if j.pty {
			out = stdin // the terminal
		}
		if i < len(cmds)-1 {
			pr, pw, err := os.Pipe()
			if err != nil {
				fmt.Fprintf(j.stderr, "talon: cannot create a pipe: %v\n", err)
				list[i] = &started{status: statusCannotRun}
				continue
			}
			next, pipeW, out = pr, pw, pw
		}
		s := &started{ctx: ctx}
		list[i] = s
		s.cmd, s.status = j.start(ctx, r, c, in, out, &s.ctx, &s.cancel)
		if in != stdin {
			_ = in.Close()
		}
		closeFile(pipeW)
		in = next
	}
	if in != stdin {
		closeFile(in)
	}
	status := 0
	for _, s := range list {
		status = j.wait(ctx, s.cmd, s.ctx, s.cancel, s.status)
	}
	return status
}

// start sets up one command's descriptors and spawns it; a failure is
// reported on stderr as a shell would and gives the command a status.
func (j *Job) start(ctx context.Context, r runner, c shellparse.Command, stdin *os.File, stdout io.Writer, cctx *context.Context, cancel *context.CancelFunc) (*exec.Cmd, int) {
	var fds [3]any
	if stdin != nil {
		fds[0] = stdin
	}
	fds[1], fds[2] = stdout, j.stderr
	if j.pty {
		fds[2] = stdin // the terminal
	}
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			closeFile(f)
		}
	}()
	errOut := j.stderr
	if j.pty {
		errOut = j.stdout
	}
	for _, rd := range c.Redirects {
		if rd.Fd < 0 || rd.Fd > 2 {
			fmt.Fprintf(errOut, "talon: descriptor %d cannot be redirected\n", rd.Fd)
			return nil, statusRedirError
		}
		switch rd.Op {
		case ">", ">>", "<":
			f, err := openRedirectIn(r.dir, rd)
			if err != nil {
				fmt.Fprintf(errOut, "talon: %s: %v\n", rd.Target, err)
				return nil, statusRedirError
			}
			opened = append(opened, f)
			fds[rd.Fd] = f
		case ">&":
			n, err := strconv.Atoi(rd.Target)
			if err != nil || n < 0 || n > 2 {
				fmt.Fprintf(errOut, "talon: descriptor %s cannot be duplicated\n", rd.Target)
				return nil, statusRedirError
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
	cmd.Stdout, cmd.Stderr = jobWriter(fds[1]), jobWriter(fds[2])
	cmd.WaitDelay = waitDelay
	dieWithParent(cmd)
	if j.pty {
		onTerminal(cmd)
	}
	j.mu.Lock()
	if j.killed {
		j.mu.Unlock()
		return nil, 128 + 9
	}
	err := r.spawn(cmd, c.Nice)
	if err == nil {
		j.cmds = append(j.cmds, cmd)
	}
	j.mu.Unlock()
	if err != nil {
		fmt.Fprintf(errOut, "talon: %s: %v\n", c.Argv[0], err)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, statusNotFound
		}
		return nil, statusCannotRun
	}
	return cmd, 0
}

// wait waits for one command, kills what is left of its group, and
// returns its status.
func (j *Job) wait(parent context.Context, cmd *exec.Cmd, ctx context.Context, cancel context.CancelFunc, status int) int {
	if cancel != nil {
		defer cancel()
	}
	if cmd == nil {
		return status
	}
	err := cmd.Wait()
	_ = sandbox.KillGroup(cmd.Process)
	j.mu.Lock()
	j.cmds = slices.DeleteFunc(j.cmds, func(c *exec.Cmd) bool { return c == cmd })
	j.mu.Unlock()
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

func jobWriter(v any) io.Writer {
	switch w := v.(type) {
	case *os.File:
		return w
	case *ring:
		return w
	}
	return nil
}

// Write sends text to the line's standard input (its terminal, for a
// line on one); eof closes it afterwards. A write blocks at most 5 s on
// a line that stopped reading.
//
// # Errors
//
// After eof, or once the line ended, it wraps [ErrStdinClosed].
func (j *Job) Write(text string, eof bool) error {
	j.inMu.Lock()
	defer j.inMu.Unlock()
	if j.stdinW == nil {
		return fmt.Errorf("%s: %w", j.id, ErrStdinClosed)
	}
	if text != "" {
		_ = j.stdinW.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := j.stdinW.WriteString(text); err != nil {
			return fmt.Errorf("%s: write to standard input: %w", j.id, err)
		}
	}
	if eof {
		if j.pty {
			// A terminal has no end of file to close: ^D at the start of
			// a line is how a program on it reads one.
			_, _ = j.stdinW.WriteString("\x04")
			return nil
		}
		_ = j.stdinW.Close()
		j.stdinW = nil
	}
	return nil
}

// output returns what the line wrote since the previous poll, up to
// limit bytes per stream, and moves the poll cursors past it; dropped
// counts bytes no longer kept.
func (j *Job) output(limit int) (out, errb []byte, dropOut, dropErr int64, more bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var nextOut, nextErr int64
	out, nextOut, dropOut = j.stdout.Read(j.pollOut, limit)
	errb, nextErr, dropErr = j.stderr.Read(j.pollErr, limit)
	j.pollOut, j.pollErr = nextOut, nextErr
	return out, errb, dropOut, dropErr, nextOut < j.stdout.Total() || nextErr < j.stderr.Total()
}

// pending reports output not yet polled.
func (j *Job) pending() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stdout.Total() > j.pollOut || j.stderr.Total() > j.pollErr
}
