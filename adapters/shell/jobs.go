package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
)

// Defaults of a [Manager].
const (
	// DefaultJobTTL is how long a finished background process stays
	// listed.
	DefaultJobTTL = 10 * time.Minute
	// DefaultMaxLive is how many background processes one session may run
	// at once.
	DefaultMaxLive = 16
	// DefaultJobOutputBytes is how much of each stream of a background
	// process is kept (the newest bytes).
	DefaultJobOutputBytes = 1 << 20
	// maxJobs bounds every session's entries together, finished ones
	// included, so a client cannot grow the table without bound.
	maxJobs = 1024
)

var (
	// ErrNoJob reports an id that the caller's session does not have.
	ErrNoJob = errors.New("no such background process")
	// ErrTooMany reports a start beyond the session's live limit.
	ErrTooMany = errors.New("too many background processes")
	// ErrClosed reports a start after [Manager.Close].
	ErrClosed = errors.New("background processes are shutting down")
	// ErrStdinClosed reports a write after standard input was closed.
	ErrStdinClosed = errors.New("the process's standard input is closed")
)

// ManagerOptions configure a [Manager]. The zero value of each field is
// its documented default.
type ManagerOptions struct {
	// TTL is how long a finished process is kept; zero means
	// [DefaultJobTTL].
	TTL time.Duration
	// MaxLive bounds the running processes of one session; zero means
	// [DefaultMaxLive].
	MaxLive int
	// MaxOutputBytes is kept per stream; zero means
	// [DefaultJobOutputBytes].
	MaxOutputBytes int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Manager holds the background processes of every session: lines the
// shell started with background or yield_ms, or to run on a terminal,
// which the process tool polls, reads, writes to and kills. Finished
// processes are reaped lazily, on the next call after their TTL. It is
// safe for concurrent use.
type Manager struct {
	opts ManagerOptions

	mu     sync.Mutex
	jobs   map[string]*Job
	seq    int
	closed bool
	wg     sync.WaitGroup
}

// NewManager returns an empty manager.
func NewManager(opts ManagerOptions) *Manager {
	if opts.TTL <= 0 {
		opts.TTL = DefaultJobTTL
	}
	if opts.MaxLive <= 0 {
		opts.MaxLive = DefaultMaxLive
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultJobOutputBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Manager{opts: opts, jobs: map[string]*Job{}}
}

// reap drops finished processes older than the TTL; m.mu is held.
func (m *Manager) reap() {
	now := m.opts.Now()
	for id, j := range m.jobs {
		if st := j.State(); st.Finished && now.Sub(st.At) >= m.opts.TTL {
			delete(m.jobs, id)
		}
	}
}

// jobSpec is what a background process runs.
type jobSpec struct {
	session string
	line    string
	workdir string
	prog    *shellparse.Program
	run     runner
	// timeout ends the whole line; zero means none.
	timeout time.Duration
	pty     bool
	// detached hands the process to the caller from the start
	// (background): its end is notified however soon it comes.
	detached bool
	// notify is told when the process ends, once it was handed to the
	// caller as a background process.
	notify tool.Notifier
}

// start runs spec in the background.
func (m *Manager) start(spec jobSpec) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	m.reap()
	live := 0
	for _, j := range m.jobs {
		if j.session == spec.session && !j.State().Finished {
			live++
		}
	}
	if live >= m.opts.MaxLive {
		return nil, fmt.Errorf("%w: this session runs %d, the limit; wait for one to finish or kill one", ErrTooMany, live)
	}
	if len(m.jobs) >= maxJobs {
		return nil, fmt.Errorf("%w: %d are kept; kill some or wait for finished ones to expire", ErrTooMany, len(m.jobs))
	}
	m.seq++
	j := &Job{
		id: "p" + strconv.Itoa(m.seq), seq: m.seq, session: spec.session, line: spec.line, workdir: spec.workdir, started: m.opts.Now(),
		pty: spec.pty, detached: spec.detached, notify: spec.notify, changed: make(chan struct{}), done: make(chan struct{}),
	}
	j.stdout = newRing(m.opts.MaxOutputBytes, j.signal)
	j.stderr = newRing(m.opts.MaxOutputBytes, j.signal)
	in, err := j.open()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if spec.timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), spec.timeout)
	}
	j.cancel = cancel
	m.jobs[j.id] = j
	now := m.opts.Now
	m.wg.Go(func() {
		defer cancel()
		j.run(ctx, spec, in, now)
	})
	return j, nil
}

// Get returns the session's process with id.
//
// # Errors
//
// An id the session does not have (never started, another session's,
// or forgotten after its TTL) wraps [ErrNoJob].
func (m *Manager) Get(session, id string) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reap()
	j, ok := m.jobs[id]
	if !ok || j.session != session {
		return nil, fmt.Errorf("%w %q in this session; list shows yours (processes live only as long as the talon that started them)", ErrNoJob, id)
	}
	return j, nil
}

// List returns the session's processes, oldest first.
func (m *Manager) List(session string) []*Job {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reap()
	var out []*Job
	for _, j := range m.jobs {
		if j.session == session {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].seq < out[k].seq })
	return out
}

// forget drops a process the caller saw finish (a run that ended within
// its yield_ms).
func (m *Manager) forget(j *Job) {
	m.mu.Lock()
	if m.jobs[j.id] == j {
		delete(m.jobs, j.id)
	}
	m.mu.Unlock()
}

// Close kills every process group of every session and waits for them.
// Starts after Close fail with [ErrClosed].
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	jobs := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		jobs = append(jobs, j)
	}
	m.mu.Unlock()
	for _, j := range jobs {
		j.Kill()
	}
	m.wg.Wait()
	return nil
}

// shared is the process's manager: every profile variant and catalog
// reload of the shell and process tools uses it, so a reload never loses
// a running process.
var shared = struct {
	sync.Mutex
	m *Manager
}{}

// SharedManager returns the process-wide manager the registered shell
// and process tools use.
func SharedManager() *Manager {
	shared.Lock()
	defer shared.Unlock()
	if shared.m == nil {
		shared.m = NewManager(ManagerOptions{})
	}
	return shared.m
}

// Shutdown kills the background processes of the process-wide manager.
// Hosts call it when they exit.
func Shutdown() error {
	shared.Lock()
	m := shared.m
	shared.Unlock()
	if m == nil {
		return nil
	}
	return m.Close()
}

// stdinPipe is the write end of a background line's standard input and
// the read end its first command gets.
func stdinPipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("create the standard input pipe: %w", err)
	}
	return r, w, nil
}
