package process

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
)

// Defaults of a [Manager].
const (
	// DefaultTTL is how long a finished process stays listed.
	DefaultTTL = 10 * time.Minute
	// DefaultMaxLive is how many processes one session may run at once.
	DefaultMaxLive = 16
	// DefaultMaxOutputBytes is how much of each stream is kept (the
	// newest bytes).
	DefaultMaxOutputBytes = 1 << 20
	// maxTotal bounds every session's entries together, finished ones
	// included, so a client cannot grow the table without bound.
	maxTotal = 1024
)

var (
	// ErrNoProcess reports an id that the caller's session does not have.
	ErrNoProcess = errors.New("no such background process")
	// ErrTooMany reports a start beyond the session's live limit.
	ErrTooMany = errors.New("too many background processes")
	// ErrClosed reports a start after Close.
	ErrClosed = errors.New("background processes are shutting down")
	// ErrStdinClosed reports a write after stdin was closed.
	ErrStdinClosed = errors.New("the process's standard input is closed")
)

// ManagerOptions configure a [Manager]. The zero value of each field is
// its documented default.
type ManagerOptions struct {
	// TTL is how long a finished process is kept; zero means [DefaultTTL].
	TTL time.Duration
	// MaxLive bounds the running processes of one session; zero means
	// [DefaultMaxLive].
	MaxLive int
	// MaxOutputBytes is kept per stream; zero means
	// [DefaultMaxOutputBytes].
	MaxOutputBytes int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Manager holds the background processes of every session. Finished
// processes are reaped lazily, on the next call after their TTL. It is
// safe for concurrent use.
type Manager struct {
	opts ManagerOptions

	mu     sync.Mutex
	procs  map[string]*proc
	seq    int
	closed bool
	wg     sync.WaitGroup
}

// NewManager returns an empty manager.
func NewManager(opts ManagerOptions) *Manager {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxLive <= 0 {
		opts.MaxLive = DefaultMaxLive
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Manager{opts: opts, procs: map[string]*proc{}}
}

// reap drops finished processes older than the TTL; m.mu is held.
func (m *Manager) reap() {
	now := m.opts.Now()
	for id, p := range m.procs {
		if fin, _, at, _ := p.state(); fin && now.Sub(at) >= m.opts.TTL {
			delete(m.procs, id)
		}
	}
}

// start runs prog in the background for session.
func (m *Manager) start(session, line string, r runner, prog *shellparse.Program) (*proc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	m.reap()
	live := 0
	for _, p := range m.procs {
		if fin, _, _, _ := p.state(); p.session == session && !fin {
			live++
		}
	}
	if live >= m.opts.MaxLive {
		return nil, fmt.Errorf("%w: this session runs %d, the limit; wait for one to finish or kill one", ErrTooMany, live)
	}
	if len(m.procs) >= maxTotal {
		return nil, fmt.Errorf("%w: %d are kept; kill some or wait for finished ones to expire", ErrTooMany, len(m.procs))
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the standard input pipe: %w", err)
	}
	m.seq++
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{
		id: "p" + strconv.Itoa(m.seq), seq: m.seq, session: session, line: line, started: m.opts.Now(),
		stdinW: stdinW, changed: make(chan struct{}), done: make(chan struct{}), cancel: cancel,
	}
	p.stdout = newRing(m.opts.MaxOutputBytes, p.signal)
	p.stderr = newRing(m.opts.MaxOutputBytes, p.signal)
	m.procs[p.id] = p
	m.wg.Go(func() {
		defer cancel()
		p.run(ctx, r, prog, stdinR, m.opts.Now)
	})
	return p, nil
}

// get returns the session's process with id.
func (m *Manager) get(session, id string) (*proc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reap()
	p, ok := m.procs[id]
	if !ok || p.session != session {
		return nil, fmt.Errorf("%w %q in this session; list shows yours (processes live only as long as the talon that started them)", ErrNoProcess, id)
	}
	return p, nil
}

// list returns the session's processes, oldest first.
func (m *Manager) list(session string) []*proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reap()
	var out []*proc
	for _, p := range m.procs {
		if p.session == session {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Close kills every process group of every session and waits for them.
// Starts after Close fail with [ErrClosed].
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	procs := make([]*proc, 0, len(m.procs))
	for _, p := range m.procs {
		procs = append(procs, p)
	}
	m.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	m.wg.Wait()
	return nil
}

// shared is the process's manager: every profile variant and catalog
// reload of the tool uses it, so a reload never loses a running process.
var shared = struct {
	sync.Mutex
	m *Manager
}{}

func sharedManager() *Manager {
	shared.Lock()
	defer shared.Unlock()
	if shared.m == nil {
		shared.m = NewManager(ManagerOptions{})
	}
	return shared.m
}

// Shutdown kills the background processes of the process-wide manager
// that the registered tool uses. Hosts call it when they exit.
func Shutdown() error {
	shared.Lock()
	m := shared.m
	shared.Unlock()
	if m == nil {
		return nil
	}
	return m.Close()
}
