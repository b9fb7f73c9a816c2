package sandbox

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestCapWriter(t *testing.T) {
	tests := []struct {
		name       string
		max        int
		policy     Overflow
		writes     []string
		want       string
		kept       string
		dropped    int64
		overflowed bool
		calls      int32
	}{
		{name: "under the cap", max: 10, writes: []string{"abc", "def"}, want: "abcdef", kept: "abcdef"},
		{name: "exactly the cap", max: 6, writes: []string{"abc", "def"}, want: "abcdef", kept: "abcdef"},
		{name: "over the cap", max: 4, writes: []string{"abc", "def"}, want: "abcd\n[output truncated at 4 bytes]\n", kept: "abcd", dropped: 2, overflowed: true},
		{name: "cut after newline", max: 4, writes: []string{"abc\ndef"}, want: "abc\n[output truncated at 4 bytes]\n", kept: "abc\n", dropped: 3, overflowed: true},
		{name: "zero cap", max: 0, writes: []string{"x"}, want: "[output truncated at 0 bytes]\n", dropped: 1, overflowed: true},
		{name: "kill fires once", max: 2, policy: Kill, writes: []string{"abc", "def", "g"}, want: "ab\n[output truncated at 2 bytes]\n", kept: "ab", dropped: 5, overflowed: true, calls: 1},
		{name: "kill under the cap never fires", max: 8, policy: Kill, writes: []string{"abc", "def"}, want: "abcdef", kept: "abcdef"},
		{name: "discard never calls", max: 1, policy: Discard, writes: []string{"abc"}, want: "a\n[output truncated at 1 bytes]\n", kept: "a", dropped: 2, overflowed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			w := NewCapWriter(tt.max, tt.policy, func() { calls.Add(1) })
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(s))
				}
			}
			if got := w.String(); got != tt.want {
				t.Errorf("String = %q, want %q", got, tt.want)
			}
			if got := w.Kept(); got != tt.kept {
				t.Errorf("Kept = %q, want %q", got, tt.kept)
			}
			if got := w.Dropped(); got != tt.dropped {
				t.Errorf("Dropped = %d, want %d", got, tt.dropped)
			}
			if got := w.Overflowed(); got != tt.overflowed {
				t.Errorf("Overflowed = %v, want %v", got, tt.overflowed)
			}
			if got := calls.Load(); got != tt.calls {
				t.Errorf("onOverflow called %d times, want %d", got, tt.calls)
			}
		})
	}
}

func TestCapWriterConcurrent(t *testing.T) {
	var calls atomic.Int32
	w := NewCapWriter(100, Kill, func() { calls.Add(1) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				_, _ = w.Write([]byte("0123456789"))
			}
		})
	}
	wg.Wait()
	if len(w.Kept()) != 100 || w.Dropped() != 8*50*10-100 || calls.Load() != 1 {
		t.Fatalf("kept %d, dropped %d, calls %d", len(w.Kept()), w.Dropped(), calls.Load())
	}
}

func TestOverflowString(t *testing.T) {
	if Discard.String() != "discard" || Kill.String() != "kill" {
		t.Fatalf("got %s, %s", Discard, Kill)
	}
}
