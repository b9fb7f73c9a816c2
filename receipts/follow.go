package receipts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ListChains returns the chains of a store directory: the ids of its
// chain directories, sorted, preceded by "" for the legacy chain when the
// directory holds segments of its own.
func ListChains(dir string) ([]string, error) {
	var out []string
	segs, err := listSegments(dir)
	if err != nil {
		return nil, err
	}
	if len(segs) > 0 {
		out = append(out, "")
	}
	ids, err := listChains(dir)
	if err != nil {
		return nil, err
	}
	return append(out, ids...), nil
}

// followChunk bounds what one call of [Follower.Next] reads from a
// segment.
const followChunk = 4 << 20

// Follower reads the records of one chain of a store directory in chain
// order, from a given seq on, and then the records appended after: what a
// program copying a log elsewhere (talon's fleet shipper) needs. It takes
// no lock, never writes, and does not check signatures.
//
// Lines that are not records (torn tails) are skipped, as are records the
// chain already had; a line still being written at the end of the chain
// waits for its newline.
type Follower struct {
	dir        string // the chain's directory
	next       uint64 // seq of the next record to return
	prev       string // hash of the record before next; "" when unknown
	noSync     bool
	durableSeq func() uint64

	seg  segFile // the segment being read; num 0 before the first
	file *os.File
	off  int64 // offset of the first unread byte of seg
	buf  []byte

	// segs is the directory's last listing, listed when it was made and
	// listedMod the directory's modification time then: an idle
	// follower stats the directory instead of reading it.
	segs      []segFile
	listed    time.Time
	listedMod time.Time
}

// FollowOptions say where a [Follower] starts. The zero value starts at
// the chain's first record.
type FollowOptions struct {
	// After is the seq of the last record not to return: the first
	// record returned has seq After+1.
	After uint64
	// Prev, when not empty, is the hash of record After (as
	// [Receipt.Hash] gives it): the first record returned must chain
	// from it.
	Prev string
	// NoSync leaves out the fsync of what Next returns, for a reader
	// that only looks (a comparison, a copy on read-only media).
	NoSync bool
	// Durable, when set, says up to which seq the chain is on disk
	// ([Store.Synced] of the Store writing it): Next returns no record
	// beyond it and does not fsync.
	Durable func() uint64
}

// FollowChain returns a Follower of chain (a chain id, or "" or
// [LegacyChain] for the legacy chain) in the store directory dir.
//
// # Errors
//
// An unknown chain is not an error: the follower returns nothing until
// the chain's directory and first segment appear.
func FollowChain(dir, chain string, o FollowOptions) (*Follower, error) {
	cdir := dir
	switch {
	case chain == "" || chain == LegacyChain:
	case validChainID(chain):
		cdir = filepath.Join(dir, ChainsDir, chain)
	default:
		return nil, fmt.Errorf("follow receipts: %w: %q is not a chain id (16 hex digits) or %s", ErrInvalidOptions, clip(chain), LegacyChain)
	}
	return &Follower{dir: cdir, next: o.After + 1, prev: o.Prev, noSync: o.NoSync || o.Durable != nil, durableSeq: o.Durable}, nil
}

// Seq returns the seq of the last record the follower returned (or the
// after it started from).
func (f *Follower) Seq() uint64 { return f.next - 1 }

// Close releases the open segment.
func (f *Follower) Close() error {
	if f.file == nil {
		return nil
	}
	err := f.file.Close()
	f.file = nil
	return err
}

// Next returns up to max records that follow the last one it returned, in
// chain order, each a complete line of the log; an empty result means the
// chain has nothing new yet. What Next returns is durable, unless
// [FollowOptions.NoSync] says otherwise: it fsyncs each segment it read
// records from before returning them, so a record copied elsewhere
// cannot be lost from the log by a power failure.
//
// # Errors
//
// When the chain does not continue as it should — a record whose prev is
// not the hash of the one before, or a seq beyond the next — Next returns
// the records before it with an error wrapping [ErrChainBroken]; the
// follower then stays where it is.
func (f *Follower) Next(max int) ([]*Receipt, error) {
	if max <= 0 {
		max = 1
	}
	if f.seg.num == 0 {
		ok, err := f.locate()
		if err != nil || !ok {
			return nil, err
		}
	}
	var out []*Receipt
	dirty := false // records in out came from f.file
	for len(out) < max {
		n := len(out)
		more, held, err := f.readSome(max-len(out), &out)
		dirty = dirty || len(out) > n
		if err != nil || held {
			return f.durable(out, dirty, err)
		}
		if more {
			continue
		}
		later, err := f.laterSegment()
		if err != nil || later == nil {
			return f.durable(out, dirty, err)
		}
		// A writer starts a later segment only after its last write
		// to this one, so what this one holds now is final: read what
		// reached it before the later segment existed, then move on.
		// A partial line left at its end is a torn tail, which the
		// later segment notes.
		n = len(out)
		more, held, err = f.readSome(max-len(out), &out)
		dirty = dirty || len(out) > n
		if err != nil || held {
			return f.durable(out, dirty, err)
		}
		if more || len(out) >= max {
			continue
		}
		if dirty {
			if err := f.sync(); err != nil {
				return nil, err
			}
			dirty = false
		}
		if err := f.open(*later); err != nil {
			return out, err
		}
	}
	return f.durable(out, dirty, nil)
}

// durable fsyncs the current segment when records came from it.
func (f *Follower) durable(out []*Receipt, dirty bool, err error) ([]*Receipt, error) {
	if dirty {
		if serr := f.sync(); serr != nil {
			return nil, serr
		}
	}
	return out, err
}

func (f *Follower) sync() error {
	if f.noSync {
		return nil
	}
	if err := f.file.Sync(); err != nil {
		return fmt.Errorf("follow receipts: fsync %s: %w", f.seg.name, err)
	}
	return nil
}

// locate opens the segment that holds record f.next: the last segment
// whose first record is at or before it.
func (f *Follower) locate() (bool, error) {
	segs, err := listSegments(f.dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(segs) == 0) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("follow receipts: %w", err)
	}
	pick := segs[0]
	for _, s := range segs[1:] {
		rec, _, err := readFirst(s.path)
		if err != nil {
			return false, fmt.Errorf("follow receipts: %w", err)
		}
		if rec != nil && rec.Seq > f.next {
			break
		}
		if rec != nil {
			pick = s
		}
	}
	return true, f.open(pick)
}

func (f *Follower) open(s segFile) error {
	_ = f.Close()
	file, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("follow receipts: %w", err)
	}
	f.seg, f.file, f.off = s, file, 0
	return nil
}

// relist is how long a follower trusts an unchanged directory
// modification time (a file system's clock may be coarse).
const relist = time.Second

// laterSegment returns the first segment after the current one, or nil.
func (f *Follower) laterSegment() (*segFile, error) {
	segs := f.segs
	st, err := os.Stat(f.dir)
	if err != nil || !st.ModTime().Equal(f.listedMod) || time.Since(f.listed) >= relist {
		// A segment may have been made since the last listing.
		if segs, err = listSegments(f.dir); err != nil {
			return nil, fmt.Errorf("follow receipts: %w", err)
		}
		f.segs, f.listed = segs, time.Now()
		if st != nil {
			f.listedMod = st.ModTime()
		}
	}
	for _, s := range segs {
		if s.num > f.seg.num {
			return &s, nil
		}
	}
	return nil, nil
}

// readSome reads complete lines from the current segment and appends the
// records that continue the chain to out, at most max. more reports that
// it stopped before the last complete line (max reached, or a chunk's
// end), held that it stopped at a record not yet on disk.
func (f *Follower) readSome(max int, out *[]*Receipt) (more, held bool, err error) {
	st, err := f.file.Stat()
	if err != nil {
		return false, false, fmt.Errorf("follow receipts: %w", err)
	}
	size := st.Size()
	n := min(size-f.off, followChunk)
	if n <= 0 {
		return false, false, nil
	}
	if int64(cap(f.buf)) < n {
		f.buf = make([]byte, n)
	}
	data := f.buf[:n]
	k, err := f.file.ReadAt(data, f.off)
	if err != nil && err != io.EOF {
		return false, false, fmt.Errorf("follow receipts: read %s: %w", f.seg.name, err)
	}
	got := 0
	limit := uint64(0)
	if f.durableSeq != nil {
		limit = f.durableSeq()
	}
	for _, l := range splitLines(data[:k], f.off) {
		if !l.complete {
			if l.off == f.off && int64(len(l.data)) == followChunk {
				return false, false, fmt.Errorf("follow receipts: %s at offset %d: a line longer than %d bytes", f.seg.name, l.off, followChunk)
			}
			break
		}
		if got == max {
			return true, false, nil
		}
		rec, perr := ParseRecord(l.data)
		if perr == nil && f.durableSeq != nil && rec.Seq >= f.next && rec.Seq > limit {
			return false, true, nil // written, not yet on disk: a later call takes it
		}
		switch {
		case perr != nil, rec.Seq < f.next:
			// A torn tail a later record notes, or a record already read.
		case rec.Seq > f.next:
			return false, false, fmt.Errorf("follow receipts: %w: %s line at offset %d has seq %d where seq %d belongs", ErrChainBroken, f.seg.name, l.off, rec.Seq, f.next)
		case f.prev != "" && rec.Prev != f.prev:
			return false, false, fmt.Errorf("follow receipts: %w: seq %d in %s does not chain from the seq before it (prev %s, want %s)", ErrChainBroken, rec.Seq, f.seg.name, short(rec.Prev), short(f.prev))
		default:
			*out = append(*out, rec)
			got++
			f.next++
			f.prev = sha256Hex(l.data)
		}
		f.off = l.end()
	}
	// A chunk cut short by followChunk leaves lines for the next read.
	return int64(k) == followChunk && f.off < size, false, nil
}

// Synced returns the seq of the last record of the store's chain that is
// on disk (written and fsynced); 0 before the first. A reader of the
// chain in the same process passes it as [FollowOptions.Durable], so that
// it neither copies a record a power failure could still take nor pays
// an fsync of its own.
func (s *Store) Synced() uint64 { return s.synced.Load() }
