package receipts

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Filter selects receipts for [List]. The zero Filter selects all.
type Filter struct {
	Tool    string    // exact tool name
	Session string    // exact session id
	Since   time.Time // at or after; zero: no bound
	Until   time.Time // before; zero: no bound
	Limit   int       // keep only the last Limit matches; 0: all
}

func (f Filter) match(r *Receipt) bool {
	return (f.Tool == "" || r.Tool == f.Tool) &&
		(f.Session == "" || r.Session == f.Session) &&
		(f.Since.IsZero() || !r.Time.Before(f.Since)) &&
		(f.Until.IsZero() || r.Time.Before(f.Until))
}

// List returns the receipts of a store directory (or a chain directory,
// or a single JSONL file) that match filter, oldest first: the chains are
// merged by time, then chain, then seq, each chain kept in its own order.
// It takes no lock, so it works while Stores write, and it does not check
// signatures: use [Verify].
//
// When some lines are not valid records, List returns the receipts it
// could read together with an error wrapping [ErrDamaged]. A partial line
// at the very end of the log (a write in progress, or a crash that no
// reopening has recorded yet) holds no acknowledged receipt and is skipped
// without error; [Verify] reports it.
func List(dir string, filter Filter) ([]Receipt, error) {
	var out []Receipt
	err := scanRecords(dir, true, func(r *Receipt) bool {
		if filter.match(r) {
			out = append(out, *r)
			if filter.Limit > 0 && len(out) > 2*filter.Limit {
				out = append(out[:0], out[len(out)-filter.Limit:]...)
			}
		}
		return true
	})
	if filter.Limit > 0 && len(out) > filter.Limit {
		out = out[len(out)-filter.Limit:]
	}
	if err != nil && !errors.Is(err, ErrDamaged) {
		return nil, fmt.Errorf("list receipts: %w", err)
	}
	return out, err
}

// Find returns one receipt by id (case-insensitive), by token
// (tr1.<seq>.<sig>, which must match the record's signature), by
// CHAIN:SEQ (a chain id, or "legacy", and a decimal seq), or by a bare
// decimal seq when only one chain has that seq.
// It does not check the signature against a key: use [Verify].
//
// # Errors
//
// [ErrNotFound] when nothing matches, [ErrAmbiguous] when a bare seq is in
// several chains, [ErrInvalidToken] for a malformed token.
func Find(dir, idOrSeq string) (*Receipt, error) {
	q := strings.TrimSpace(idOrSeq)
	var match func(*Receipt) bool
	bareSeq := false
	switch chain, num, isPair := strings.Cut(q, ":"); {
	case strings.HasPrefix(q, "tr1."):
		seq, sig, err := ParseToken(q)
		if err != nil {
			return nil, err
		}
		match = func(r *Receipt) bool { return r.Seq == seq && r.Sig == sig }
	case isPair:
		if chain == LegacyChain {
			chain = ""
		} else if !validChainID(chain) {
			return nil, fmt.Errorf("find receipt: %w: %q is not a chain id (16 hex digits) or %s; list them with talon receipts list", ErrNotFound, clip(chain), LegacyChain)
		}
		seq, err := parseSeq(num)
		if err != nil {
			return nil, err
		}
		match = func(r *Receipt) bool { return r.Chain == chain && r.Seq == seq }
	case q != "" && strings.Trim(q, "0123456789") == "":
		seq, err := parseSeq(q)
		if err != nil {
			return nil, err
		}
		bareSeq = true
		match = func(r *Receipt) bool { return r.Seq == seq }
	default:
		match = func(r *Receipt) bool { return strings.EqualFold(r.ID, q) }
	}
	var found []*Receipt
	err := scanRecords(dir, false, func(r *Receipt) bool {
		if match(r) {
			found = append(found, r)
			return bareSeq
		}
		return true
	})
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) > 1 {
		var names []string
		for _, r := range found {
			names = append(names, ChainName(r.Chain)+":"+strconv.FormatUint(r.Seq, 10))
		}
		return nil, fmt.Errorf("find receipt: %w: %d chains have seq %s (%s); name one as CHAIN:SEQ, or give the receipt's id or token",
			ErrAmbiguous, len(found), q, strings.Join(names, ", "))
	}
	if err != nil && !errors.Is(err, ErrDamaged) {
		return nil, fmt.Errorf("find receipt: %w", err)
	}
	nf := fmt.Errorf("find receipt: %w: nothing matches %q in %s; list ids and seqs with talon receipts list", ErrNotFound, clip(q), dir)
	if err != nil {
		return nil, errors.Join(nf, err)
	}
	return nil, nf
}

func parseSeq(s string) (uint64, error) {
	seq, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("find receipt: %w: seq %q is not a number in range", ErrNotFound, clip(s))
	}
	return seq, nil
}

// Export writes every record of a store directory (or chain directory, or
// single file) to w as JSONL, exactly as stored, in the order of [List]:
// the chains merged by time, each in its own order. Torn tails that a later
// record notes are left out; the note itself stays in the noting record.
// The output verifies with [Verify] and the store's public key, chain by
// chain.
//
// When some lines are not valid records, Export writes the others and
// returns an error wrapping [ErrDamaged].
func Export(dir string, w io.Writer) error {
	var werr error
	var buf []byte
	err := scanRecords(dir, true, func(r *Receipt) bool {
		buf = append(append(buf[:0], r.raw...), '\n')
		if _, werr = w.Write(buf); werr != nil {
			return false
		}
		return true
	})
	if werr != nil {
		return fmt.Errorf("export receipts: %w", werr)
	}
	if err != nil && !errors.Is(err, ErrDamaged) {
		return fmt.Errorf("export receipts: %w", err)
	}
	return err
}
