package receipts

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Node is a receipt with the receipts issued inside it, as [Tree] finds
// them.
type Node struct {
	Receipt *Receipt
	// Missing is set when the receipt named by ID is not in the log.
	Missing bool
	ID      string
	Inner   []*Node
}

// maxTreeDepth bounds how deep Tree follows links; delegations are at
// most 16 agents deep, and each is a level.
const maxTreeDepth = 64

// Tree returns the receipt found as by [Find] with, under it, the
// receipts its delegation lists, recursively: the delegation tree of a
// subagent's call. Links to receipts the log does not hold are kept as
// missing nodes. It does not check signatures or links: use [Verify].
func Tree(dir, idOrSeq string) (*Node, error) {
	root, err := Find(dir, idOrSeq)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Receipt{}
	if root.Delegation != nil && len(root.Delegation.Inner) > 0 {
		err := scanRecords(dir, false, func(r *Receipt) bool {
			if r.Chain == root.Chain {
				byID[r.ID] = r
			}
			return true
		})
		if err != nil && !errors.Is(err, ErrDamaged) {
			return nil, fmt.Errorf("receipt tree: %w", err)
		}
	}
	var build func(r *Receipt, depth int) *Node
	build = func(r *Receipt, depth int) *Node {
		n := &Node{Receipt: r, ID: r.ID}
		if r.Delegation == nil || depth >= maxTreeDepth {
			return n
		}
		for _, id := range r.Delegation.Inner {
			in, ok := byID[id]
			if !ok || in.Seq >= r.Seq {
				n.Inner = append(n.Inner, &Node{ID: id, Missing: true})
				continue
			}
			n.Inner = append(n.Inner, build(in, depth+1))
		}
		return n
	}
	return build(root, 0), nil
}

// WriteTree prints a delegation tree, one receipt a line:
//
//	5c8cca628d40106c:4 agent__researcher (agent.researcher) auto, local/m1, 2 rounds, 80+14 tokens
//	└─ 5c8cca628d40106c:3 file_read (builtin.file_read) auto
func WriteTree(w io.Writer, n *Node) error {
	var b strings.Builder
	writeNode(&b, n, "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNode(b *strings.Builder, n *Node, first, rest string) {
	b.WriteString(first)
	if n.Missing {
		fmt.Fprintf(b, "%s: not in this log\n", n.ID)
	} else {
		r := n.Receipt
		fmt.Fprintf(b, "%s:%d %s (%s) %s", ChainName(r.Chain), r.Seq, printable(r.Tool), printable(r.Attribution), r.AllowedBy)
		if d := r.Delegation; d != nil && (d.Model != "" || d.Rounds > 0) {
			fmt.Fprintf(b, ", %s, %d rounds, %d+%d tokens", printable(d.Model), d.Rounds, d.InputTokens, d.OutputTokens)
		}
		b.WriteByte('\n')
	}
	for i, c := range n.Inner {
		if i == len(n.Inner)-1 {
			writeNode(b, c, rest+"└─ ", rest+"   ")
		} else {
			writeNode(b, c, rest+"├─ ", rest+"│  ")
		}
	}
}
