package receipts

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// String renders the problem on one line, naming the segment relative to
// the verified path:
//
//	chains/5d1f0c2ab3e4f567/segment-000002.jsonl line 17 (seq 4113): bad signature: ...
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Segment)
	fmt.Fprintf(&b, " line %d", p.Line)
	if p.Seq > 0 {
		fmt.Fprintf(&b, " (seq %d)", p.Seq)
	}
	b.WriteString(": ")
	b.WriteString(string(p.Reason))
	if p.Detail != "" {
		b.WriteString(": ")
		b.WriteString(printable(p.Detail))
	}
	return b.String()
}

// String renders the report for a terminal: one line per chain, then the
// keys, the noted torn tails and each chain's problem. The last line
// starts with OK or FAIL.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "receipts: %s\n", printable(r.Path))
	if r.Err != nil {
		fmt.Fprintf(&b, "FAIL: %v\n", r.Err)
		return b.String()
	}
	fmt.Fprintf(&b, "segments: %d\n", r.Segments)
	chains := "chains"
	if len(r.Chains) == 1 {
		chains = "chain"
	}
	fmt.Fprintf(&b, "records: %d verified in %d %s\n", r.Records, len(r.Chains), chains)
	bad := 0
	for _, c := range r.Chains {
		fmt.Fprintf(&b, "chain %s: ", ChainName(c.Chain))
		if c.Records > 0 {
			fmt.Fprintf(&b, "seq %d..%d, head sha256 %s", c.FirstSeq, c.LastSeq, c.Head)
		} else {
			b.WriteString("no record verified")
		}
		if c.Problem != nil {
			bad++
			b.WriteString(", then a bad record")
		}
		b.WriteString("\n")
	}
	if len(r.Keys) > 0 {
		fmt.Fprintf(&b, "keys: %s\n", strings.Join(r.Keys, ", "))
	}
	for _, t := range r.Torn {
		fmt.Fprintf(&b, "torn tail: %s line %d (offset %d, %d bytes), kept and noted by seq %d\n",
			t.Segment, t.Line, t.Offset, t.Length, t.NotedBy)
	}
	if bad > 0 {
		for _, c := range r.Chains {
			if c.Problem != nil {
				fmt.Fprintf(&b, "FAIL: %s\n", c.Problem)
			}
		}
		return b.String()
	}
	if len(r.Chains) > 1 {
		fmt.Fprintf(&b, "OK: every signature and all %d chains verify\n", len(r.Chains))
	} else {
		b.WriteString("OK: every signature and the chain verify\n")
	}
	return b.String()
}

// WriteTable writes receipts as an aligned table with a header, one
// receipt per row. A receipt is named by its chain and seq.
func WriteTable(w io.Writer, rs []Receipt) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAIN\tSEQ\tTIME\tTOOL\tATTRIBUTION\tTIER\tALLOWED BY\tDURATION\tSESSION\tID")
	for i := range rs {
		r := &rs[i]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			ChainName(r.Chain), r.Seq, r.Time.UTC().Format(time.DateTime), cell(r.Tool), cell(r.Attribution),
			r.Tier, r.AllowedBy, r.Duration, cell(r.Session), r.ID)
	}
	return tw.Flush()
}

// WriteDetail writes every field of one receipt, one per line.
func WriteDetail(w io.Writer, r *Receipt) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, printable(v)) }
	row("id", r.ID)
	row("chain", ChainName(r.Chain))
	row("seq", strconv.FormatUint(r.Seq, 10))
	row("time", r.Time.UTC().Format(TimeLayout))
	row("tool", r.Tool)
	row("attribution", r.Attribution)
	row("channel", r.Channel)
	row("profile", r.Profile)
	row("session", r.Session)
	row("tier", r.Tier)
	row("allowed by", r.AllowedBy)
	row("duration", r.Duration.String())
	row("args sha256", r.ArgsSHA256)
	if r.Args != nil {
		row("args", string(r.Args))
	}
	row("result sha256", r.ResultSHA256)
	row("prev", r.Prev)
	row("key id", r.KeyID)
	if r.Rotation != nil {
		row("rotated from", r.Rotation.FromKeyID)
		if r.Endorsement != "" {
			row("endorsed", "yes, by "+r.Rotation.FromKeyID)
		}
	}
	if d := r.Delegation; d != nil {
		if d.Model != "" {
			row("model", d.Model)
		}
		if d.Rounds > 0 {
			row("rounds", strconv.Itoa(d.Rounds))
			row("tokens", fmt.Sprintf("%d in, %d out", d.InputTokens, d.OutputTokens))
		}
		for _, id := range d.Inner {
			row("inner", id)
		}
	}
	for _, n := range r.Torn {
		row("torn tail", fmt.Sprintf("%s offset %d, %d bytes, sha256 %s", n.Segment, n.Offset, n.Length, n.SHA256))
	}
	row("sig", r.Sig)
	row("token", r.Token())
	return tw.Flush()
}

// printable escapes control characters so text from a record cannot move
// the cursor or recolour a terminal.
func printable(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if unsafeRune(c) {
			q := strconv.QuoteRune(c)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func unsafeRune(c rune) bool {
	return unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c)
}

// cell is printable text that cannot break a table row.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(printable(s), "\t", " ")
}
