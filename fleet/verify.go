package fleet

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/talonhq/talon/receipts"
)

// verifyChunk is how many rows of a chain are verified at once: the rows
// go to a file of that many lines that [receipts.VerifyKeys] reads whole.
const verifyChunk = 20000

// VerifyOptions select what [DB.Verify] checks. The zero value checks
// every host with the public keys the hosts shipped.
type VerifyOptions struct {
	// Host limits the check to one host id.
	Host string
	// Keys are the trusted public keys; nil means each host's shipped
	// keys (talon.receipt_keys), which only shows the database is
	// consistent with itself, as a store's own key file does.
	Keys []ed25519.PublicKey
	// TempDir holds the chunks being verified; "" means the system's.
	TempDir string
}

// ChainCheck is the outcome of one host's chain.
type ChainCheck struct {
	Host     string
	Chain    string // the chain id, or "legacy"
	Records  int    // rows that verified, up to the first problem
	FirstSeq uint64
	LastSeq  uint64
	Head     string // hash of the last good record
	// Problem names the chain's first bad row; nil when all verify.
	Problem *RowProblem
}

// RowProblem locates a bad row: its host, chain and seq (as the row's
// columns say) and why.
type RowProblem struct {
	Host   string
	Chain  string
	Seq    uint64
	Reason receipts.Reason
	Detail string
}

func (p RowProblem) String() string {
	return fmt.Sprintf("host %s chain %s seq %d: %s: %s", p.Host, p.Chain, p.Seq, p.Reason, p.Detail)
}

// VerifyReport is the outcome of [DB.Verify].
type VerifyReport struct {
	Chains []ChainCheck
	Hosts  int
	// Records counts the rows that verified.
	Records int
}

// OK reports whether every chain verified.
func (r VerifyReport) OK() bool {
	for _, c := range r.Chains {
		if c.Problem != nil {
			return false
		}
	}
	return true
}

// String renders the report, one line per chain and a total.
func (r VerifyReport) String() string {
	var b strings.Builder
	bad := 0
	for _, c := range r.Chains {
		if c.Problem != nil {
			bad++
			fmt.Fprintf(&b, "FAIL %s\n", c.Problem)
			continue
		}
		fmt.Fprintf(&b, "ok   host %s chain %s: %d records (seq %d..%d), head %s\n", c.Host, c.Chain, c.Records, c.FirstSeq, c.LastSeq, shortHash(c.Head))
	}
	fmt.Fprintf(&b, "%d hosts, %d chains, %d records verified from the database", r.Hosts, len(r.Chains), r.Records)
	if bad > 0 {
		fmt.Fprintf(&b, "; %d chains FAIL", bad)
	}
	b.WriteString("\n")
	return b.String()
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// Verify checks the receipts in the database alone: every row's
// signature under the trusted keys and its hash chain, exactly as talon
// receipts verify checks a local store (receipts/FORMAT.md), plus what
// only the database can show: that each chain starts at seq 1, that no
// row the shipper recorded as shipped is missing from its end, and that
// the columns beside each record (seq, tool, time, …) say what the
// signed record says. Each problem names its host, chain and seq.
func (db *DB) Verify(ctx context.Context, o VerifyOptions) (VerifyReport, error) {
	return verifyWith(ctx, db.pool, o)
}

// querier is what reading the rows needs: a pool, or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func verifyWith(ctx context.Context, q querier, o VerifyOptions) (VerifyReport, error) {
	var rep VerifyReport
	hosts, err := receiptHosts(ctx, q, o.Host)
	if err != nil {
		return rep, err
	}
	tmp, err := os.MkdirTemp(o.TempDir, "talon-verify-")
	if err != nil {
		return rep, fmt.Errorf("verify receipts: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	for _, host := range hosts {
		rep.Hosts++
		keys, err := trustedKeys(ctx, q, host, o.Keys)
		if err != nil {
			return rep, err
		}
		chains, err := hostChains(ctx, q, host)
		if err != nil {
			return rep, err
		}
		for _, ch := range chains {
			c, err := verifyChain(ctx, q, host, ch, keys, tmp)
			if err != nil {
				return rep, err
			}
			rep.Records += c.Records
			rep.Chains = append(rep.Chains, c)
		}
	}
	return rep, nil
}

// receiptHosts lists the hosts that shipped receipts (or only host).
func receiptHosts(ctx context.Context, q querier, only string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT host_id FROM talon.chains WHERE $1 = '' OR host_id = $1
UNION SELECT host_id FROM talon.receipt_keys WHERE $1 = '' OR host_id = $1 ORDER BY 1`, only)
	if err != nil {
		return nil, fmt.Errorf("list the hosts: %w", err)
	}
	hosts, err := collectStrings(rows)
	if err != nil {
		return nil, fmt.Errorf("list the hosts: %w", err)
	}
	if only != "" && len(hosts) == 0 {
		return nil, fmt.Errorf("verify receipts: host %s has shipped nothing; list the hosts with talon fleet status", only)
	}
	return hosts, nil
}

// hostChains lists a host's chains: those with rows and those the
// shipper recorded (a chain whose rows all went is still checked).
func hostChains(ctx context.Context, q querier, host string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT chain FROM talon.chains WHERE host_id = $1
UNION SELECT DISTINCT chain FROM talon.receipts WHERE host_id = $1 ORDER BY 1`, host)
	if err != nil {
		return nil, fmt.Errorf("list the chains of host %s: %w", host, err)
	}
	return collectStrings(rows)
}

// trustedKeys returns the keys to verify host's records with: given, or
// the host's shipped keys, in both cases extended through the host's
// rotation records (an endorsed rotation makes its new key trusted, a
// rotation signed by a trusted key vouches for the key before).
func trustedKeys(ctx context.Context, q querier, host string, given []ed25519.PublicKey) ([]ed25519.PublicKey, error) {
	trusted := map[string]ed25519.PublicKey{}
	for _, k := range given {
		trusted[receipts.KeyID(k)] = k
	}
	if given == nil {
		rows, err := q.Query(ctx, `SELECT public_key FROM talon.receipt_keys WHERE host_id = $1`, host)
		if err != nil {
			return nil, fmt.Errorf("read the keys of host %s: %w", host, err)
		}
		lines, err := collectStrings(rows)
		if err != nil {
			return nil, fmt.Errorf("read the keys of host %s: %w", host, err)
		}
		for _, l := range lines {
			if k, err := receipts.ParsePublicKey(l); err == nil {
				trusted[receipts.KeyID(k)] = k
			}
		}
	}
	rows, err := q.Query(ctx, `SELECT record FROM talon.receipts WHERE host_id = $1 AND rotation`, host)
	if err != nil {
		return nil, fmt.Errorf("read the key rotations of host %s: %w", host, err)
	}
	lines, err := collectStrings(rows)
	if err != nil {
		return nil, fmt.Errorf("read the key rotations of host %s: %w", host, err)
	}
	var rots []*receipts.Receipt
	for _, l := range lines {
		if r, err := receipts.ParseRecord([]byte(l)); err == nil && r.Rotation != nil {
			rots = append(rots, r)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, r := range rots {
			msg := r.SigningBytes()
			if _, ok := trusted[r.KeyID]; !ok && r.Endorsement != "" {
				if from, ok := trusted[r.Rotation.FromKeyID]; ok && sigOK(from, msg, r.Endorsement) {
					if pub, err := pubKey(r.Rotation.PubKey); err == nil && receipts.KeyID(pub) == r.KeyID {
						trusted[r.KeyID], changed = pub, true
					}
				}
			}
			if _, ok := trusted[r.Rotation.FromKeyID]; !ok && r.Rotation.FromPubKey != "" {
				if cur, ok := trusted[r.KeyID]; ok && sigOK(cur, msg, r.Sig) {
					if pub, err := pubKey(r.Rotation.FromPubKey); err == nil && receipts.KeyID(pub) == r.Rotation.FromKeyID {
						trusted[r.Rotation.FromKeyID], changed = pub, true
					}
				}
			}
		}
	}
	out := make([]ed25519.PublicKey, 0, len(trusted))
	for _, k := range trusted {
		out = append(out, k)
	}
	return out, nil
}

func sigOK(pub ed25519.PublicKey, msg []byte, sig string) bool {
	b, err := base64.RawURLEncoding.DecodeString(sig)
	return err == nil && ed25519.Verify(pub, msg, b)
}

func pubKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("not an Ed25519 public key")
	}
	return b, nil
}

// row is one shipped receipt as the table holds it.
type row struct {
	seq                                                    uint64
	time                                                   time.Time
	id, tool, attribution, channel, profile, session, tier string
	allowedBy, keyID, hash, record                         string
	rotation                                               bool
}

// verifyChain checks one chain, a chunk of rows at a time.
func verifyChain(ctx context.Context, q querier, host, chain string, keys []ed25519.PublicKey, tmp string) (ChainCheck, error) {
	c := ChainCheck{Host: host, Chain: chain}
	fail := func(seq uint64, reason receipts.Reason, format string, args ...any) (ChainCheck, error) {
		c.Problem = &RowProblem{Host: host, Chain: chain, Seq: seq, Reason: reason, Detail: fmt.Sprintf(format, args...)}
		return c, nil
	}
	if len(keys) == 0 {
		return fail(0, receipts.ReasonUnknownKey, "no public key to verify with: the host shipped none; pass --pubkey")
	}
	var shipped int64
	err := q.QueryRow(ctx, `SELECT shipped_seq FROM talon.chains WHERE host_id = $1 AND chain = $2`, host, chain).Scan(&shipped)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("verify host %s chain %s: %w", host, chain, err)
	}
	rows, err := q.Query(ctx, `SELECT seq, time, id, tool, attribution, channel, profile, session, tier, allowed_by,
	key_id, rotation, hash, record FROM talon.receipts WHERE host_id = $1 AND chain = $2 ORDER BY seq, time`, host, chain)
	if err != nil {
		return c, fmt.Errorf("verify host %s chain %s: %w", host, chain, err)
	}
	defer rows.Close()
	var chunk []row
	var prevHead string
	var prevSeq uint64
	verify := func() (bool, error) {
		if len(chunk) == 0 {
			return true, nil
		}
		if c.Records == 0 && chunk[0].seq != 1 {
			_, _ = fail(chunk[0].seq, receipts.ReasonRemoved, "the database holds the chain from seq %d: seqs 1..%d are not there", chunk[0].seq, chunk[0].seq-1)
			return false, nil
		}
		first, _ := receipts.ParseRecord([]byte(chunk[0].record))
		if c.Records > 0 && first != nil && (first.Seq != prevSeq+1 || first.Prev != prevHead) {
			reason := receipts.ReasonBrokenChain
			if first.Seq != prevSeq+1 {
				reason = receipts.ReasonRemoved
			}
			_, _ = fail(chunk[0].seq, reason, "it does not continue from seq %d (head %s)", prevSeq, shortHash(prevHead))
			return false, nil
		}
		path := filepath.Join(tmp, "chunk.jsonl")
		if err := writeChunk(path, chunk); err != nil {
			return false, err
		}
		vr := receipts.VerifyKeys(path, keys)
		if vr.Err != nil {
			return false, fmt.Errorf("verify host %s chain %s: %w", host, chain, vr.Err)
		}
		// The columns of the rows the verifier passed must say what
		// their records say; a bad column before the verifier's first
		// problem is the chain's first problem.
		good := len(chunk)
		if vr.Problem != nil {
			good = min(good, max(0, vr.Problem.Line-1))
		}
		for i := range chunk[:good] {
			if p := checkColumns(host, chain, &chunk[i]); p != nil {
				c.Problem = p
				c.Records += i
				return false, nil
			}
		}
		if p := vr.Problem; p != nil {
			seq := p.Seq
			if p.Line >= 1 && p.Line <= len(chunk) {
				seq = chunk[p.Line-1].seq
			}
			detail := p.Detail
			if p.Reason == receipts.ReasonBadSignature || p.Reason == receipts.ReasonMalformed {
				detail += "; the row was changed in the database"
			}
			_, _ = fail(seq, p.Reason, "%s", detail)
			c.Records += max(0, p.Line-1)
			return false, nil
		}
		if len(vr.Chains) == 1 {
			if c.Records == 0 {
				c.FirstSeq = vr.Chains[0].FirstSeq
			}
			c.LastSeq, c.Head = vr.Chains[0].LastSeq, vr.Chains[0].Head
			prevSeq, prevHead = c.LastSeq, c.Head
		}
		c.Records += vr.Records
		chunk = chunk[:0]
		return true, nil
	}
	for rows.Next() {
		var r row
		var seq int64
		if err := rows.Scan(&seq, &r.time, &r.id, &r.tool, &r.attribution, &r.channel, &r.profile, &r.session, &r.tier,
			&r.allowedBy, &r.keyID, &r.rotation, &r.hash, &r.record); err != nil {
			return c, fmt.Errorf("verify host %s chain %s: %w", host, chain, err)
		}
		r.seq = uint64(seq)
		chunk = append(chunk, r)
		if len(chunk) == verifyChunk {
			ok, err := verify()
			if err != nil || !ok {
				return c, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("verify host %s chain %s: %w", host, chain, err)
	}
	if ok, err := verify(); err != nil || !ok {
		return c, err
	}
	if uint64(shipped) > c.LastSeq {
		from := c.LastSeq + 1
		return fail(from, receipts.ReasonRemoved, "the shipper recorded seq %d as shipped, but the database holds the chain only up to seq %d: seqs %d..%d were deleted",
			shipped, c.LastSeq, from, shipped)
	}
	return c, nil
}

// checkColumns compares a row's columns with its signed record.
func checkColumns(host, chain string, r *row) *RowProblem {
	bad := func(format string, args ...any) *RowProblem {
		return &RowProblem{Host: host, Chain: chain, Seq: r.seq, Reason: receipts.ReasonMalformed,
			Detail: fmt.Sprintf(format, args...) + "; the row was changed in the database"}
	}
	if strings.ContainsRune(r.record, '\n') {
		return bad("the record holds a line break")
	}
	rec, err := receipts.ParseRecord([]byte(r.record))
	if err != nil {
		return nil // the verifier names it
	}
	sum := sha256.Sum256([]byte(r.record))
	cols := []struct {
		name      string
		col, want string
	}{
		{"chain", chain, receipts.ChainName(rec.Chain)},
		{"seq", fmt.Sprint(r.seq), fmt.Sprint(rec.Seq)},
		{"time", r.time.UTC().Format(receipts.TimeLayout), rec.Time.UTC().Format(receipts.TimeLayout)},
		{"id", r.id, rec.ID},
		{"tool", r.tool, rec.Tool},
		{"attribution", r.attribution, rec.Attribution},
		{"channel", r.channel, rec.Channel},
		{"profile", r.profile, rec.Profile},
		{"session", r.session, rec.Session},
		{"tier", r.tier, rec.Tier},
		{"allowed_by", r.allowedBy, rec.AllowedBy},
		{"key_id", r.keyID, rec.KeyID},
		{"rotation", fmt.Sprint(r.rotation), fmt.Sprint(rec.Rotation != nil)},
		{"hash", r.hash, hex.EncodeToString(sum[:])},
	}
	for _, c := range cols {
		if c.col != c.want {
			return bad("column %s is %q, but the signed record says %q", c.name, clip(c.col), clip(c.want))
		}
	}
	return nil
}

func writeChunk(path string, chunk []row) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("verify receipts: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, r := range chunk {
		_, _ = w.WriteString(r.record)
		_ = w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("verify receipts: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("verify receipts: %w", err)
	}
	return nil
}
