package fleet

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/talonhq/talon/receipts"
)

// maxListed bounds the seqs a comparison lists per kind and chain.
const maxListed = 5

// ChainComparison compares one chain of the local log with what the
// database holds of it.
type ChainComparison struct {
	Chain string // the chain id, or "legacy"
	// LocalLast and ShippedLast are the last seq of the local log and of
	// the database (0 when there is none).
	LocalLast, ShippedLast uint64
	// Same counts the seqs both hold with the same bytes.
	Same int
	// MissingLocally are seqs the database holds and the local log does
	// not: records cut from the log (from its end, or a whole chain),
	// which the log alone cannot show.
	MissingLocally []SeqRange
	// Differ are seqs both hold with different records.
	Differ []SeqRange
	// NotShipped are seqs the local log holds and the database does not:
	// not shipped yet (the shipper's lag, or no shipper ran).
	NotShipped []SeqRange
}

// SeqRange is a run of seqs, From..To inclusive.
type SeqRange struct{ From, To uint64 }

func (r SeqRange) String() string {
	if r.From == r.To {
		return fmt.Sprint(r.From)
	}
	return fmt.Sprintf("%d..%d", r.From, r.To)
}

func addSeq(rs []SeqRange, seq uint64) []SeqRange {
	if n := len(rs); n > 0 && rs[n-1].To+1 == seq {
		rs[n-1].To = seq
		return rs
	}
	return append(rs, SeqRange{seq, seq})
}

// Comparison is the outcome of [DB.CompareLocal].
type Comparison struct {
	Host   string
	Chains []ChainComparison
}

// OK reports whether the local log holds every record the database
// holds, byte for byte. Records not shipped yet do not make it fail.
func (c Comparison) OK() bool {
	for _, ch := range c.Chains {
		if len(ch.MissingLocally) > 0 || len(ch.Differ) > 0 {
			return false
		}
	}
	return true
}

func listRanges(rs []SeqRange) string {
	var parts []string
	for i, r := range rs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-maxListed))
			break
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// String renders the comparison, one line per chain.
func (c Comparison) String() string {
	var b strings.Builder
	for _, ch := range c.Chains {
		status := "ok  "
		if len(ch.MissingLocally) > 0 || len(ch.Differ) > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s host %s chain %s: local up to seq %d, database up to seq %d, %d records the same", status, c.Host, ch.Chain,
			ch.LocalLast, ch.ShippedLast, ch.Same)
		if len(ch.MissingLocally) > 0 {
			fmt.Fprintf(&b, "; missing from the local log: seq %s (cut from the log after they were shipped)", listRanges(ch.MissingLocally))
		}
		if len(ch.Differ) > 0 {
			fmt.Fprintf(&b, "; different in the local log: seq %s", listRanges(ch.Differ))
		}
		if len(ch.NotShipped) > 0 {
			fmt.Fprintf(&b, "; not shipped yet: seq %s", listRanges(ch.NotShipped))
		}
		b.WriteString("\n")
	}
	if len(c.Chains) == 0 {
		fmt.Fprintf(&b, "host %s: no chains, locally or in the database\n", c.Host)
	}
	return b.String()
}

// CompareLocal compares the receipt store dir, host's local log, with
// the records the database holds for host, chain by chain and seq by
// seq: records missing locally (what a log cut from its end cannot show
// by itself), records that differ, and records not shipped yet.
func (db *DB) CompareLocal(ctx context.Context, host, dir string) (Comparison, error) {
	cmp := Comparison{Host: host}
	local, err := receipts.ListChains(dir)
	if err != nil {
		return cmp, fmt.Errorf("compare with the database: %w", err)
	}
	remote, err := hostChains(ctx, db.pool, host)
	if err != nil {
		return cmp, err
	}
	names := map[string]string{} // chain name -> local id
	for _, id := range local {
		names[receipts.ChainName(id)] = id
	}
	for _, n := range remote {
		if _, ok := names[n]; !ok {
			names[n] = "-" // in the database only
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		c, err := db.compareChain(ctx, host, dir, n, names[n])
		if err != nil {
			return cmp, err
		}
		cmp.Chains = append(cmp.Chains, c)
	}
	return cmp, nil
}

func (db *DB) compareChain(ctx context.Context, host, dir, name, id string) (ChainComparison, error) {
	c := ChainComparison{Chain: name}
	var f *receipts.Follower
	if id != "-" {
		var err error
		if f, err = receipts.FollowChain(dir, id, receipts.FollowOptions{NoSync: true}); err != nil {
			return c, err
		}
		defer func() { _ = f.Close() }()
	}
	var buf []*receipts.Receipt
	nextLocal := func() (*receipts.Receipt, error) {
		if f == nil {
			return nil, nil
		}
		if len(buf) == 0 {
			got, err := f.Next(4096)
			if err != nil {
				return nil, fmt.Errorf("read the local chain %s: %w", name, err)
			}
			buf = got
		}
		if len(buf) == 0 {
			return nil, nil
		}
		r := buf[0]
		buf = buf[1:]
		return r, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, hash FROM talon.receipts WHERE host_id = $1 AND chain = $2 ORDER BY seq, time`, host, name)
	if err != nil {
		return c, fmt.Errorf("compare chain %s: %w", name, err)
	}
	defer rows.Close()
	loc, err := nextLocal()
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var seq64 int64
		var hash string
		if err := rows.Scan(&seq64, &hash); err != nil {
			return c, fmt.Errorf("compare chain %s: %w", name, err)
		}
		seq := uint64(seq64)
		c.ShippedLast = max(c.ShippedLast, seq)
		for loc != nil && loc.Seq < seq {
			c.LocalLast = loc.Seq
			c.NotShipped = addSeq(c.NotShipped, loc.Seq)
			if loc, err = nextLocal(); err != nil {
				return c, err
			}
		}
		switch {
		case loc == nil || loc.Seq > seq:
			c.MissingLocally = addSeq(c.MissingLocally, seq)
		case loc.Hash() == hash:
			c.Same++
			c.LocalLast = loc.Seq
			if loc, err = nextLocal(); err != nil {
				return c, err
			}
		default:
			c.Differ = addSeq(c.Differ, seq)
			c.LocalLast = loc.Seq
			if loc, err = nextLocal(); err != nil {
				return c, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("compare chain %s: %w", name, err)
	}
	for loc != nil {
		c.LocalLast = loc.Seq
		c.NotShipped = addSeq(c.NotShipped, loc.Seq)
		if loc, err = nextLocal(); err != nil {
			return c, err
		}
	}
	return c, nil
}
