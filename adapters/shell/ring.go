package shell

import (
	"fmt"
	"sync"
)

// ring keeps the newest max bytes written to it and counts everything, so
// offsets stay absolute: byte n of the stream is byte n forever, whether
// or not it is still kept. Byte n lives at buf[n % max]; the buffer grows
// to max as output arrives and is then overwritten in place. It is safe
// for concurrent use.
type ring struct {
	mu     sync.Mutex
	max    int
	buf    []byte
	total  int64 // bytes ever written
	notify func()
}

func newRing(max int, notify func()) *ring { return &ring{max: max, notify: notify} }

// Write keeps p, overwriting the oldest bytes beyond the cap. It never
// fails, so a child is never blocked or killed by its own output.
func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	if len(p) > r.max {
		r.total += int64(len(p) - r.max)
		p = p[len(p)-r.max:]
	}
	if grow := min(int64(r.max), r.total+int64(len(p))) - int64(len(r.buf)); grow > 0 {
		r.buf = append(r.buf, make([]byte, grow)...)
	}
	for len(p) > 0 {
		pos := int(r.total % int64(r.max))
		c := copy(r.buf[pos:], p)
		p = p[c:]
		r.total += int64(c)
	}
	r.mu.Unlock()
	if r.notify != nil {
		r.notify()
	}
	return n, nil
}

// Total returns how many bytes were ever written.
func (r *ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Read returns up to limit bytes from offset off, the offset the next
// read should start at, and how many bytes before the returned ones were
// dropped (asked for but no longer kept).
func (r *ring) Read(off int64, limit int) (data []byte, next int64, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(r.total-int64(r.max), 0)
	if off < start {
		dropped = start - off
		off = start
	}
	if off >= r.total {
		return nil, r.total, dropped
	}
	n := int(min(int64(limit), r.total-off))
	data = make([]byte, 0, n)
	for len(data) < n {
		pos := int((off + int64(len(data))) % int64(r.max))
		end := min(len(r.buf), pos+n-len(data))
		data = append(data, r.buf[pos:end]...)
	}
	return data, off + int64(n), dropped
}

// dropMarker is the line that stands for output no longer kept.
func dropMarker(n int64) string {
	return fmt.Sprintf("[%d earlier bytes dropped: only the newest output is kept]\n", n)
}
