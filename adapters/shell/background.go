package shell

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
)

// runJob runs a line as a process of the caller's session: in the
// background at once (background), in the foreground until yield_ms and
// then in the background, or in the foreground on a terminal (pty). A
// line in the background has no timeout unless the call gave one.
func (s *Shell) runJob(ctx context.Context, a args, prog *shellparse.Program, plan *tool.Plan) (tool.Result, error) {
	c, _ := tool.CallFrom(ctx)
	var notify tool.Notifier
	if !s.opts.NoExitNotice {
		notify = tool.NotifierFrom(ctx)
	}
	var timeout time.Duration
	if a.timeoutSet || !a.Background && a.Yield == 0 {
		timeout = a.Timeout
	}
	j, err := s.jobs.start(jobSpec{
		session: c.SessionID, line: plan.Summary, workdir: a.workdir, prog: prog, timeout: timeout, pty: a.PTY,
		detached: a.Background, notify: notify,
		run: runner{dir: a.dir, env: s.childEnv, spawn: s.spawn},
	})
	if err != nil {
		return tool.Failure("%v; nothing started", err), nil
	}
	s.opts.Logger.Info().Str("process", j.id).Bool("pty", a.PTY).Bool("background", a.Background).
		Int("commands", len(plan.Commands)).Msg("shell line started as a process")
	if a.Background {
		return started(j), nil
	}
	var yield <-chan time.Time
	if a.Yield > 0 {
		t := time.NewTimer(a.Yield)
		defer t.Stop()
		yield = t.C
	}
	select {
	case <-j.Done():
	case <-yield:
		if j.detach() {
			head := fmt.Sprintf("%s still running after %s: it goes on in the background; poll it with the process tool: {\"action\":\"poll\",\"id\":%q}", j.id, a.Yield, j.id)
			return j.pollResult(0, head), nil
		}
		<-j.Done()
	case <-ctx.Done():
		j.Kill()
		<-j.Done()
		s.jobs.forget(j)
		res := jobResult(j, timeout)
		return res, ctx.Err()
	}
	s.jobs.forget(j)
	return jobResult(j, timeout), nil
}

// started is the result of a line sent to the background.
func started(j *Job) tool.Result {
	text := fmt.Sprintf("started %s in the background: %s\npoll it with the process tool: {\"action\":\"poll\",\"id\":%q}", j.id, j.line, j.id)
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: j.Info()}}
}

// jobResult is the result of a line that ended while the caller waited,
// shaped as the foreground's: stdout, stderr under [stderr], the status.
func jobResult(j *Job, timeout time.Duration) tool.Result {
	st := j.State()
	stdout, dropOut := readAll(j.stdout)
	stderr, dropErr := readAll(j.stderr)
	var b strings.Builder
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if dropOut > 0 {
		b.WriteString(dropMarker(dropOut))
	}
	b.WriteString(stdout)
	if stderr != "" || dropErr > 0 {
		line("[stderr]\n")
		if dropErr > 0 {
			b.WriteString(dropMarker(dropErr))
		}
		b.WriteString(stderr)
	}
	switch {
	case st.Killed:
		line("[canceled: the process groups were killed]")
	case st.TimedOut:
		line(fmt.Sprintf("[timed out after %s: the process groups were killed]", timeout))
	case st.ExitCode != 0:
		line(fmt.Sprintf("[exit status %d]", st.ExitCode))
	}
	code := st.ExitCode
	if st.Killed {
		code = -1
	}
	data := Data{ExitCode: code, Stdout: stdout, Stderr: stderr, TimedOut: st.TimedOut, Truncated: dropOut > 0 || dropErr > 0}
	text := b.String()
	if code == 0 && !st.TimedOut {
		if strings.TrimSpace(text) == "" {
			text = tool.NoOutput
		}
		return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}
	}
	return tool.Result{Error: text, Output: tool.Output{Text: text, Data: data}}
}

// readAll returns what a ring keeps and how many bytes it dropped.
func readAll(r *ring) (string, int64) {
	data, _, dropped := r.Read(0, r.max)
	return string(data), dropped
}
