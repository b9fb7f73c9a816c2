package receipts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Defaults of [RecentOptions].
const (
	// DefaultRecentLimit is the page size of [Recent].
	DefaultRecentLimit = 50
	// DefaultRecentScan bounds the records one [Recent] call reads.
	DefaultRecentScan = 100000
)

// recentChunk is how many bytes the backward reader takes from a segment
// at a time: a first page of ordinary receipts fits in one. Tests make it
// smaller than a line.
var recentChunk = 64 << 10

// RecentOptions select one page of [Recent]. The zero value is the newest
// [DefaultRecentLimit] receipts of every chain.
type RecentOptions struct {
	// Filter selects by tool, session and time; its Limit is ignored.
	Filter Filter
	// Match, when set, must also accept a receipt for it to be returned.
	Match func(*Receipt) bool
	// Chain keeps one chain only: its id, or [LegacyChain]. "" reads
	// every chain.
	Chain string
	// Before is the Next cursor of an earlier page; "" starts at the
	// newest receipt.
	Before string
	// Limit is the page size; zero means [DefaultRecentLimit].
	Limit int
	// MaxScan bounds how many records one call reads, matching or not;
	// zero means [DefaultRecentScan] and a negative value no bound. A page
	// that reaches it is returned short, with Truncated set and a Next
	// cursor that continues the search.
	MaxScan int
}

// RecentPage is one page of [Recent].
type RecentPage struct {
	// Receipts are newest first.
	Receipts []Receipt
	// Next is the cursor of the following page (pass it as Before); ""
	// when no older record is left.
	Next string
	// Scanned is how many records were read.
	Scanned int
	// Truncated is set when the page stopped at MaxScan before it was
	// full.
	Truncated bool
}

// Recent returns a store directory's (or a chain directory's) receipts
// newest first, one page at a time, reading each chain backward from its
// end: the first page costs what its records cost, however long the log
// is. The chains are merged by time, then chain, then seq, latest first,
// each kept in its own order; for chains written in time order this is
// exactly [List]'s order reversed. Like List it takes no lock and does
// not check signatures (use [Verify]), skips a partial line at the very
// end of a chain and torn tails a later segment notes, and returns what
// it could read with an error wrapping [ErrDamaged] when other lines are
// not records.
//
// The Next cursor names, for each chain, the seq below which the next
// page continues; a chain that appeared after the first page is read from
// its end.
//
// # Errors
//
// A cursor that is not one Recent wrote wraps [ErrInvalidCursor]; a
// single JSONL file (the output of [Export]) is refused with
// [ErrInvalidOptions], since it has no segments to read backward.
func Recent(dir string, o RecentOptions) (RecentPage, error) {
	var page RecentPage
	below, err := parseCursor(o.Before)
	if err != nil {
		return page, err
	}
	chain := o.Chain
	if chain == LegacyChain {
		chain = ""
	} else if chain != "" && !validChainID(chain) {
		return page, fmt.Errorf("recent receipts: %w: %q is not a chain id (16 hex digits) or %s", ErrInvalidOptions, clip(chain), LegacyChain)
	}
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultRecentLimit
	}
	maxScan := o.MaxScan
	if maxScan == 0 {
		maxScan = DefaultRecentScan
	}
	in, err := openLog(dir)
	if err != nil {
		return page, fmt.Errorf("recent receipts: %w", err)
	}
	if in.single {
		return page, fmt.Errorf("recent receipts: %w: %s is a single file; read it with List", ErrInvalidOptions, dir)
	}
	dmg := &damage{}
	var readers []*backReader
	for _, c := range in.chains {
		if o.Chain != "" && c.id != chain {
			continue
		}
		r := &backReader{c: c, below: below[ChainName(c.id)], seg: len(c.segs), dmg: dmg}
		defer r.close()
		readers = append(readers, r)
	}
	heads := make([]*Receipt, len(readers))
	for i, r := range readers {
		if heads[i], err = r.next(); err != nil {
			return page, fmt.Errorf("recent receipts: %w", err)
		}
	}
	for len(page.Receipts) < limit {
		if maxScan > 0 && page.Scanned >= maxScan {
			page.Truncated = true
			break
		}
		k := -1
		for i, h := range heads {
			if h != nil && (k < 0 || before(heads[k], h)) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		rec := heads[k]
		page.Scanned++
		if o.Filter.match(rec) && (o.Match == nil || o.Match(rec)) {
			page.Receipts = append(page.Receipts, *rec)
		}
		if heads[k], err = readers[k].next(); err != nil {
			return page, fmt.Errorf("recent receipts: %w", err)
		}
	}
	page.Next = nextCursor(readers, heads)
	return page, dmg.err()
}

// parseCursor reads "CHAIN:SEQ,CHAIN:SEQ,...".
func parseCursor(s string) (map[string]uint64, error) {
	out := map[string]uint64{}
	if s == "" {
		return out, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		id, num, ok := strings.Cut(part, ":")
		if !ok || (id != LegacyChain && !validChainID(id)) {
			return nil, fmt.Errorf("recent receipts: %w: %q", ErrInvalidCursor, clip(s))
		}
		seq, err := strconv.ParseUint(num, 10, 64)
		if err != nil || seq == 0 {
			return nil, fmt.Errorf("recent receipts: %w: %q", ErrInvalidCursor, clip(s))
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("recent receipts: %w: %q", ErrInvalidCursor, clip(s))
		}
		out[id] = seq
	}
	return out, nil
}

// nextCursor names where each chain continues: below its head, the next
// record not yet returned; a chain read to its start continues below 1,
// which is nothing. With every chain read to its start it is "".
func nextCursor(readers []*backReader, heads []*Receipt) string {
	var parts []string
	left := false
	for i, r := range readers {
		below := uint64(1)
		if h := heads[i]; h != nil {
			below, left = h.Seq+1, true
		}
		parts = append(parts, ChainName(r.c.id)+":"+strconv.FormatUint(below, 10))
	}
	if !left {
		return ""
	}
	return strings.Join(parts, ",")
}

// backReader yields the records of one chain from its end towards its
// start, reading each segment backward a chunk at a time, skipping
// records whose seq is not below below (when below is set).
type backReader struct {
	c     *chainInput
	below uint64
	dmg   *damage

	seg   int      // the segment being read; len(c.segs) before the first
	f     *os.File // the open segment
	pos   int64    // bytes before pos are not read yet
	carry []byte   // a line whose start lies before pos, with its newline
	buf   []*Receipt
}

func (r *backReader) close() {
	if r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}

// next returns the chain's next record going backward; nil at its start.
func (r *backReader) next() (*Receipt, error) {
	for len(r.buf) == 0 {
		if r.f == nil {
			ok, err := r.openPrev()
			if err != nil || !ok {
				return nil, err
			}
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
	rec := r.buf[len(r.buf)-1]
	r.buf = r.buf[:len(r.buf)-1]
	return rec, nil
}

// openPrev opens the segment before the current one that may hold
// records below r.below, reporting false when none is left.
func (r *backReader) openPrev() (bool, error) {
	for r.seg > 0 {
		r.seg--
		i := r.seg
		size := r.c.sizes[i]
		if size == 0 {
			continue
		}
		// A segment whose first record is not below the bound holds
		// nothing below it: seq only grows along a chain.
		if first := r.c.first[i]; r.below > 0 && first != nil && first.Seq >= r.below {
			continue
		}
		f, err := os.Open(r.c.segs[i].path)
		if err != nil {
			return false, fmt.Errorf("open segment: %w", err)
		}
		end := size
		if n, ok := r.c.notes[r.c.segs[i].name]; ok && n.note.Offset+n.note.Length == size && n.note.Offset >= 0 {
			end = n.note.Offset // a torn tail a later segment notes
		}
		r.f, r.pos, r.carry = f, end, nil
		if err := r.dropPartialEnd(i == r.c.lastNonEmpty()); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// dropPartialEnd moves r.pos back over bytes after the segment's last
// newline: a write in progress at the end of the chain, else damage.
func (r *backReader) dropPartialEnd(lastSegment bool) error {
	var tail []byte
	for r.pos > 0 {
		n := min(int64(recentChunk), r.pos)
		chunk := make([]byte, n)
		if _, err := r.f.ReadAt(chunk, r.pos-n); err != nil && err != io.EOF {
			return fmt.Errorf("read segment %s: %w", r.c.segs[r.seg].name, err)
		}
		if k := bytes.LastIndexByte(chunk, '\n'); k >= 0 {
			partial := int64(len(chunk)-k-1) + int64(len(tail))
			r.pos -= int64(len(chunk) - k - 1)
			if partial > 0 && !lastSegment {
				r.dmg.add(fmt.Sprintf("%s%s at offset %d", r.c.rel, r.c.segs[r.seg].name, r.pos))
			}
			return nil
		}
		tail = append(chunk, tail...)
		r.pos -= n
	}
	if len(tail) > 0 && !lastSegment {
		r.dmg.add(fmt.Sprintf("%s%s at offset 0", r.c.rel, r.c.segs[r.seg].name))
	}
	return nil
}

// fill reads the chunk before r.pos and parses the whole lines it
// completes into r.buf, in file order; at the segment's start it closes
// the segment.
func (r *backReader) fill() error {
	if r.pos == 0 {
		lines := r.carry
		r.carry = nil
		r.close()
		return r.parse(lines, 0)
	}
	n := min(int64(recentChunk), r.pos)
	data := make([]byte, n, n+int64(len(r.carry)))
	if _, err := r.f.ReadAt(data, r.pos-n); err != nil && err != io.EOF {
		return fmt.Errorf("read segment %s: %w", r.c.segs[r.seg].name, err)
	}
	r.pos -= n
	data = append(data, r.carry...)
	if r.pos == 0 {
		r.carry = data
		return r.fill()
	}
	k := bytes.IndexByte(data, '\n')
	if k < 0 || k == len(data)-1 {
		r.carry = data // one line longer than what was read so far
		return nil
	}
	r.carry = slices.Clone(data[:k+1])
	return r.parse(data[k+1:], r.pos+int64(k)+1)
}

// parse appends the records of data, whole lines that start at offset
// off, that are below the bound.
func (r *backReader) parse(data []byte, off int64) error {
	for len(data) > 0 {
		k := bytes.IndexByte(data, '\n')
		if k < 0 {
			k = len(data) // cannot happen: data ends with a newline
		}
		line := data[:k]
		rec, err := ParseRecord(line)
		switch {
		case err != nil:
			r.dmg.add(fmt.Sprintf("%s%s at offset %d", r.c.rel, r.c.segs[r.seg].name, off))
		case r.below == 0 || rec.Seq < r.below:
			r.buf = append(r.buf, rec)
		}
		off += int64(k) + 1
		data = data[min(k+1, len(data)):]
	}
	return nil
}
