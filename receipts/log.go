package receipts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// logInput is a store directory or a single JSONL file (one segment, or the
// output of Export), opened for reading.
type logInput struct {
	path   string
	keyDir string // where the public key file is looked for
	single bool   // one file rather than a directory of segments
	segs   []segFile
	sizes  []int64
	first  []*Receipt // each segment's first record, when it parses
	notes  map[string]noteRef
	// rotations are the rotation records: first records of segments, or in
	// a single file (an export) any record.
	rotations []*Receipt
}

// noteRef is a torn note and the segment whose first record carries it.
type noteRef struct {
	note TornNote
	by   int // index into segs of the noting segment
}

// maxFirstLine bounds how much of a segment the pre-pass reads to find its
// first record.
const maxFirstLine = 64 << 20

func openLog(path string) (*logInput, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &logInput{path: path, notes: map[string]noteRef{}}
	if st.IsDir() {
		in.keyDir = path
		if in.segs, err = listSegments(path); err != nil {
			return nil, err
		}
	} else {
		in.single = true
		in.keyDir = filepath.Dir(path)
		in.segs = []segFile{{name: filepath.Base(path), path: path}}
	}
	in.sizes = make([]int64, len(in.segs))
	in.first = make([]*Receipt, len(in.segs))
	for i, seg := range in.segs {
		rec, size, err := readFirst(seg.path)
		if err != nil {
			return nil, err
		}
		in.sizes[i], in.first[i] = size, rec
		if rec == nil {
			continue
		}
		if rec.Rotation != nil && !in.single {
			in.rotations = append(in.rotations, rec)
		}
		for _, n := range rec.Torn {
			num, _ := segmentNumber(n.Segment)
			if in.single || num >= seg.num {
				continue
			}
			if _, dup := in.notes[n.Segment]; !dup {
				in.notes[n.Segment] = noteRef{note: n, by: i}
			}
		}
	}
	if in.single {
		if err := in.findRotations(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// findRotations collects the rotation records of a single file.
func (in *logInput) findRotations() error {
	data, err := os.ReadFile(in.path)
	if err != nil {
		return fmt.Errorf("read receipts: %w", err)
	}
	for _, l := range splitLines(data, 0) {
		if !l.complete || !bytes.Contains(l.data, []byte(`,"rotation":{`)) {
			continue
		}
		if rec, err := ParseRecord(l.data); err == nil && rec.Rotation != nil {
			in.rotations = append(in.rotations, rec)
		}
	}
	return nil
}

// readFirst parses the first line of a file; rec is nil when it is not a
// valid record.
func readFirst(path string) (rec *Receipt, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open segment: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("stat segment: %w", err)
	}
	br := bufio.NewReader(io.LimitReader(f, maxFirstLine))
	first, err := br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		var more []byte
		more, err = br.ReadSlice('\n')
		first = append(bytes.Clone(first), more...)
	}
	if err != nil {
		return nil, st.Size(), nil
	}
	rec, perr := ParseRecord(first[:len(first)-1])
	if perr != nil {
		return nil, st.Size(), nil
	}
	return rec, st.Size(), nil
}

// lastNonEmpty returns the index of the last segment with bytes, or -1.
func (in *logInput) lastNonEmpty() int {
	for i := len(in.sizes) - 1; i >= 0; i-- {
		if in.sizes[i] > 0 {
			return i
		}
	}
	return -1
}

// tornCut returns where the acknowledged torn tail of segment i starts
// (len(data) when none is noted), and a description of the mismatch when a
// note exists but does not match the bytes.
func (in *logInput) tornCut(i int, data []byte) (cut int64, ref *noteRef, mismatch string) {
	r, ok := in.notes[in.segs[i].name]
	if !ok {
		return int64(len(data)), nil, ""
	}
	n := r.note
	size := int64(len(data))
	switch {
	case n.Offset+n.Length != size:
		return size, &r, fmt.Sprintf("it notes %d torn bytes at offset %d of %s, but the file has %d bytes", n.Length, n.Offset, n.Segment, size)
	case n.Offset > 0 && data[n.Offset-1] != '\n':
		return size, &r, fmt.Sprintf("it notes a torn tail at offset %d of %s, which is not the start of a line", n.Offset, n.Segment)
	case sha256Hex(data[n.Offset:]) != n.SHA256:
		return size, &r, fmt.Sprintf("the torn bytes of %s differ from the SHA-256 it notes", n.Segment)
	}
	return n.Offset, &r, ""
}

// scanRecords calls fn for every record of the log in order, skipping torn
// tails noted by a later segment. It does not check signatures. Lines that
// are not records are counted, and the first is described, in the returned
// error (wrapping [ErrDamaged]); a line still being written at the end of
// the last segment is skipped silently.
func scanRecords(path string, fn func(rec *Receipt) bool) error {
	in, err := openLog(path)
	if err != nil {
		return err
	}
	last := in.lastNonEmpty()
	var bad int
	var firstBad string
	for i, seg := range in.segs {
		if in.sizes[i] == 0 {
			continue
		}
		data, err := os.ReadFile(seg.path)
		if err != nil {
			return fmt.Errorf("read segment: %w", err)
		}
		cut, _, _ := in.tornCut(i, data)
		for _, l := range splitLines(data, 0) {
			if l.off >= cut {
				break
			}
			if !l.complete && i == last {
				break
			}
			rec, err := ParseRecord(l.data)
			if err != nil || !l.complete {
				if bad == 0 {
					firstBad = fmt.Sprintf("%s line %d", seg.name, l.no)
				}
				bad++
				continue
			}
			if !fn(rec) {
				return nil
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%w: %d line(s) are not valid records, the first at %s; run talon receipts verify for details", ErrDamaged, bad, firstBad)
	}
	return nil
}
