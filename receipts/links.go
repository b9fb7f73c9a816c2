package receipts

import "fmt"

// links collects, while chains verify, what [Verify] needs to check the
// delegation links of their records: every inner receipt a record lists
// must be a verified record of the same chain, issued before it.
type links struct {
	seen    map[string]linkTarget // id -> where the verified record is
	parents []linkParent
}

type linkTarget struct {
	chain string
	seq   uint64
}

type linkParent struct {
	rec     *Receipt
	segment string
	line    int
}

// note records a record that verified.
func (l *links) note(c *chainInput, e *entry) {
	if l.seen == nil {
		l.seen = map[string]linkTarget{}
	}
	l.seen[e.rec.ID] = linkTarget{chain: e.rec.Chain, seq: e.rec.Seq}
	if d := e.rec.Delegation; d != nil && len(d.Inner) > 0 {
		l.parents = append(l.parents, linkParent{rec: e.rec, segment: c.rel + c.segs[e.seg].name, line: e.l.no})
	}
}

// check reports the first record, in each chain, whose links do not hold.
// A single file (an export, one segment) need not hold the inner receipts,
// so there only the ones it holds are checked.
func (l *links) check(rep *Report, single bool) {
	for _, p := range l.parents {
		detail := ""
		for _, id := range p.rec.Delegation.Inner {
			t, ok := l.seen[id]
			switch {
			case !ok && single:
			case !ok:
				detail = fmt.Sprintf("it lists inner receipt %s, which is not a verified record of this store", id)
			case t.chain != p.rec.Chain:
				detail = fmt.Sprintf("it lists inner receipt %s of chain %s: the calls of a delegation are receipted by the process that ran it", id, ChainName(t.chain))
			case t.seq >= p.rec.Seq:
				detail = fmt.Sprintf("it lists inner receipt %s (seq %d), which does not come before it", id, t.seq)
			}
			if detail != "" {
				break
			}
		}
		if detail == "" {
			continue
		}
		prob := &Problem{Chain: p.rec.Chain, Segment: p.segment, Line: p.line, Seq: p.rec.Seq, Reason: ReasonBrokenLink, Detail: detail}
		for i := range rep.Chains {
			if c := &rep.Chains[i]; c.Chain == p.rec.Chain && c.Problem == nil {
				c.Problem = prob
			}
		}
		if rep.Problem == nil {
			rep.Problem = prob
		}
	}
}
