package receipts

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
)

// Reason says why a record is bad.
type Reason string

// The reasons Verify gives.
const (
	ReasonBadSignature Reason = "bad signature" // the signature (or endorsement) does not verify
	ReasonBrokenChain  Reason = "broken chain"  // prev is not the hash of the record before
	ReasonGap          Reason = "gap in seq"    // seq skips numbers though prev chains
	ReasonTorn         Reason = "torn record"   // a cut-short write that no later segment records
	ReasonUnknownKey   Reason = "unknown key"   // signed by a key that is not trusted
	ReasonReordered    Reason = "reordered"     // a later record appears before an earlier one
	ReasonInserted     Reason = "inserted"      // a record that does not belong between its neighbours
	ReasonRemoved      Reason = "removed"       // records are missing before this one
	ReasonMalformed    Reason = "malformed"     // not a valid record at all
	ReasonBrokenLink   Reason = "broken link"   // a delegation lists an inner receipt the chain does not hold before it
)

// Problem locates the first bad record of a chain.
type Problem struct {
	Chain   string // the chain's id; "" for the legacy chain
	Segment string // segment file, relative to the verified path ("chains/<id>/segment-000001.jsonl")
	Line    int    // 1-based line number in the segment
	Seq     uint64 // the record's seq; 0 when it has none
	Reason  Reason
	Detail  string
}

// TornTail is a torn tail that a later record notes: the bytes are kept,
// excluded from the chain, and their hash is signed.
type TornTail struct {
	Chain   string // the chain's id; "" for the legacy chain
	Segment string // segment file, relative to the verified path
	Line    int    // line where the torn bytes start
	Offset  int64  // byte offset where they start
	Length  int64
	NotedBy uint64 // seq of the record that notes it
}

// ChainReport is the outcome of verifying one chain.
type ChainReport struct {
	Chain    string // the chain's id; "" for the legacy chain
	Segments int    // non-empty segments read
	Records  int    // records that verified, up to the first problem
	FirstSeq uint64 // seq of the first good record
	LastSeq  uint64 // seq of the last good record
	Head     string // hash of the last good record (the next prev)
	Torn     []TornTail
	// Problem is the chain's first bad record; nil when all of it verifies.
	Problem *Problem
}

// Report is the outcome of [Verify]: one [ChainReport] per chain, and the
// totals.
type Report struct {
	Path   string        // what was verified
	Chains []ChainReport // the legacy chain first, then by chain id
	// Totals over the chains.
	Segments int
	Records  int
	Torn     []TornTail
	// FirstSeq, LastSeq and Head are those of the only chain, when the log
	// has exactly one; zero otherwise.
	FirstSeq uint64
	LastSeq  uint64
	Head     string
	Keys     []string // ids of the keys that signed the good records
	// Problem is the first bad record of the first chain that has one; nil
	// when every chain verifies.
	Problem *Problem
	// Err is set when verification could not run at all (unreadable
	// input, no public key).
	Err error
}

// OK reports whether the log verified: it was readable and no chain has a
// problem. Noted torn tails do not make a log fail.
func (r Report) OK() bool { return r.Err == nil && r.Problem == nil }

// Verify checks every signature and the hash chains of a store directory,
// of one chain directory, or of a single JSONL file (one segment, or what
// [Export] wrote), using only the files and public keys: no private key is
// needed. Each chain is verified on its own; a problem in one (a writer
// killed mid-write) never fails the others.
//
// pub is the trusted key; nil means every key in the public key file of
// the store (receipt-key.pub). That file only proves the log is consistent
// with itself, since whoever can rewrite the log can rewrite it too: an
// auditor passes a key obtained separately. Keys introduced by a rotation
// record (in any chain) become trusted when the rotation is endorsed by a
// trusted key, and a rotation record signed by a trusted key vouches for
// the key before it.
//
// The report names each chain's first bad record and why; see [Reason].
// Whole records cut from the end of a chain, or a whole chain removed,
// cannot be detected from the log alone: compare a chain's LastSeq and
// Head with a receipt or token you hold.
func Verify(path string, pub ed25519.PublicKey) Report {
	if pub == nil {
		return VerifyKeys(path, nil)
	}
	return VerifyKeys(path, []ed25519.PublicKey{pub})
}

// VerifyKeys is [Verify] with several trusted keys (an empty list means the
// public key file, as a nil key does for Verify).
func VerifyKeys(path string, keys []ed25519.PublicKey) Report {
	rep := Report{Path: path}
	in, err := openLog(path)
	if err != nil {
		rep.Err = fmt.Errorf("verify receipts: %w", err)
		return rep
	}
	if len(keys) == 0 {
		keys, err = ReadPublicKeys(PublicKeyPath(in.keyDir))
		if err != nil {
			rep.Err = fmt.Errorf("verify receipts: %w: %v; pass the public key with --pubkey", ErrNoPublicKey, err)
			return rep
		}
	}
	v := &verifier{in: in, trusted: map[string]ed25519.PublicKey{}, signers: map[string]bool{}}
	for _, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			rep.Err = fmt.Errorf("verify receipts: %w: public key has %d bytes", ErrInvalidKey, len(k))
			return rep
		}
		v.trusted[KeyID(k)] = k
	}
	v.extendTrust()
	for _, c := range in.chains {
		cv := &chainVerifier{verifier: v, c: c, rep: &ChainReport{Chain: c.id}, last: c.lastNonEmpty()}
		if err := cv.walk(); err != nil {
			rep.Err = fmt.Errorf("verify receipts: %w", err)
			break
		}
		cr := cv.rep
		if cr.Segments == 0 && cr.Problem == nil {
			continue
		}
		rep.Chains = append(rep.Chains, *cr)
		rep.Segments += cr.Segments
		rep.Records += cr.Records
		rep.Torn = append(rep.Torn, cr.Torn...)
		if rep.Problem == nil {
			rep.Problem = cr.Problem
		}
	}
	if rep.Err == nil {
		v.links.check(&rep, v.in.single)
	}
	if len(rep.Chains) == 1 {
		c := rep.Chains[0]
		rep.FirstSeq, rep.LastSeq, rep.Head = c.FirstSeq, c.LastSeq, c.Head
	}
	for id := range v.signers {
		rep.Keys = append(rep.Keys, id)
	}
	slices.Sort(rep.Keys)
	return rep
}

type keyStatus uint8

const (
	sigOK keyStatus = iota
	sigUnknownKey
	sigBad
)

// entry is one line of a segment, checked.
type entry struct {
	seg      int // index into in.segs
	l        line
	rec      *Receipt
	err      error // parse error
	sig      keyStatus
	hash     string
	first    bool // first line of its segment
	lastLine bool // last line of the last non-empty segment
}

func (e *entry) usable() bool { return e.l.complete && e.err == nil && e.sig == sigOK }

type verifier struct {
	in      *logInput
	trusted map[string]ed25519.PublicKey
	signers map[string]bool
	links   links
}

// chainVerifier walks one chain.
type chainVerifier struct {
	*verifier
	c    *chainInput
	rep  *ChainReport
	last int // the chain's last non-empty segment

	// chain state: the last good record
	have  bool
	seq   uint64
	hash  string
	keyID string

	// entries of the segments being walked: cur and the next non-empty one
	cache map[int][]entry
}

// extendTrust follows rotation records until no more keys become trusted:
// forward through endorsements, backward through signed from_pubkey.
func (v *verifier) extendTrust() {
	for changed := true; changed; {
		changed = false
		for _, r := range v.in.rotations {
			msg := r.SigningBytes()
			if _, ok := v.trusted[r.KeyID]; !ok && r.Endorsement != "" {
				if from, ok := v.trusted[r.Rotation.FromKeyID]; ok && verifySig(from, msg, r.Endorsement) {
					if pub, err := decodePub(r.Rotation.PubKey); err == nil {
						v.trusted[r.KeyID] = pub
						changed = true
					}
				}
			}
			if _, ok := v.trusted[r.Rotation.FromKeyID]; !ok && r.Rotation.FromPubKey != "" {
				if cur, ok := v.trusted[r.KeyID]; ok && verifySig(cur, msg, r.Sig) {
					if pub, err := decodePub(r.Rotation.FromPubKey); err == nil {
						v.trusted[r.Rotation.FromKeyID] = pub
						changed = true
					}
				}
			}
		}
	}
}

func verifySig(pub ed25519.PublicKey, msg []byte, sig string) bool {
	b, err := decodeSig(sig)
	return err == nil && ed25519.Verify(pub, msg, b)
}

// entries reads and checks segment i (parsing and signatures in parallel).
// It keeps at most two segments in memory. The one segment of a chain of
// a single file is that file's lines of the chain.
func (v *chainVerifier) entries(i int) ([]entry, error) {
	if e, ok := v.cache[i]; ok {
		return e, nil
	}
	for k := range v.cache {
		if k < i-1 {
			delete(v.cache, k)
		}
	}
	if v.cache == nil {
		v.cache = map[int][]entry{}
	}
	if v.in.single {
		ents := make([]entry, len(v.c.idx))
		lastLine := len(v.in.lines) - 1
		parallel(len(ents), func(j int) {
			k := v.c.idx[j]
			ents[j] = v.check(0, v.in.lines[k], v.in.recs[k], v.in.errs[k])
			ents[j].first = j == 0
			ents[j].lastLine = k == lastLine
		})
		v.cache[i] = ents
		return ents, nil
	}
	data, err := os.ReadFile(v.c.segs[i].path)
	if err != nil {
		return nil, fmt.Errorf("read segment: %w", err)
	}
	cut, ref, mismatch := v.c.tornCut(i, data)
	lines := splitLines(data, 0)
	n := len(lines)
	for n > 0 && lines[n-1].off >= cut {
		n--
	}
	if ref != nil && mismatch == "" {
		t := TornTail{Chain: v.c.id, Segment: v.c.rel + v.c.segs[i].name, Offset: cut, Length: int64(len(data)) - cut}
		if n < len(lines) {
			t.Line = lines[n].no
		}
		if r := v.c.first[ref.by]; r != nil {
			t.NotedBy = r.Seq
		}
		v.rep.Torn = append(v.rep.Torn, t)
	}
	ents := make([]entry, n)
	parallel(n, func(j int) {
		var rec *Receipt
		var perr error
		if lines[j].complete {
			rec, perr = ParseRecord(lines[j].data)
		}
		ents[j] = v.check(i, lines[j], rec, perr)
		ents[j].first = j == 0
		ents[j].lastLine = i == v.last && j == len(lines)-1
	})
	v.cache[i] = ents
	return ents, nil
}

// parallel calls fn for 0..n-1, spread over the CPUs.
func parallel(n int, fn func(j int)) {
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() {
			for j := lo; j < hi; j++ {
				fn(j)
			}
		})
	}
	wg.Wait()
}

// check judges one line on its own: its record (parsed by the caller)
// and its signature.
func (v *chainVerifier) check(seg int, l line, rec *Receipt, perr error) entry {
	e := entry{seg: seg, l: l}
	if !l.complete {
		return e
	}
	e.rec, e.err = rec, perr
	if e.err != nil {
		return e
	}
	e.hash = sha256Hex(l.data)
	pub, ok := v.trusted[e.rec.KeyID]
	switch {
	case !ok:
		e.sig = sigUnknownKey
	case e.rec.VerifySignature(pub) != nil:
		e.sig = sigBad
	}
	return e
}

// pos is a place in the walk.
type pos struct{ seg, idx int }

// next returns the entry after p in walk order, crossing into later
// non-empty segments.
func (v *chainVerifier) next(p pos) (*entry, pos, error) {
	ents, err := v.entries(p.seg)
	if err != nil {
		return nil, p, err
	}
	if p.idx+1 < len(ents) {
		return &ents[p.idx+1], pos{p.seg, p.idx + 1}, nil
	}
	for s := p.seg + 1; s < len(v.c.segs); s++ {
		if v.c.sizes[s] == 0 {
			continue
		}
		ents, err := v.entries(s)
		if err != nil {
			return nil, p, err
		}
		if len(ents) > 0 {
			return &ents[0], pos{s, 0}, nil
		}
	}
	return nil, p, nil
}

func (v *chainVerifier) walk() error {
	for s := range v.c.segs {
		if v.c.sizes[s] == 0 {
			continue
		}
		v.rep.Segments++
		ents, err := v.entries(s)
		if err != nil {
			return err
		}
		for j := range ents {
			p, err := v.judge(&ents[j], pos{s, j})
			if err != nil {
				return err
			}
			if p != nil {
				v.rep.Problem = p
				return nil
			}
			e := &ents[j]
			v.links.note(v.c, e)
			v.have, v.seq, v.hash, v.keyID = true, e.rec.Seq, e.hash, e.rec.KeyID
			v.signers[e.rec.KeyID] = true
			v.rep.Records++
			if v.rep.Records == 1 {
				v.rep.FirstSeq = e.rec.Seq
			}
			v.rep.LastSeq, v.rep.Head = e.rec.Seq, e.hash
		}
	}
	return nil
}

// judge returns the problem with entry e at p, or nil when it extends the
// chain.
func (v *chainVerifier) judge(e *entry, p pos) (*Problem, error) {
	prob := func(r Reason, format string, args ...any) *Problem {
		pr := &Problem{Chain: v.c.id, Segment: v.c.rel + v.c.segs[e.seg].name, Line: e.l.no, Reason: r, Detail: fmt.Sprintf(format, args...)}
		if e.rec != nil {
			pr.Seq = e.rec.Seq
		}
		return pr
	}
	const crashHint = "; if the writer crashed, opening the store records it as a torn tail"
	if !e.l.complete {
		if e.lastLine {
			return prob(ReasonTorn, "the last line ends without a newline: a write was cut short%s", crashHint), nil
		}
		return prob(ReasonTorn, "the segment ends in a partial line that no later segment notes"), nil
	}
	if !e.usable() {
		inserted, err := v.nextFits(p)
		if err != nil {
			return nil, err
		}
		switch {
		case inserted:
			return prob(ReasonInserted, "this line does not belong to the log (%s); the next record continues the chain without it", v.why(e)), nil
		case e.err != nil && e.lastLine:
			return prob(ReasonTorn, "the last line is not a valid record (%v)%s", e.err, crashHint), nil
		case e.err != nil:
			return prob(ReasonMalformed, "%v", e.err), nil
		case e.sig == sigUnknownKey:
			return prob(ReasonUnknownKey, "signed by key %s, which is not trusted: pass its public key, or check where this record came from", e.rec.KeyID), nil
		default:
			return prob(ReasonBadSignature, "the signature does not verify under key %s: the record was changed after signing", e.rec.KeyID), nil
		}
	}
	r := e.rec
	if r.Chain != v.c.id {
		return prob(ReasonInserted, "a record of chain %s is in chain %s: records cannot move between chains", ChainName(r.Chain), ChainName(v.c.id)), nil
	}
	if pr, err := v.judgeChain(e, p, prob); pr != nil || err != nil {
		return pr, err
	}
	if (r.Rotation != nil || r.Torn != nil) && !e.first && !v.in.single {
		return prob(ReasonMalformed, "a rotation or torn note may only appear in the first record of a segment"), nil
	}
	if v.have && r.KeyID != v.keyID && (r.Rotation == nil || r.Rotation.FromKeyID != v.keyID) {
		return prob(ReasonUnknownKey, "signed by key %s, but the records before were signed by %s and no rotation record links them", r.KeyID, v.keyID), nil
	}
	if v.have && r.Rotation != nil && r.Rotation.FromKeyID != v.keyID {
		return prob(ReasonBrokenChain, "the rotation names previous key %s, but the records before were signed by %s", r.Rotation.FromKeyID, v.keyID), nil
	}
	if r.Rotation != nil && r.Endorsement != "" {
		if from, ok := v.trusted[r.Rotation.FromKeyID]; ok && !verifySig(from, r.SigningBytes(), r.Endorsement) {
			return prob(ReasonBadSignature, "the endorsement by the previous key %s does not verify", r.Rotation.FromKeyID), nil
		}
	}
	for _, n := range r.Torn {
		if pr := v.checkNote(n, e, prob); pr != nil {
			return pr, nil
		}
	}
	return nil, nil
}

// judgeChain checks seq and prev of a record whose signature verified.
func (v *chainVerifier) judgeChain(e *entry, p pos, prob func(Reason, string, ...any) *Problem) (*Problem, error) {
	r := e.rec
	if !v.have {
		if v.in.single {
			return nil, nil
		}
		if r.Seq != 1 {
			return prob(ReasonRemoved, "the log starts at seq %d: records 1..%d are missing", r.Seq, r.Seq-1), nil
		}
		if r.Prev != GenesisPrev {
			return prob(ReasonBrokenChain, "the first record's prev is %s, not the genesis value (64 zeros)", short(r.Prev)), nil
		}
		return nil, nil
	}
	want := v.seq + 1
	switch {
	case r.Seq == want && r.Prev == v.hash:
		return nil, nil
	case r.Seq == want:
		inserted, err := v.nextFits(p)
		if err != nil {
			return nil, err
		}
		if inserted {
			return prob(ReasonInserted, "seq %d does not chain from seq %d, but the next record does", r.Seq, v.seq), nil
		}
		return prob(ReasonBrokenChain, "prev is %s, but seq %d hashes to %s", short(r.Prev), v.seq, short(v.hash)), nil
	case r.Seq > want:
		at, err := v.laterSeq(p, want)
		if err != nil {
			return nil, err
		}
		if at != nil {
			return prob(ReasonReordered, "seq %d comes before seq %d (%s line %d)", r.Seq, want, v.c.rel+v.c.segs[at.seg].name, at.l.no), nil
		}
		if r.Prev == v.hash {
			return prob(ReasonGap, "seq jumps from %d to %d although prev chains", v.seq, r.Seq), nil
		}
		if want == r.Seq-1 {
			return prob(ReasonRemoved, "seq %d is missing before this record", want), nil
		}
		return prob(ReasonRemoved, "seqs %d..%d are missing before this record", want, r.Seq-1), nil
	default:
		return prob(ReasonInserted, "seq %d appears again after seq %d", r.Seq, v.seq), nil
	}
}

func (v *chainVerifier) why(e *entry) string {
	switch {
	case e.err != nil:
		return "not a valid record"
	case e.sig == sigUnknownKey:
		return "signed by untrusted key " + e.rec.KeyID
	default:
		return "bad signature"
	}
}

// nextFits reports whether the entry after p continues the chain from the
// last good record, which makes the entry at p an insertion.
func (v *chainVerifier) nextFits(p pos) (bool, error) {
	n, _, err := v.next(p)
	if err != nil || n == nil || !n.usable() {
		return false, err
	}
	if !v.have {
		return !v.in.single && n.rec.Seq == 1 && n.rec.Prev == GenesisPrev, nil
	}
	return n.rec.Seq == v.seq+1 && n.rec.Prev == v.hash, nil
}

// laterSeq looks for a good record with the given seq after p, in this
// segment and the next non-empty one.
func (v *chainVerifier) laterSeq(p pos, seq uint64) (*entry, error) {
	seg, crossed := p.seg, false
	for q := p; ; {
		n, np, err := v.next(q)
		if err != nil || n == nil {
			return nil, err
		}
		if np.seg != seg {
			if crossed {
				return nil, nil
			}
			seg, crossed = np.seg, true
		}
		if n.usable() && n.rec.Seq == seq {
			return n, nil
		}
		q = np
	}
}

func (v *chainVerifier) checkNote(n TornNote, e *entry, prob func(Reason, string, ...any) *Problem) *Problem {
	if v.in.single {
		return nil
	}
	idx := -1
	for i, s := range v.c.segs {
		if s.name == n.Segment {
			idx = i
		}
	}
	if idx < 0 {
		return prob(ReasonRemoved, "it notes a torn tail in %s, which is missing", n.Segment)
	}
	if idx >= e.seg {
		return prob(ReasonMalformed, "it notes a torn tail in %s, which does not come before it", n.Segment)
	}
	data, err := os.ReadFile(v.c.segs[idx].path)
	if err != nil {
		return prob(ReasonTorn, "cannot read %s to check the torn tail it notes: %v", n.Segment, err)
	}
	if ref, ok := v.c.notes[n.Segment]; !ok || ref.note != n {
		return prob(ReasonTorn, "it notes a torn tail in %s that an earlier record already notes differently", n.Segment)
	}
	if _, _, mismatch := v.c.tornCut(idx, data); mismatch != "" {
		return prob(ReasonTorn, "%s", mismatch)
	}
	return nil
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}
