package receipts

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gowebpki/jcs"
)

// Version is the record format version this package writes. It reads
// version 1 too: the records of a store written before chains existed,
// which have no chain member (see FORMAT.md).
const Version = 2

// versionLegacy is the version of records without a chain.
const versionLegacy = 1

// Tier names, as recorded in the tier field.
const (
	TierLow    = "low"
	TierMedium = "medium"
	TierHigh   = "high"
)

// How a call was allowed, as recorded in the allowed_by field.
const (
	// AllowedAuto: policy allowed the call without asking anyone.
	AllowedAuto = "auto"
	// AllowedByUser: a person approved this call.
	AllowedByUser = "approved:user"
	// AllowedAlways: a person answered "always" earlier in the session.
	AllowedAlways = "approved:always"
)

// TimeLayout is the layout of the time field: UTC, microseconds.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// GenesisPrev is the prev value of the first record of a store.
const GenesisPrev = "0000000000000000000000000000000000000000000000000000000000000000"

// maxSafeInteger is the largest integer every JSON implementation (and RFC
// 8785, which formats numbers as IEEE 754 doubles) represents exactly.
const maxSafeInteger = 1<<53 - 1

// Receipt is one signed record of a successful tool call. Fields mirror the
// record's JSON members; FORMAT.md documents each one.
//
// A Receipt returned by [Store.Issue] or read from a log keeps the exact
// bytes it was signed and chained as; [Receipt.MarshalJSON] returns them.
type Receipt struct {
	Version      int           // v: 2, or 1 for a record of the legacy chain
	ID           string        // id: 26-character ULID
	Chain        string        // chain: 16 lowercase hex; empty in a version 1 record
	Seq          uint64        // seq: 1, 2, 3, ... dense within the chain
	Time         time.Time     // time: UTC, microsecond precision
	Tool         string        // tool: model-visible tool name
	Attribution  string        // attribution: "<kind>.<alias>"
	Channel      string        // channel
	Profile      string        // profile: risk profile name
	Session      string        // session
	Tier         string        // tier: "low", "medium" or "high"
	AllowedBy    string        // allowed_by: "auto", "approved:user" or "approved:always"
	ArgsSHA256   string        // args_sha256: hex SHA-256 of the RFC 8785 arguments
	ResultSHA256 string        // result_sha256: hex SHA-256 of the result text
	Duration     time.Duration // duration_ms: whole milliseconds
	Prev         string        // prev: hex SHA-256 of the previous record's bytes
	KeyID        string        // key_id: first 16 hex digits of SHA-256(public key)
	Sig          string        // sig: base64url (unpadded) Ed25519 signature
	// Args holds the redacted canonical arguments; nil unless the store was
	// opened with StoreArguments.
	Args json.RawMessage
	// Rotation is set on the first record signed by a new key.
	Rotation *Rotation
	// Endorsement is the previous key's signature over the same bytes as
	// Sig; set on a rotation record when the previous private key was at hand.
	Endorsement string
	// Torn lists torn tails that the writer found when it opened the store;
	// set only on the first record of a segment.
	Torn []TornNote
	// Delegation is set on the receipt of a call that ran other calls
	// through the runtime (a subagent): what it ran on, and the receipts
	// issued inside it.
	Delegation *Delegation

	raw []byte // canonical bytes with sig, without the newline
}

// Rotation links a record signed by a new key to the key before it.
type Rotation struct {
	FromKeyID  string // from_key_id
	FromPubKey string // from_pubkey: standard base64; empty when unknown
	PubKey     string // pubkey: standard base64 of the new key; key_id derives from it
}

// Delegation describes a call that made calls of its own: a subagent's
// model loop. Zero members are left out of the record.
type Delegation struct {
	Model        string   // model: "<[models] name>/<model id>"
	Rounds       int      // rounds: model turns
	InputTokens  int64    // input_tokens
	OutputTokens int64    // output_tokens
	Inner        []string // inner: ids of the receipts issued inside, in issue order
}

// maxInner bounds the inner receipts one record lists.
const maxInner = 100000

// TornNote records a torn tail: bytes at the end of a segment that did not
// form a valid record when the writer opened the store.
type TornNote struct {
	Segment string // segment file name
	Offset  int64  // where the torn bytes start
	Length  int64  // how many bytes, up to the end of the file
	SHA256  string // hex SHA-256 of those bytes
}

// Token returns the compact form tr1.<seq>.<sig> that can be appended to a
// result text. The signature alone lets a holder of the log find and check
// the full record: seq is only unique within a chain, but no two records
// share a signature, since what is signed includes the chain and a random
// id.
func (r *Receipt) Token() string {
	return "tr1." + strconv.FormatUint(r.Seq, 10) + "." + r.Sig
}

// ParseToken splits a tr1 token into its sequence number and signature.
func ParseToken(tok string) (seq uint64, sig string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(tok), "tr1.")
	if !ok {
		return 0, "", fmt.Errorf("%w: %q does not start with \"tr1.\"", ErrInvalidToken, clip(tok))
	}
	num, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, "", fmt.Errorf("%w: want tr1.<seq>.<sig>", ErrInvalidToken)
	}
	seq, err = strconv.ParseUint(num, 10, 64)
	if err != nil || seq == 0 || num != strconv.FormatUint(seq, 10) {
		return 0, "", fmt.Errorf("%w: bad sequence number %q", ErrInvalidToken, clip(num))
	}
	if _, err := decodeSig(sig); err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	return seq, sig, nil
}

// Canonical returns the record's canonical bytes, signature included, without
// a trailing newline: the bytes stored as one line of a segment and hashed
// into the next record's prev.
func (r *Receipt) Canonical() []byte {
	if r.raw != nil {
		return bytes.Clone(r.raw)
	}
	return appendRecord(nil, r, true)
}

// AppendCanonical appends [Receipt.Canonical] to b, without the copy, for
// a writer that embeds the record in a document of its own.
func (r *Receipt) AppendCanonical(b []byte) []byte {
	if r.raw != nil {
		return append(b, r.raw...)
	}
	return appendRecord(b, r, true)
}

// SigningBytes returns the canonical bytes of the record without sig and
// endorsement: what both signatures are computed over.
func (r *Receipt) SigningBytes() []byte {
	return appendRecord(nil, r, false)
}

// Hash returns the hex SHA-256 of [Receipt.Canonical]: the value the next
// record carries as prev.
func (r *Receipt) Hash() string {
	var sum [32]byte
	if r.raw != nil {
		sum = sha256.Sum256(r.raw)
	} else {
		sum = sha256.Sum256(appendRecord(nil, r, true))
	}
	return hex.EncodeToString(sum[:])
}

// VerifySignature checks the record's signature under pub. It does not check
// that key_id names pub, nor the chain; see [Verify] for a whole log.
func (r *Receipt) VerifySignature(pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: public key has %d bytes, want %d", ErrInvalidKey, len(pub), ed25519.PublicKeySize)
	}
	sig, err := decodeSig(r.Sig)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if !ed25519.Verify(pub, r.SigningBytes(), sig) {
		return fmt.Errorf("%w: seq %d under key %s", ErrBadSignature, r.Seq, KeyID(pub))
	}
	return nil
}

// MarshalJSON returns the canonical record, so a receipt embedded in another
// JSON document (an MCP result's _meta) can be verified by its reader.
func (r *Receipt) MarshalJSON() ([]byte, error) {
	return r.Canonical(), nil
}

// UnmarshalJSON decodes a record in any JSON layout: it is canonicalized
// with RFC 8785 first, then parsed strictly as by [ParseRecord].
func (r *Receipt) UnmarshalJSON(b []byte) error {
	c, err := jcs.Transform(b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidRecord, err)
	}
	rec, err := ParseRecord(c)
	if err != nil {
		return err
	}
	*r = *rec
	return nil
}

// wireRecord is the JSON shape of a record for decoding.
type wireRecord struct {
	AllowedBy    string          `json:"allowed_by"`
	Args         json.RawMessage `json:"args"`
	ArgsSHA256   string          `json:"args_sha256"`
	Attribution  string          `json:"attribution"`
	Chain        *string         `json:"chain"`
	Channel      string          `json:"channel"`
	Delegation   *wireDelegation `json:"delegation"`
	DurationMS   uint64          `json:"duration_ms"`
	Endorsement  string          `json:"endorsement"`
	ID           string          `json:"id"`
	KeyID        string          `json:"key_id"`
	Prev         string          `json:"prev"`
	Profile      string          `json:"profile"`
	ResultSHA256 string          `json:"result_sha256"`
	Rotation     *wireRotation   `json:"rotation"`
	Seq          uint64          `json:"seq"`
	Session      string          `json:"session"`
	Sig          string          `json:"sig"`
	Tier         string          `json:"tier"`
	Time         string          `json:"time"`
	Tool         string          `json:"tool"`
	Torn         []wireTorn      `json:"torn"`
	V            int             `json:"v"`
}

type wireDelegation struct {
	Inner        []string `json:"inner"`
	InputTokens  int64    `json:"input_tokens"`
	Model        string   `json:"model"`
	OutputTokens int64    `json:"output_tokens"`
	Rounds       int      `json:"rounds"`
}

type wireRotation struct {
	FromKeyID  string `json:"from_key_id"`
	FromPubKey string `json:"from_pubkey"`
	PubKey     string `json:"pubkey"`
}

type wireTorn struct {
	Length  int64  `json:"length"`
	Offset  int64  `json:"offset"`
	Segment string `json:"segment"`
	SHA256  string `json:"sha256"`
}

// ParseRecord decodes one line of a segment (without its newline). It
// accepts only what a writer of this format produces: a version 2 record
// (or a version 1 record, which has no chain) in RFC 8785 canonical form
// with every required member and no unknown ones. It does not check the
// signature.
func ParseRecord(line []byte) (*Receipt, error) {
	if len(line) == 0 {
		return nil, fmt.Errorf("%w: empty line", ErrInvalidRecord)
	}
	if line[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalidRecord)
	}
	// Unknown members, duplicates, missing members and any layout but the
	// canonical one are caught by the round trip below: re-encoding the
	// decoded fields must give back exactly the input.
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRecord, err)
	}
	r, err := w.receipt()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRecord, err)
	}
	enc := appendRecord(make([]byte, 0, len(line)), r, true)
	if !bytes.Equal(enc, line) {
		return nil, fmt.Errorf("%w: not in canonical form (first difference at byte %d); records must be written exactly as RFC 8785 serializes them",
			ErrInvalidRecord, firstDiff(enc, line))
	}
	r.raw = enc
	return r, nil
}

func (w *wireRecord) receipt() (*Receipt, error) {
	switch {
	case w.V != Version && w.V != versionLegacy:
		return nil, fmt.Errorf("unsupported version %d (this reader knows %d and %d): upgrade talon", w.V, versionLegacy, Version)
	case w.V == versionLegacy && w.Chain != nil:
		return nil, fmt.Errorf("a version %d record has no chain", versionLegacy)
	case w.V == Version && w.Chain == nil:
		return nil, fmt.Errorf("chain is missing")
	case w.V == Version && !validChainID(*w.Chain):
		return nil, fmt.Errorf("chain %q is not 16 lowercase hex digits", clip(*w.Chain))
	}
	if !validID(w.ID) {
		return nil, fmt.Errorf("id %q is not a 26-character ULID", clip(w.ID))
	}
	if w.Seq == 0 || w.Seq > maxSafeInteger {
		return nil, fmt.Errorf("seq %d is out of range", w.Seq)
	}
	t, err := time.Parse(TimeLayout, w.Time)
	if err != nil {
		return nil, fmt.Errorf("time %q is not %s", clip(w.Time), TimeLayout)
	}
	if w.Tool == "" {
		return nil, fmt.Errorf("tool is empty")
	}
	if !validTier(w.Tier) {
		return nil, fmt.Errorf("tier %q is not low, medium or high", clip(w.Tier))
	}
	if !validAllowedBy(w.AllowedBy) {
		return nil, fmt.Errorf("allowed_by %q is not auto, approved:user or approved:always", clip(w.AllowedBy))
	}
	for _, f := range []struct{ name, v string }{
		{"args_sha256", w.ArgsSHA256}, {"result_sha256", w.ResultSHA256}, {"prev", w.Prev},
	} {
		if !isHex(f.v, 64) {
			return nil, fmt.Errorf("%s is not 64 lowercase hex digits", f.name)
		}
	}
	if w.DurationMS > maxSafeInteger {
		return nil, fmt.Errorf("duration_ms %d is out of range", w.DurationMS)
	}
	if !isHex(w.KeyID, 16) {
		return nil, fmt.Errorf("key_id is not 16 lowercase hex digits")
	}
	if _, err := decodeSig(w.Sig); err != nil {
		return nil, fmt.Errorf("sig: %v", err)
	}
	r := &Receipt{
		Version:      w.V,
		ID:           w.ID,
		Seq:          w.Seq,
		Time:         t,
		Tool:         w.Tool,
		Attribution:  w.Attribution,
		Channel:      w.Channel,
		Profile:      w.Profile,
		Session:      w.Session,
		Tier:         w.Tier,
		AllowedBy:    w.AllowedBy,
		ArgsSHA256:   w.ArgsSHA256,
		ResultSHA256: w.ResultSHA256,
		Duration:     time.Duration(w.DurationMS) * time.Millisecond,
		Prev:         w.Prev,
		KeyID:        w.KeyID,
		Sig:          w.Sig,
		Endorsement:  w.Endorsement,
	}
	if w.Chain != nil {
		r.Chain = *w.Chain
	}
	if w.Args != nil {
		if len(w.Args) == 0 || w.Args[0] != '{' {
			return nil, fmt.Errorf("args is not an object")
		}
		c, err := jcs.Transform(w.Args)
		if err != nil {
			return nil, fmt.Errorf("args: %v", err)
		}
		if !bytes.Equal(c, w.Args) {
			return nil, fmt.Errorf("args are not in canonical form")
		}
		r.Args = w.Args
	}
	if w.Delegation != nil {
		d, err := w.Delegation.delegation()
		if err != nil {
			return nil, err
		}
		r.Delegation = d
	}
	if w.Endorsement != "" {
		if _, err := decodeSig(w.Endorsement); err != nil {
			return nil, fmt.Errorf("endorsement: %v", err)
		}
		if w.Rotation == nil {
			return nil, fmt.Errorf("endorsement without rotation")
		}
	}
	if w.Rotation != nil {
		rot := w.Rotation
		if !isHex(rot.FromKeyID, 16) {
			return nil, fmt.Errorf("rotation.from_key_id is not 16 lowercase hex digits")
		}
		pub, err := decodePub(rot.PubKey)
		if err != nil {
			return nil, fmt.Errorf("rotation.pubkey: %v", err)
		}
		if KeyID(pub) != w.KeyID {
			return nil, fmt.Errorf("rotation.pubkey does not match key_id %s", w.KeyID)
		}
		if rot.FromPubKey != "" {
			from, err := decodePub(rot.FromPubKey)
			if err != nil {
				return nil, fmt.Errorf("rotation.from_pubkey: %v", err)
			}
			if KeyID(from) != rot.FromKeyID {
				return nil, fmt.Errorf("rotation.from_pubkey does not match from_key_id %s", rot.FromKeyID)
			}
		}
		r.Rotation = &Rotation{FromKeyID: rot.FromKeyID, FromPubKey: rot.FromPubKey, PubKey: rot.PubKey}
	}
	if w.Torn != nil {
		if len(w.Torn) == 0 {
			return nil, fmt.Errorf("torn is an empty list")
		}
		for i, n := range w.Torn {
			if _, ok := segmentNumber(n.Segment); !ok {
				return nil, fmt.Errorf("torn[%d].segment %q is not a segment file name", i, clip(n.Segment))
			}
			if n.Offset < 0 || n.Offset > maxSafeInteger || n.Length <= 0 || n.Length > maxSafeInteger {
				return nil, fmt.Errorf("torn[%d] offset or length is out of range", i)
			}
			if !isHex(n.SHA256, 64) {
				return nil, fmt.Errorf("torn[%d].sha256 is not 64 lowercase hex digits", i)
			}
			r.Torn = append(r.Torn, TornNote{Segment: n.Segment, Offset: n.Offset, Length: n.Length, SHA256: n.SHA256})
		}
	}
	return r, nil
}

// appendRecord appends the RFC 8785 serialization of r. Members are written
// in the order RFC 8785 sorts them (all names are ASCII, so byte order);
// withSig=false leaves out sig and endorsement, giving the signed bytes.
func appendRecord(b []byte, r *Receipt, withSig bool) []byte {
	b = append(b, `{"allowed_by":`...)
	b = appendString(b, r.AllowedBy)
	if r.Args != nil {
		b = append(b, `,"args":`...)
		b = append(b, r.Args...)
	}
	b = append(b, `,"args_sha256":`...)
	b = appendString(b, r.ArgsSHA256)
	b = append(b, `,"attribution":`...)
	b = appendString(b, r.Attribution)
	if r.Version != versionLegacy {
		b = append(b, `,"chain":`...)
		b = appendString(b, r.Chain)
	}
	b = append(b, `,"channel":`...)
	b = appendString(b, r.Channel)
	if d := r.Delegation; d != nil {
		b = appendDelegation(b, d)
	}
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.Duration.Milliseconds(), 10)
	if withSig && r.Endorsement != "" {
		b = append(b, `,"endorsement":`...)
		b = appendString(b, r.Endorsement)
	}
	b = append(b, `,"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"key_id":`...)
	b = appendString(b, r.KeyID)
	b = append(b, `,"prev":`...)
	b = appendString(b, r.Prev)
	b = append(b, `,"profile":`...)
	b = appendString(b, r.Profile)
	b = append(b, `,"result_sha256":`...)
	b = appendString(b, r.ResultSHA256)
	if r.Rotation != nil {
		b = append(b, `,"rotation":{"from_key_id":`...)
		b = appendString(b, r.Rotation.FromKeyID)
		if r.Rotation.FromPubKey != "" {
			b = append(b, `,"from_pubkey":`...)
			b = appendString(b, r.Rotation.FromPubKey)
		}
		b = append(b, `,"pubkey":`...)
		b = appendString(b, r.Rotation.PubKey)
		b = append(b, '}')
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	if withSig {
		b = append(b, `,"sig":`...)
		b = appendString(b, r.Sig)
	}
	b = append(b, `,"tier":`...)
	b = appendString(b, r.Tier)
	b = append(b, `,"time":`...)
	b = appendString(b, r.Time.UTC().Format(TimeLayout))
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	if len(r.Torn) > 0 {
		b = append(b, `,"torn":[`...)
		for i, n := range r.Torn {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"length":`...)
			b = strconv.AppendInt(b, n.Length, 10)
			b = append(b, `,"offset":`...)
			b = strconv.AppendInt(b, n.Offset, 10)
			b = append(b, `,"segment":`...)
			b = appendString(b, n.Segment)
			b = append(b, `,"sha256":`...)
			b = appendString(b, n.SHA256)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"v":`...)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	return append(b, '}')
}

// appendString appends s as an RFC 8785 string: only '"', '\\' and control
// characters are escaped, the short escapes where JSON has them and \u00xx
// (lowercase hex) otherwise; everything else is copied as UTF-8. s must be
// valid UTF-8 (Issue makes it so; ParseRecord rejects anything else because
// it does not survive the round trip).
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

var sigEncoding = base64.RawURLEncoding.Strict()

func decodeSig(s string) ([]byte, error) {
	if len(s) != 86 {
		return nil, fmt.Errorf("want 86 base64url characters, got %d", len(s))
	}
	sig, err := sigEncoding.DecodeString(s)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("not a base64url Ed25519 signature")
	}
	return sig, nil
}

func encodeSig(sig []byte) string { return sigEncoding.EncodeToString(sig) }

func validTier(s string) bool { return s == TierLow || s == TierMedium || s == TierHigh }

func validAllowedBy(s string) bool {
	return s == AllowedAuto || s == AllowedByUser || s == AllowedAlways
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var segmentNameRE = regexp.MustCompile(`^segment-([0-9]{6,9})\.jsonl$`)

// segmentNumber returns the number in a segment file name.
func segmentNumber(name string) (int, bool) {
	m := segmentNameRE.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || segmentName(n) != name {
		return 0, false
	}
	return n, true
}

// segmentName returns the file name of segment n.
func segmentName(n int) string { return fmt.Sprintf("segment-%06d.jsonl", n) }

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// clip shortens untrusted text quoted in an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// delegation checks a decoded delegation member.
func (w *wireDelegation) delegation() (*Delegation, error) {
	d := &Delegation{Model: w.Model, Rounds: w.Rounds, InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, Inner: w.Inner}
	switch {
	case d.Model == "" && d.Rounds == 0 && d.InputTokens == 0 && d.OutputTokens == 0 && len(d.Inner) == 0:
		return nil, fmt.Errorf("delegation is empty")
	case d.Rounds < 0 || d.InputTokens < 0 || d.OutputTokens < 0 || d.InputTokens > maxSafeInteger || d.OutputTokens > maxSafeInteger:
		return nil, fmt.Errorf("delegation counts are out of range")
	case len(d.Inner) > maxInner:
		return nil, fmt.Errorf("delegation lists more than %d inner receipts", maxInner)
	}
	for _, id := range d.Inner {
		if !validID(id) {
			return nil, fmt.Errorf("delegation.inner holds %q, which is not a 26-character ULID", clip(id))
		}
	}
	return d, nil
}

// appendDelegation appends the delegation member, its members in RFC 8785
// order and zero ones left out.
func appendDelegation(b []byte, d *Delegation) []byte {
	b = append(b, `,"delegation":{`...)
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	if len(d.Inner) > 0 {
		b = append(b, `"inner":[`...)
		for i, id := range d.Inner {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, id)
		}
		b = append(b, ']')
	}
	if d.InputTokens != 0 {
		sep()
		b = append(b, `"input_tokens":`...)
		b = strconv.AppendInt(b, d.InputTokens, 10)
	}
	if d.Model != "" {
		sep()
		b = append(b, `"model":`...)
		b = appendString(b, d.Model)
	}
	if d.OutputTokens != 0 {
		sep()
		b = append(b, `"output_tokens":`...)
		b = strconv.AppendInt(b, d.OutputTokens, 10)
	}
	if d.Rounds != 0 {
		sep()
		b = append(b, `"rounds":`...)
		b = strconv.AppendInt(b, int64(d.Rounds), 10)
	}
	return append(b, '}')
}
