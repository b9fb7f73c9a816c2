package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxOutput caps each of stdout and stderr when a [Cmd] leaves its
// cap at zero: 16 MiB.
const DefaultMaxOutput = 16 << 20

// drainDelay bounds how long output is still read after a process exited
// and its group was killed, for a descendant that left the group and keeps
// a pipe open.
const drainDelay = time.Second

var (
	// ErrNoCommand reports a [Cmd] without an argv.
	ErrNoCommand = errors.New("no command to run")
	// ErrTalonBinary reports a tool process that would be talon itself:
	// approvals, policy and the sandbox are for people to change, never
	// for the tools they supervise.
	ErrTalonBinary = errors.New("talon does not run itself as a tool process: approvals, policy and the sandbox are changed by a person at a terminal, not by a tool")
)

// Command returns a command for name and its arguments, prepared to start
// in a process group of its own. It is for libraries that start the
// *exec.Cmd themselves (an MCP stdio transport); code that starts the
// command calls [Start]. name is looked up in talon's PATH as
// [exec.Command] does.
//
// When the sandbox is active the command is routed through the helper
// here, since its starter is not this package: set Env, Dir and the
// descriptors afterwards as usual, but not Path or Args. Under [Required]
// without Landlock the command's Err is set, so starting it fails.
func Command(name string, arg ...string) *exec.Cmd {
	cmd := exec.Command(name, arg...)
	prepare(cmd)
	if tmp, err := wrap(cmd); err != nil {
		cmd.Err = err
	} else if tmp != "" {
		eager.Store(cmd, struct{}{})
	}
	return cmd
}

// CommandContext is [Command] with a context: when ctx is done before the
// command finishes, its whole process group is killed (the default of
// [exec.CommandContext] kills the direct child only).
func CommandContext(ctx context.Context, name string, arg ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, arg...)
	cmd.Cancel = func() error { return KillGroup(cmd.Process) }
	prepare(cmd)
	return cmd
}

// Start starts cmd in a process group of its own, under the sandbox when
// it is active. It is the one place tool work starts processes; cmd may
// come from anywhere, and is prepared again (which is harmless) before it
// starts. Its private temp dir is removed once the process has exited.
//
// # Errors
//
// Under [Required] without Landlock, Start returns [ErrUnsandboxed] and
// nothing runs. A program that is talon's own executable is refused with
// [ErrTalonBinary], in every mode.
func Start(cmd *exec.Cmd) error {
	st := active.Load()
	if _, done := eager.Load(cmd); !done && cmd.Process == nil && cmd.Err == nil {
		if err := refuseTalon(st, absCmdPath(cmd)); err != nil {
			return err
		}
	}
	prepare(cmd)
	tmp, err := wrapWith(st, cmd)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		removeTemp(tmp)
		return err
	}
	if tmp != "" {
		removeAfter(cmd.Process, tmp)
	}
	return nil
}

// startReniced starts cmd and then raises its process group's niceness by
// n: the way [StartNice] works where the child cannot be forked niced.
func startReniced(cmd *exec.Cmd, n int) error {
	if err := Start(cmd); err != nil {
		return err
	}
	Renice(cmd.Process, n)
	return nil
}

// Overflow says what happens when a child writes more than its cap.
type Overflow int

const (
	// Discard keeps the first max bytes, reads and counts the rest, and
	// lets the child run on. The zero value.
	Discard Overflow = iota
	// Kill keeps the first max bytes like Discard and calls the overflow
	// function once, which kills the child's process group.
	Kill
)

// String returns "discard" or "kill".
func (o Overflow) String() string {
	if o == Kill {
		return "kill"
	}
	return "discard"
}

// CapWriter keeps the first max bytes written to it and counts the rest.
// Every write reports success, so a child is neither blocked on a full
// pipe nor killed by a closed one: what it says beyond the cap is read and
// dropped. It is safe for concurrent writers.
type CapWriter struct {
	mu         sync.Mutex
	max        int
	policy     Overflow
	onOverflow func()
	buf        []byte
	dropped    int64
	fired      bool
}

// NewCapWriter returns a writer that keeps at most max bytes (a negative
// max keeps nothing). With [Kill], onOverflow is called once, outside the
// writer's lock, by the first write that goes over the cap; with
// [Discard] it is ignored and may be nil.
func NewCapWriter(max int, policy Overflow, onOverflow func()) *CapWriter {
	return &CapWriter{max: max, policy: policy, onOverflow: onOverflow}
}

// Write keeps what fits under the cap and drops the rest.
func (w *CapWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	keep := min(max(w.max-len(w.buf), 0), len(p))
	w.buf = append(w.buf, p[:keep]...)
	w.dropped += int64(len(p) - keep)
	fire := w.dropped > 0 && !w.fired && w.policy == Kill && w.onOverflow != nil
	if fire {
		w.fired = true
	}
	w.mu.Unlock()
	if fire {
		w.onOverflow()
	}
	return len(p), nil
}

// Overflowed reports whether anything was written over the cap.
func (w *CapWriter) Overflowed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped > 0
}

// Dropped returns how many bytes were written over the cap.
func (w *CapWriter) Dropped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Kept returns the bytes kept, without any marker.
func (w *CapWriter) Kept() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// String returns the bytes kept followed, when something was dropped, by a
// line "[output truncated at N bytes]".
func (w *CapWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(w.buf)
	if w.dropped == 0 {
		return s
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + "[output truncated at " + strconv.Itoa(w.max) + " bytes]\n"
}

// Cmd is one program for [Run]. The zero value of each field is its
// documented default.
type Cmd struct {
	// Argv is the argument vector; Argv[0] is the name the program sees.
	Argv []string
	// Binary is the program to execute; "" means Argv[0] looked up in
	// talon's PATH. Callers that resolved the binary ahead of time (to
	// show it to an approver) pass that path here.
	Binary string
	// Dir is the working directory; "" means talon's.
	Dir string
	// Env is the child's whole environment. nil means an empty one: talon
	// never hands its own environment down implicitly.
	Env []string
	// Stdin is the child's standard input; nil means the null device. A
	// reader that is not an *os.File is copied through a pipe and should
	// end: Run waits for the copy.
	Stdin io.Reader
	// Timeout kills the process group when it expires; zero means none.
	Timeout time.Duration
	// MaxStdout and MaxStderr cap each stream; zero means
	// [DefaultMaxOutput].
	MaxStdout, MaxStderr int
	// Overflow is what a stream over its cap does: [Discard] (default)
	// drops the rest, [Kill] kills the process group.
	Overflow Overflow
}

// Outcome is what running a [Cmd] produced.
type Outcome struct {
	// ExitCode is the exit status, 128+N for a process ended by signal N
	// (so 137 after a kill), and -1 when the program did not start.
	ExitCode int
	// Stdout and Stderr are the bytes kept under the caps.
	Stdout, Stderr string
	// TimedOut is set when Timeout expired and the group was killed.
	TimedOut bool
	// Overflowed is set when a stream went over its cap; OverflowStream
	// names the first ("stdout" or "stderr"). Under [Kill] the group was
	// killed.
	Overflowed     bool
	OverflowStream string
	// Canceled is set when the caller's context ended the run.
	Canceled bool
	// Err is set when the program could not be started or waited for.
	Err error
	// Duration is the wall time from start to the end of the output.
	Duration time.Duration
}

// Run runs one program to completion in a process group of its own and
// collects its output under the caps. When the timeout expires, the
// caller's context is done, or (with [Kill]) a stream goes over its cap,
// the whole group is killed, children and grandchildren included; after
// the program exits, whatever is left of its group is killed too, so
// nothing it started outlives the call.
//
// # Errors
//
// Run never returns an error of its own: a program that cannot start has
// Outcome.Err set and ExitCode -1 ([ErrTalonBinary] for talon's own
// executable, in every mode).
func Run(ctx context.Context, c Cmd) Outcome { return runWith(ctx, c, active.Load()) }

func runWith(ctx context.Context, c Cmd, st *state) Outcome {
	return runCmd(ctx, c, st, false)
}

// runCmd is Run under st; probe lets talon's own executable run, for the
// sandbox's own proofs.
func runCmd(ctx context.Context, c Cmd, st *state, probe bool) Outcome {
	start := time.Now()
	out := Outcome{ExitCode: -1}
	if len(c.Argv) == 0 {
		out.Err = fmt.Errorf("%w: give the program and its arguments in Argv", ErrNoCommand)
		return out
	}
	bin := c.Binary
	if bin == "" {
		p, err := exec.LookPath(c.Argv[0])
		if err != nil {
			out.Err = err
			return out
		}
		bin = p
	}
	if !probe {
		abs := bin
		if !filepath.IsAbs(abs) && c.Dir != "" {
			abs = filepath.Join(c.Dir, abs)
		}
		if err := refuseTalon(st, abs); err != nil {
			out.Err = err
			return out
		}
	}
	runCtx, cancelRun := ctx, context.CancelFunc(func() {})
	if c.Timeout > 0 {
		runCtx, cancelRun = context.WithTimeout(ctx, c.Timeout)
	}
	defer cancelRun()
	killCtx, kill := context.WithCancel(runCtx)
	defer kill()

	var overflow atomic.Pointer[string]
	onOverflow := func(stream string) func() {
		return func() {
			overflow.CompareAndSwap(nil, &stream)
			kill()
		}
	}
	stdout := NewCapWriter(orDefault(c.MaxStdout), c.Overflow, onOverflow("stdout"))
	stderr := NewCapWriter(orDefault(c.MaxStderr), c.Overflow, onOverflow("stderr"))

	cmd := exec.CommandContext(killCtx, bin)
	cmd.Args = slices.Clone(c.Argv)
	cmd.Dir = c.Dir
	cmd.Env = slices.Clone(c.Env) // the caller's slice may be shared by concurrent runs
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Cancel = func() error { return KillGroup(cmd.Process) }
	prepare(cmd)
	tmp, err := wrapWith(st, cmd)
	if err != nil {
		out.Err = err
		out.Duration = time.Since(start)
		return out
	}
	defer removeTemp(tmp)

	p, err := newPipes(c.Stdin)
	if err != nil {
		out.Err = fmt.Errorf("create pipes for %s: %w", bin, err)
		return out
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.childStdin(c.Stdin), p.outW, p.errW
	err = cmd.Start()
	p.closeChildEnds()
	if err != nil {
		p.closeAll()
		out.Err = fmt.Errorf("start %s: %w", bin, err)
		out.Canceled = ctx.Err() != nil
		out.TimedOut = !out.Canceled && runCtx.Err() != nil
		out.Duration = time.Since(start)
		return out
	}
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(stdout, p.outR) })
	wg.Go(func() { _, _ = io.Copy(stderr, p.errR) })
	if p.inW != nil {
		wg.Go(func() {
			_, _ = io.Copy(p.inW, c.Stdin)
			_ = p.inW.Close()
		})
	}
	waitErr := cmd.Wait()
	out.Canceled = ctx.Err() != nil
	out.TimedOut = !out.Canceled && errors.Is(runCtx.Err(), context.DeadlineExceeded)
	_ = KillGroup(cmd.Process)
	sweep()
	drain(&wg, p)

	out.Stdout, out.Stderr = stdout.Kept(), stderr.Kept()
	if s := overflow.Load(); s != nil {
		out.Overflowed, out.OverflowStream = true, *s
	} else if stdout.Overflowed() || stderr.Overflowed() {
		out.Overflowed, out.OverflowStream = true, "stdout"
		if !stdout.Overflowed() {
			out.OverflowStream = "stderr"
		}
	}
	switch st := cmd.ProcessState; {
	case st == nil:
		out.Err = waitErr
	default:
		if n, ok := SignalStatus(st); ok {
			out.ExitCode = n
		} else {
			out.ExitCode = st.ExitCode()
		}
	}
	out.Duration = time.Since(start)
	return out
}

// drain waits for the copiers, closing the pipes if a descendant that left
// the group still holds them open after drainDelay.
func drain(wg *sync.WaitGroup, p *pipes) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(drainDelay)
	select {
	case <-done:
	case <-t.C:
		p.closeAll()
		<-done
	}
	t.Stop()
	p.closeAll()
}

func orDefault(n int) int {
	if n == 0 {
		return DefaultMaxOutput
	}
	return n
}

// pipes are the descriptors between Run and its child.
type pipes struct {
	outR, outW, errR, errW *os.File
	inR, inW               *os.File
}

func newPipes(stdin io.Reader) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if _, isFile := stdin.(*os.File); stdin != nil && !isFile {
		if p.inR, p.inW, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	return p, nil
}

// childStdin is what the child reads: the caller's file, the pipe, or nil
// (the null device).
func (p *pipes) childStdin(stdin io.Reader) io.Reader {
	if p.inR != nil {
		return p.inR
	}
	if f, ok := stdin.(*os.File); ok {
		return f
	}
	return nil
}

func (p *pipes) closeChildEnds() {
	closeFile(p.outW)
	closeFile(p.errW)
	closeFile(p.inR)
}

func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.outR, p.outW, p.errR, p.errW, p.inR, p.inW} {
		closeFile(f)
	}
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
