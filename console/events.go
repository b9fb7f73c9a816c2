package console

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/history"
)

// subscriberBuffer is how many events an event stream may fall behind
// before it is dropped; the browser then reconnects and starts from a
// fresh snapshot.
const subscriberBuffer = 256

// pingEvery keeps idle event streams open through proxies and finds
// browsers that went away.
const pingEvery = 25 * time.Second

// feedEvent is one thing that happened: an approval came or went, or a
// call finished.
type feedEvent struct {
	approval *approval.Event
	call     *history.Record
}

type subscriber struct {
	ch   chan feedEvent
	done chan struct{}
	once sync.Once
}

func (s *subscriber) drop() { s.once.Do(func() { close(s.done) }) }

// broker hands every event to every open event stream without ever
// blocking the queue or the runtime: a stream that falls behind is
// dropped.
type broker struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

func (b *broker) add() *subscriber {
	s := &subscriber{ch: make(chan feedEvent, subscriberBuffer), done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.drop()
		return s
	}
	b.subs[s] = struct{}{}
	return s
}

func (b *broker) remove(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.drop()
}

func (b *broker) publish(e feedEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- e:
		default:
			delete(b.subs, s)
			s.drop()
		}
	}
}

// call is the history's subscriber.
func (b *broker) call(r history.Record) { b.publish(feedEvent{call: &r}) }

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		delete(b.subs, s)
		s.drop()
	}
}

// onApproval is the queue's subscriber: it remembers how a request left,
// for a late answer to be told, and passes the change on.
func (c *Console) onApproval(ev approval.Event) {
	if ev.Kind != approval.Added {
		c.gone.add(ev, c.now())
	}
	c.feed.publish(feedEvent{approval: &ev})
}

// outcome is how an approval left the queue.
type outcome struct {
	Tool   string
	Kind   approval.EventKind
	Answer approval.Answer
	At     time.Time
}

// outcomes remembers how the last n approvals left the queue.
type outcomes struct {
	mu    sync.Mutex
	n     int
	order []string
	byID  map[string]outcome
}

func newOutcomes(n int) *outcomes { return &outcomes{n: n, byID: map[string]outcome{}} }

func (o *outcomes) add(ev approval.Event, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := ev.Pending.ID
	if _, ok := o.byID[id]; !ok {
		o.order = append(o.order, id)
	}
	o.byID[id] = outcome{Tool: ev.Pending.Request.Tool, Kind: ev.Kind, Answer: ev.Answer, At: at}
	for len(o.order) > o.n {
		delete(o.byID, o.order[0])
		o.order = o.order[1:]
	}
}

func (o *outcomes) get(id string) (outcome, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out, ok := o.byID[strings.ToLower(id)]
	return out, ok
}

// events streams server-sent events to an open page: for the Approvals
// page the waiting calls (a snapshot, then every change), for the Calls
// page each finished call that passes the page's filter. Rows arrive
// rendered, in the page's language, with the page's CSRF token.
func (c *Console) events(w http.ResponseWriter, r *http.Request, v *view) {
	fl, ok := w.(http.Flusher)
	if !ok {
		c.fail(w, r, v, http.StatusInternalServerError, v.T("error-stream"))
		return
	}
	page := r.URL.Query().Get("page")
	filter := callFilterOf(r)
	refused := c.answersRefused(r)
	s := c.feed.add()
	defer c.feed.remove(s)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var b strings.Builder
	b.WriteString("retry: 2000\n\n")
	if page == "approvals" && c.opts.Queue != nil {
		var ids []string
		for _, p := range c.opts.Queue.List() {
			c.writeApproval(&b, v, p, refused)
			ids = append(ids, p.ID)
		}
		writeEvent(&b, "approval-sync", strings.Join(ids, " "))
	}
	if _, err := fmt.Fprint(w, b.String()); err != nil {
		return
	}
	fl.Flush()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		b.Reset()
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-ping.C:
			b.WriteString(": ping\n\n")
		case e := <-s.ch:
			switch {
			case e.approval != nil && page == "approvals":
				if e.approval.Kind == approval.Added {
					c.writeApproval(&b, v, e.approval.Pending, refused)
				} else {
					writeEvent(&b, "approval-removed", e.approval.Pending.ID+" "+c.leftText(v, e.approval))
				}
			case e.call != nil && page == "calls" && filter.match(*e.call):
				row, err := c.fragment("call", callRow{R: *e.call, V: v})
				if err != nil {
					c.log.Error().Err(err).Msg("console could not render a call")
					continue
				}
				writeEvent(&b, "call", row)
			}
			if b.Len() == 0 {
				continue
			}
		}
		if _, err := fmt.Fprint(w, b.String()); err != nil {
			return
		}
		fl.Flush()
	}
}

// writeApproval adds an approval-added event with the rendered card.
func (c *Console) writeApproval(b *strings.Builder, v *view, p approval.Pending, refused string) {
	card, err := c.fragment("approval", c.card(v, p, refused))
	if err != nil {
		c.log.Error().Err(err).Msg("console could not render an approval")
		return
	}
	writeEvent(b, "approval-added", card)
}

// leftText says how a request left the queue, for the page to announce.
func (c *Console) leftText(v *view, ev *approval.Event) string {
	tool := ev.Pending.Request.Tool
	if ev.Kind == approval.Withdrawn {
		return v.T("left-withdrawn", "tool", tool)
	}
	switch ev.Answer {
	case approval.Yes:
		return v.T("left-approved", "tool", tool)
	case approval.Always:
		return v.T("left-always", "tool", tool)
	default:
		return v.T("left-denied", "tool", tool)
	}
}

// writeEvent writes one server-sent event; every line of data gets its
// own data: field, so the browser joins them back with newlines.
func writeEvent(b *strings.Builder, name, data string) {
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteByte('\n')
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}
