package wasm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/talonhq/talon/plugins/internal/guestlog"
)

// instance is one instantiated guest. It serves one call at a time.
type instance struct {
	mod                         api.Module
	mem                         api.Memory
	alloc, free, describe, call api.Function
	version                     api.Function
	out                         *guestlog.Writer
	baseline                    uint32 // memory size after initialization
	reclaim                     *reclaimer
	calls                       int
	pending                     []byte // a host function's response, until take
	stack                       [2]uint64
}

// newInstance instantiates the compiled module, compiling it first when
// this is the plugin's first instance, and runs _initialize under the
// plugin's deadline.
func (p *plugin) newInstance(ctx context.Context) (*instance, error) {
	if err := p.prepare(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.limits.Timeout())
	defer cancel()
	w := guestlog.New(p.log, p.attr.String())
	inst := &instance{out: w, reclaim: p.reclaim}
	ctx = withState(ctx, &callState{p: p, inst: inst})
	mod, err := p.rt.InstantiateModule(ctx, p.compiled, p.moduleConfig(w))
	if err != nil {
		return nil, p.guestError(ctx, "start", err)
	}
	inst.mod = mod
	inst.mem = mod.Memory()
	inst.alloc = mod.ExportedFunction(exportAlloc)
	inst.free = mod.ExportedFunction(exportFree)
	inst.describe = mod.ExportedFunction(exportDescribe)
	inst.call = mod.ExportedFunction(exportCall)
	inst.version = mod.ExportedFunction(exportABIVersion)
	if init := mod.ExportedFunction(exportInitialize); init != nil {
		if _, err := init.Call(ctx); err != nil {
			_ = mod.Close(context.WithoutCancel(ctx))
			return nil, p.guestError(ctx, exportInitialize, err)
		}
	}
	w.Flush()
	inst.baseline = inst.mem.Size()
	return inst, nil
}

// close releases the instance's module and hands its memory to the
// reclaimer.
func (i *instance) close(ctx context.Context) {
	i.out.Flush()
	buf, _ := i.mem.Read(0, i.mem.Size())
	_ = i.mod.Close(context.WithoutCancel(ctx))
	// Contexts of past calls (and timers the runtime has yet to drop) may
	// still point at this instance; without these references its memory
	// is garbage at once.
	i.mod, i.mem, i.pending = nil, nil, nil
	i.alloc, i.free, i.describe, i.call, i.version = nil, nil, nil, nil, nil
	if i.reclaim != nil {
		i.reclaim.closed(buf)
	}
}

// maxGrowth is how much an instance's memory may grow past its size after
// initialization and still go back to the pool.
const maxGrowth = 32 << 20

// grown reports whether the instance's memory grew by maxGrowth or more
// since it was initialized: a guest that keeps memory it no longer uses is
// replaced rather than kept large, so an idle pool holds at most
// max_instances times (initial size + 32 MiB).
func (i *instance) grown() bool {
	return i.mem.Size()-i.baseline >= maxGrowth
}

// invoke runs talon_call with doc and returns the response document, at
// most limit bytes. Any error leaves the instance unusable.
func (i *instance) invoke(ctx context.Context, doc []byte, limit int) ([]byte, error) {
	ptr, err := i.write(ctx, doc)
	if err != nil {
		return nil, err
	}
	i.stack[0], i.stack[1] = uint64(ptr), uint64(len(doc))
	if err := i.call.CallWithStack(ctx, i.stack[:]); err != nil {
		return nil, err
	}
	packed := i.stack[0]
	out, err := i.read(packed, limit)
	if err != nil {
		return nil, err
	}
	i.release(ctx, ptr)
	i.release(ctx, uint32(packed>>32))
	return out, nil
}

// write copies b into guest memory allocated with talon_alloc.
func (i *instance) write(ctx context.Context, b []byte) (uint32, error) {
	i.stack[0] = uint64(len(b))
	if err := i.alloc.CallWithStack(ctx, i.stack[:1]); err != nil {
		return 0, err
	}
	ptr := uint32(i.stack[0])
	if ptr == 0 {
		return 0, fmt.Errorf("%w: talon_alloc(%d) returned 0", ErrBadResponse, len(b))
	}
	if !i.mem.Write(ptr, b) {
		return 0, fmt.Errorf("%w: talon_alloc(%d) returned %d, outside its %d bytes of memory", ErrBadResponse, len(b), ptr, i.mem.Size())
	}
	return ptr, nil
}

// read copies the document a packed pointer/length names out of guest
// memory.
func (i *instance) read(packed uint64, limit int) ([]byte, error) {
	ptr, n, err := span(packed, i.mem.Size(), limit)
	if err != nil {
		return nil, err
	}
	view, ok := i.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: bytes %d..%d lie outside its memory", ErrBadResponse, ptr, ptr+n)
	}
	return append([]byte(nil), view...), nil
}

// release hands a buffer back to the guest's allocator. A guest whose
// talon_free fails is found out by the next call.
func (i *instance) release(ctx context.Context, ptr uint32) {
	if ptr == 0 {
		return
	}
	i.stack[0] = uint64(ptr)
	_ = i.free.CallWithStack(ctx, i.stack[:1])
}

// guestError explains an error from running guest code: the deadline, a
// cancellation, an exit (Go's runtime exits on a panic or when memory runs
// out) or a trap.
func (p *plugin) guestError(ctx context.Context, what string, err error) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return fmt.Errorf("%s: %w after %s (limits.timeout_ms); the instance was discarded", what, ErrTimeout, p.limits.Timeout())
		case sys.ExitCodeContextCanceled:
			return fmt.Errorf("%s: %w", what, context.Canceled)
		}
		return fmt.Errorf("%s: %w: the guest exited with code %d%s", what, ErrTrap, exit.ExitCode(), p.memoryHint())
	}
	if errors.Is(err, ErrBadResponse) || errors.Is(err, ErrOutputTooLarge) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w after %s (limits.timeout_ms)", what, ErrTimeout, p.limits.Timeout())
	}
	msg, _, _ := strings.Cut(err.Error(), "\n") // not wazero's stack trace
	msg = strings.TrimSuffix(msg, " (recovered by wazero)")
	return fmt.Errorf("%s: %w: %s%s", what, ErrTrap, msg, p.memoryHint())
}

// memoryHint is appended to a crash: a guest that ran out of memory
// usually exits or traps rather than saying so.
func (p *plugin) memoryHint() string {
	return fmt.Sprintf(" (memory limit %d MiB, limits.max_memory_mb)", p.limits.MemoryMB())
}
