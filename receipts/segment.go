package receipts

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// segFile names one segment of a store.
type segFile struct {
	num  int
	name string
	path string
}

// listSegments returns the segment files of dir in order. Other files are
// ignored.
func listSegments(dir string) ([]segFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list receipt segments: %w", err)
	}
	var segs []segFile
	for _, e := range ents {
		n, ok := segmentNumber(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		segs = append(segs, segFile{num: n, name: e.Name(), path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(segs, func(a, b segFile) int { return a.num - b.num })
	return segs, nil
}

// line is one line of a segment.
type line struct {
	no       int   // 1-based line number
	off      int64 // offset of the first byte in the file
	data     []byte
	complete bool // ended with a newline
}

// end is the offset just past the line and its newline.
func (l line) end() int64 {
	e := l.off + int64(len(l.data))
	if l.complete {
		e++
	}
	return e
}

// splitLines splits data read from offset base. Only the last line can be
// incomplete.
func splitLines(data []byte, base int64) []line {
	var lines []line
	off := 0
	for no := 1; off < len(data); no++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			lines = append(lines, line{no: no, off: base + int64(off), data: data[off:]})
			break
		}
		lines = append(lines, line{no: no, off: base + int64(off), data: data[off : off+i], complete: true})
		off += i + 1
	}
	return lines
}

// tailChunk is how much of a segment's end Open reads to find the last good
// record; it reads the whole segment only when the chunk holds none.
const tailChunk = 1 << 20

// segmentTail finds the last good record of a segment: the last complete
// line that parses and whose signature verifies under the key it names.
// goodEnd is the offset just past that record's newline (0 when there is
// none); the bytes from goodEnd to size are the torn tail, whose SHA-256 is
// returned when there are any.
//
// A record signed by a key the ring does not know is not taken for a torn
// write (a crash cannot produce one): segmentTail returns an error wrapping
// [ErrUnknownKey] rather than guess.
func segmentTail(path string, size int64, ring map[string]ed25519.PublicKey) (last *Receipt, goodEnd int64, tornSHA string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, "", fmt.Errorf("open segment: %w", err)
	}
	defer func() { _ = f.Close() }()
	start := max(0, size-tailChunk)
	for {
		data := make([]byte, size-start)
		if _, err := f.ReadAt(data, start); err != nil && err != io.EOF {
			return nil, 0, "", fmt.Errorf("read segment %s: %w", filepath.Base(path), err)
		}
		lines := splitLines(data, start)
		for i := len(lines) - 1; i >= 0; i-- {
			l := lines[i]
			if !l.complete || (i == 0 && start > 0) {
				continue
			}
			rec, err := ParseRecord(l.data)
			if err != nil {
				continue
			}
			pub, ok := ring[rec.KeyID]
			if !ok {
				if start > 0 {
					break // the line count is only known from the start
				}
				return nil, 0, "", fmt.Errorf("%w: %s line %d is signed by key %s, which %s does not list; restore that file (or the private key) before writing",
					ErrUnknownKey, filepath.Base(path), l.no, rec.KeyID, PublicKeyFile)
			}
			if rec.VerifySignature(pub) != nil {
				continue
			}
			goodEnd = l.end()
			if goodEnd < size {
				tornSHA = sha256Hex(data[goodEnd-start:])
			}
			return rec, goodEnd, tornSHA, nil
		}
		if start == 0 {
			if size > 0 {
				tornSHA = sha256Hex(data)
			}
			return nil, 0, tornSHA, nil
		}
		start = 0
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
