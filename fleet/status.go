package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/talonhq/talon/receipts"

	"github.com/jackc/pgx/v5"
)

// ChainStatus is where one chain's shipping stands, as the database
// records it.
type ChainStatus struct {
	Host       string
	Chain      string
	ShippedSeq uint64
	ShippedAt  time.Time
	// LocalSeq is the last seq the shipper had read from the log.
	LocalSeq uint64
	// Problem says why the chain stopped being shipped; "" when it ships.
	Problem string
}

// Chains returns the shipping position of every chain, or of one host's
// chains when host is not empty.
func (db *DB) Chains(ctx context.Context, host string) ([]ChainStatus, error) {
	rows, err := db.pool.Query(ctx, `SELECT host_id, chain, shipped_seq, shipped_at, local_seq, problem FROM talon.chains
WHERE $1 = '' OR host_id = $1 ORDER BY host_id, chain`, host)
	if err != nil {
		return nil, fmt.Errorf("read the shipping positions: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (ChainStatus, error) {
		var c ChainStatus
		var shipped, local int64
		err := r.Scan(&c.Host, &c.Chain, &shipped, &c.ShippedAt, &local, &c.Problem)
		c.ShippedSeq, c.LocalSeq = uint64(shipped), uint64(local)
		return c, err
	})
}

// PendingCount is how many approvals wait for an answer, on every host.
func (db *DB) PendingCount(ctx context.Context) (int, error) {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM talon.approvals WHERE state = 'pending' AND deadline > now()`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

// LocalLag is how far one local chain is ahead of the database.
type LocalLag struct {
	Chain string
	// Shipped and Local are the last seq in the database and in the log.
	Shipped, Local uint64
	// Oldest is the time of the oldest record not shipped; zero when
	// everything is shipped.
	Oldest time.Time
	// Problem is the database's note on the chain.
	Problem string
}

// Lag compares each chain of the local store dir with its shipping
// position for host: how many records wait and since when.
func (db *DB) Lag(ctx context.Context, host, dir string) ([]LocalLag, error) {
	ids, err := receipts.ListChains(dir)
	if err != nil {
		return nil, fmt.Errorf("list the local chains: %w", err)
	}
	var out []LocalLag
	for _, id := range ids {
		l := LocalLag{Chain: receipts.ChainName(id)}
		var shipped int64
		err := db.pool.QueryRow(ctx, `SELECT shipped_seq, problem FROM talon.chains WHERE host_id = $1 AND chain = $2`, host, l.Chain).
			Scan(&shipped, &l.Problem)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("read the shipping position of chain %s: %w", l.Chain, err)
		}
		l.Shipped, l.Local = uint64(shipped), uint64(shipped)
		f, err := receipts.FollowChain(dir, id, receipts.FollowOptions{After: l.Shipped, NoSync: true})
		if err != nil {
			return nil, err
		}
		for {
			recs, err := f.Next(4096)
			if err != nil || len(recs) == 0 {
				break
			}
			if l.Oldest.IsZero() {
				l.Oldest = recs[0].Time
			}
			l.Local = recs[len(recs)-1].Seq
		}
		_ = f.Close()
		out = append(out, l)
	}
	return out, nil
}
