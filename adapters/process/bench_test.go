package process

import "testing"

// BenchmarkRingWrite is the cost of capturing output at the 1 MiB cap,
// once the ring is full and every write drops old bytes.
func BenchmarkRingWrite(b *testing.B) {
	r := newRing(DefaultMaxOutputBytes, nil)
	chunk := make([]byte, 32<<10)
	for range 40 {
		_, _ = r.Write(chunk)
	}
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.Write(chunk)
	}
}
