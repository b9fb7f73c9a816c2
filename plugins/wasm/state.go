package wasm

import (
	"context"
	"sync"
)

// callState is what host functions know about the guest calling them:
// which plugin and instance, and whether a tool call is under way (secrets
// are handed out only then).
type callState struct {
	p    *plugin
	inst *instance
	tool string

	mu        sync.Mutex
	inCall    bool
	abandoned bool
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func stateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// active reports whether secrets may be handed out now.
func (s *callState) active() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inCall && !s.abandoned
}

// end marks the call finished.
func (s *callState) end() {
	s.mu.Lock()
	s.inCall = false
	s.mu.Unlock()
}

// abandon marks a call whose caller stopped waiting: the guest keeps
// running, but host functions no longer serve it anything.
func (s *callState) abandon() {
	s.mu.Lock()
	s.abandoned = true
	s.mu.Unlock()
}

func (s *callState) gone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.abandoned
}
