package extism

import (
	"context"
	"sync"
)

// callState is what talon's host functions know about the guest calling
// them: which plugin and instance, and which tool is being called ("" in
// describe and at start-up).
type callState struct {
	p    *plugin
	inst *instance
	tool string

	mu     sync.Mutex
	inCall bool
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func stateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// end marks the call finished.
func (s *callState) end() {
	s.mu.Lock()
	s.inCall = false
	s.mu.Unlock()
}
