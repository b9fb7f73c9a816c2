package receipts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// logInput is what [List], [Find], [Export] and [Verify] read: a store
// directory (the legacy chain in its own segments, and chains/<id>/), one
// chain directory, or a single JSONL file (one segment, or the output of
// Export, whose records may come from several chains).
type logInput struct {
	path   string
	keyDir string // where the public key file is looked for
	single bool   // one file rather than directories of segments
	chains []*chainInput
	// rotations are the rotation records of every chain: first records of
	// segments, or in a single file any record.
	rotations []*Receipt
	// A single file's lines in file order, each with its record (nil when
	// the line is not one) and parse error.
	lines []line
	recs  []*Receipt
	errs  []error
}

// chainInput is the segments of one chain.
type chainInput struct {
	id    string // "" for the legacy chain
	rel   string // what precedes a segment's name in reports: "" or "chains/<id>/"
	segs  []segFile
	sizes []int64
	first []*Receipt // each segment's first record, when it parses
	notes map[string]noteRef
	// In a single file, the indexes into logInput.lines of this chain's
	// lines; the chain has one segment, the file.
	idx []int
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
	in := &logInput{path: path}
	if !st.IsDir() {
		in.single = true
		in.keyDir = filepath.Dir(path)
		return in, in.readSingle()
	}
	in.keyDir = path
	// The segments directly in a directory are one chain: the one the
	// directory is named after (chains/<id> of a store, or a copy named
	// by its chain id), else the chain of its first record. In a store
	// directory that is the legacy chain, whose records have none.
	own, named := "", false
	if base := filepath.Base(filepath.Clean(path)); validChainID(base) {
		own, named = base, true
		if parent := filepath.Dir(filepath.Clean(path)); filepath.Base(parent) == ChainsDir {
			in.keyDir = filepath.Dir(parent)
		}
	}
	if err := in.addChain(own, path, ""); err != nil {
		return nil, err
	}
	if len(in.chains) == 1 && !named {
		c := in.chains[0]
		for _, r := range c.first {
			if r != nil {
				c.id = r.Chain
				break
			}
		}
	}
	ids, err := listChains(path)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := in.addChain(id, filepath.Join(path, ChainsDir, id), ChainsDir+"/"+id+"/"); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// addChain reads the segment list and first records of a chain directory;
// a directory without segments adds nothing.
func (in *logInput) addChain(id, dir, rel string) error {
	segs, err := listSegments(dir)
	if err != nil || len(segs) == 0 {
		return err
	}
	c := &chainInput{id: id, rel: rel, segs: segs, sizes: make([]int64, len(segs)), first: make([]*Receipt, len(segs)), notes: map[string]noteRef{}}
	for i, seg := range segs {
		rec, size, err := readFirst(seg.path)
		if err != nil {
			return err
		}
		c.sizes[i], c.first[i] = size, rec
		if rec == nil {
			continue
		}
		if rec.Rotation != nil {
			in.rotations = append(in.rotations, rec)
		}
		for _, n := range rec.Torn {
			num, _ := segmentNumber(n.Segment)
			if num >= seg.num {
				continue
			}
			if _, dup := c.notes[n.Segment]; !dup {
				c.notes[n.Segment] = noteRef{note: n, by: i}
			}
		}
	}
	in.chains = append(in.chains, c)
	return nil
}

// readSingle reads a single file and splits its lines among the chains of
// their records. A line that is not a record goes with the next record
// (else the one before), so that it is judged in the chain it interrupts.
func (in *logInput) readSingle() error {
	data, err := os.ReadFile(in.path)
	if err != nil {
		return fmt.Errorf("read receipts: %w", err)
	}
	in.lines = splitLines(data, 0)
	in.recs = make([]*Receipt, len(in.lines))
	in.errs = make([]error, len(in.lines))
	for i, l := range in.lines {
		if !l.complete {
			continue
		}
		in.recs[i], in.errs[i] = ParseRecord(l.data)
		if r := in.recs[i]; r != nil && r.Rotation != nil {
			in.rotations = append(in.rotations, r)
		}
	}
	nextRec := make([]int, len(in.lines))
	for i, n := len(in.lines)-1, -1; i >= 0; i-- {
		if in.recs[i] != nil {
			n = i
		}
		nextRec[i] = n
	}
	byID := map[string]*chainInput{}
	prevRec := -1
	for i := range in.lines {
		owner := ""
		switch {
		case in.recs[i] != nil:
			prevRec = i
			owner = in.recs[i].Chain
		case nextRec[i] >= 0:
			owner = in.recs[nextRec[i]].Chain
		case prevRec >= 0:
			owner = in.recs[prevRec].Chain
		}
		c := byID[owner]
		if c == nil {
			c = &chainInput{id: owner, segs: []segFile{{name: filepath.Base(in.path), path: in.path}},
				sizes: []int64{int64(len(data))}, first: []*Receipt{nil}, notes: map[string]noteRef{}}
			byID[owner] = c
			in.chains = append(in.chains, c)
		}
		c.idx = append(c.idx, i)
	}
	slices.SortFunc(in.chains, func(a, b *chainInput) int { return cmpString(a.id, b.id) })
	return nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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

// lastNonEmpty returns the index of the chain's last segment with bytes,
// or -1.
func (c *chainInput) lastNonEmpty() int {
	for i := len(c.sizes) - 1; i >= 0; i-- {
		if c.sizes[i] > 0 {
			return i
		}
	}
	return -1
}

// tornCut returns where the acknowledged torn tail of segment i starts
// (len(data) when none is noted), and a description of the mismatch when a
// note exists but does not match the bytes.
func (c *chainInput) tornCut(i int, data []byte) (cut int64, ref *noteRef, mismatch string) {
	r, ok := c.notes[c.segs[i].name]
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

// damage counts the lines a reader could not take as records.
type damage struct {
	bad      int
	firstBad string
}

func (d *damage) add(where string) {
	if d.bad == 0 {
		d.firstBad = where
	}
	d.bad++
}

func (d *damage) err() error {
	if d.bad == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d line(s) are not valid records, the first at %s; run talon receipts verify for details", ErrDamaged, d.bad, d.firstBad)
}

// chainReader yields the records of one chain in order, one segment in
// memory at a time, skipping torn tails noted by a later segment. It does
// not check signatures. A line still being written at the end of the
// chain's last segment is skipped silently; other lines that are not
// records are counted in dmg.
type chainReader struct {
	c    *chainInput
	last int // the chain's last non-empty segment
	seg  int // the next segment to read
	buf  []*Receipt
	pos  int
	dmg  *damage
}

func (r *chainReader) next() (*Receipt, error) {
	for r.pos >= len(r.buf) {
		if r.seg >= len(r.c.segs) {
			return nil, nil
		}
		i := r.seg
		r.seg++
		if r.c.sizes[i] == 0 {
			continue
		}
		data, err := os.ReadFile(r.c.segs[i].path)
		if err != nil {
			return nil, fmt.Errorf("read segment: %w", err)
		}
		cut, _, _ := r.c.tornCut(i, data)
		r.buf, r.pos = r.buf[:0], 0
		for _, l := range splitLines(data, 0) {
			if l.off >= cut {
				break
			}
			if !l.complete && i == r.last {
				break
			}
			rec, err := ParseRecord(l.data)
			if err != nil || !l.complete {
				r.dmg.add(fmt.Sprintf("%s%s line %d", r.c.rel, r.c.segs[i].name, l.no))
				continue
			}
			r.buf = append(r.buf, rec)
		}
	}
	rec := r.buf[r.pos]
	r.pos++
	return rec, nil
}

// before orders the records of different chains: by time, then chain,
// then seq.
func before(a, b *Receipt) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	if a.Chain != b.Chain {
		return a.Chain < b.Chain
	}
	return a.Seq < b.Seq
}

// scanRecords calls fn for every record of the log until fn returns false.
// A single file is read in its order. The chains of a directory are merged
// when merged is set: each chain's records stay in chain order, and of the
// chains' next records the earliest by time (then chain, then seq) comes
// first; otherwise the chains are read one after the other. It does not
// check signatures. Lines that are not records are counted, and the first
// is described, in the returned error (wrapping [ErrDamaged]).
func scanRecords(path string, merged bool, fn func(rec *Receipt) bool) error {
	in, err := openLog(path)
	if err != nil {
		return err
	}
	dmg := &damage{}
	if in.single {
		for i, l := range in.lines {
			switch {
			case in.recs[i] != nil:
				if !fn(in.recs[i]) {
					return nil
				}
			case !l.complete && i == len(in.lines)-1:
				// a write in progress, or a crash nothing has noted
			default:
				dmg.add(fmt.Sprintf("%s line %d", filepath.Base(in.path), l.no))
			}
		}
		return dmg.err()
	}
	readers := make([]*chainReader, len(in.chains))
	for i, c := range in.chains {
		readers[i] = &chainReader{c: c, last: c.lastNonEmpty(), dmg: dmg}
	}
	if !merged {
		for _, r := range readers {
			for {
				rec, err := r.next()
				if err != nil {
					return err
				}
				if rec == nil {
					break
				}
				if !fn(rec) {
					return nil
				}
			}
		}
		return dmg.err()
	}
	heads := make([]*Receipt, len(readers))
	for i, r := range readers {
		if heads[i], err = r.next(); err != nil {
			return err
		}
	}
	for {
		k := -1
		for i, h := range heads {
			if h != nil && (k < 0 || before(h, heads[k])) {
				k = i
			}
		}
		if k < 0 {
			return dmg.err()
		}
		if !fn(heads[k]) {
			return nil
		}
		if heads[k], err = readers[k].next(); err != nil {
			return err
		}
	}
}
