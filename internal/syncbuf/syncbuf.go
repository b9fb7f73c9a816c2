// Package syncbuf is a text buffer several goroutines may write to while
// another reads it: what tests give a logger or a subprocess's output.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer is safe for concurrent use; its zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
