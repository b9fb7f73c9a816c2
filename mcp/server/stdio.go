package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

const (
	// maxLineBytes bounds one message on stdio, as the HTTP transport
	// bounds a request body.
	maxLineBytes = 4 << 20
	// maxJSONDepth bounds the nesting of a message: deeper documents are
	// refused before anything decodes them.
	maxJSONDepth = 64
)

// errConnClosed is what a write after the session ended returns.
var errConnClosed = errors.New("stdio connection closed")

// ServeStdio serves one session over in and out (newline-delimited
// JSON-RPC) until the client closes in or ctx ends. At the end of in, every
// request already read is answered before ServeStdio returns, unless
// nobody reads out any more; a malformed message is answered with a
// JSON-RPC error and the session goes on. Cancel ctx only after
// [Server.Drain]: ending it closes the session at once.
//
// Requests other than tools/call are answered in the order they arrive;
// calls run concurrently, bounded as [Options] says, and are answered as
// they finish.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := newSession("stdio-" + randomHex(8))
	c := &stdioConn{out: out, closed: ss.closedCh()}
	ss.push = func(msg []byte) bool { return c.send(msg) == nil }
	s.addSession(ss)
	defer s.removeSession(ss)

	// Calls run under sctx: it ends with the session.
	sctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls sync.WaitGroup
	readDone := make(chan error, 1)
	go func() { readDone <- s.readStdio(sctx, ss, c, in, &calls) }()

	var err error
	select {
	case err = <-readDone:
		if err == nil {
			err = s.finishStdio(ctx, ss, c, &calls)
		}
	case <-ctx.Done():
	case <-ss.closedCh():
	}
	cancel()
	ss.close()
	if cl, ok := in.(io.Closer); ok {
		// Unblocks a read still waiting for input.
		_ = cl.Close()
	}
	calls.Wait()
	return err
}

// finishStdio waits, at the end of the input, until every call read has
// been answered. A client that closed only its end of our input is still
// reading our answers; one that went away altogether is not, and then the
// calls it left are cancelled rather than finished for nobody.
func (s *Server) finishStdio(ctx context.Context, ss *session, c *stdioConn, calls *sync.WaitGroup) error {
	finished := make(chan struct{})
	go func() {
		calls.Wait()
		close(finished)
	}()
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	gone := readerGone(c.out, stopWatch)
	select {
	case <-finished:
	case <-gone:
	case <-ctx.Done():
	case <-ss.closedCh():
	}
	return nil
}

// readStdio reads and dispatches messages until the end of in. It returns
// nil at the end of the input, or the read error.
func (s *Server) readStdio(ctx context.Context, ss *session, c *stdioConn, in io.Reader, calls *sync.WaitGroup) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLineBytes)
		switch {
		case ctx.Err() != nil:
			return nil
		case tooLong:
			_ = c.send(appendErrorResponse(nil, nil, rpcErrorf(codeParseError, "message longer than %d bytes", maxLineBytes)))
		case len(bytes.TrimSpace(line)) > 0:
			s.dispatchStdio(ctx, ss, c, line, calls)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// dispatchStdio handles one line: requests other than tools/call and
// notifications in order, calls on goroutines of their own.
func (s *Server) dispatchStdio(ctx context.Context, ss *session, c *stdioConn, line []byte, calls *sync.WaitGroup) {
	m, rerr := decodeMessage(line)
	switch {
	case rerr != nil:
		var id []byte
		if m != nil {
			id = m.ID
		}
		_ = c.send(appendErrorResponse(nil, id, rerr))
	case m.Method == "":
		ss.answer(m)
	case !m.isCall():
		s.notify(ss, m)
	case m.Method == methodToolsCall:
		calls.Add(1)
		go func() {
			defer calls.Done()
			if resp := s.handle(ctx, ss, m, c); resp != nil {
				_ = c.send(resp)
			}
		}()
	default:
		_ = c.send(s.handle(ctx, ss, m, c))
	}
}

// readLine returns the next line without its ending. A line over max
// bytes is consumed whole and reported as too long, with no bytes.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// stdioConn writes whole lines to the client.
type stdioConn struct {
	mu     sync.Mutex // one whole line at a time
	out    io.Writer
	closed <-chan struct{}
}

// send writes msg as one line.
func (c *stdioConn) send(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return errConnClosed
	default:
	}
	if _, err := c.out.Write(append(msg, '\n')); err != nil {
		return fmt.Errorf("write to the client: %w", err)
	}
	return nil
}
