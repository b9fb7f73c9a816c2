package receipts

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Layout of a store directory (FORMAT.md §7).
const (
	// ChainsDir is the subdirectory holding one directory per chain.
	ChainsDir = "chains"
	// chainLockName is flocked by the process writing a chain.
	chainLockName = "lock"
	// keyLockName is flocked around creating and rotating the key.
	keyLockName = "key.lock"
	// LegacyChain names the chain of a store written before chains
	// existed: the segments directly in the store directory, whose
	// records are version 1 and have no chain member.
	LegacyChain = "legacy"
)

// chainIDLen is the length of a chain id: 8 random bytes in lowercase hex.
const chainIDLen = 16

func validChainID(s string) bool { return isHex(s, chainIDLen) }

// ChainName returns how a chain is shown: its id, or [LegacyChain].
func ChainName(id string) string {
	if id == "" {
		return LegacyChain
	}
	return id
}

func newChainID(rand io.Reader) (string, error) {
	var b [chainIDLen / 2]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("read random chain id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// listChains returns the ids of the chain directories under root, sorted.
func listChains(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, ChainsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list receipt chains: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && validChainID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// heldChain is a chain this process writes: nobody else does while the
// lock is held.
type heldChain struct {
	id   string
	dir  string
	lock *fileLock
}

// maxChainAttempts bounds how often acquireChain makes a new chain that
// another process takes first.
const maxChainAttempts = 16

// acquireChain takes a chain of the store for this process: a chain that
// no running process holds (one whose last writer ended its tail torn
// first, so the tail gets noted, else the first in id order), or else a
// new chain with a random id. Several processes thus write one store
// without waiting for each other, the number of chains stays the largest
// number of writers that ran at once, and a writer that crashed has its
// torn tail noted by the next process that continues its chain.
func acquireChain(root string, rand io.Reader) (*heldChain, error) {
	base := filepath.Join(root, ChainsDir)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", base, err)
	}
	ids, err := listChains(root)
	if err != nil {
		return nil, err
	}
	var spare *heldChain
	for _, id := range ids {
		dir := filepath.Join(base, id)
		l, held, err := tryLockFile(filepath.Join(dir, chainLockName))
		if err != nil {
			_ = spare.release()
			return nil, err
		}
		if held {
			continue
		}
		c := &heldChain{id: id, dir: dir, lock: l}
		if endsTorn(dir) {
			_ = spare.release()
			spare = c
			break
		}
		if spare == nil {
			spare = c
		} else {
			_ = c.release()
		}
	}
	if spare != nil {
		spare.lock.notePID()
		return spare, nil
	}
	for range maxChainAttempts {
		id, err := newChainID(rand)
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(base, id)
		if err := os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("create receipt chain: %w", err)
		}
		l, held, err := tryLockFile(filepath.Join(dir, chainLockName))
		if err != nil {
			return nil, err
		}
		if held {
			continue // another process found it first and writes it
		}
		if err := syncDir(base); err != nil {
			_ = l.release()
			return nil, err
		}
		l.notePID()
		return &heldChain{id: id, dir: dir, lock: l}, nil
	}
	return nil, fmt.Errorf("create receipt chain in %s: other processes took %d new chains first; try again", base, maxChainAttempts)
}

func (c *heldChain) release() error {
	if c == nil {
		return nil
	}
	return c.lock.release()
}

// endsTorn reports whether the last non-empty segment of a chain
// directory ends in a partial line: the cheap sign of a writer cut off
// mid-write. (Open finds every kind of torn tail; this only orders the
// choice of a chain.)
func endsTorn(dir string) bool {
	segs, err := listSegments(dir)
	if err != nil {
		return false
	}
	for i := len(segs) - 1; i >= 0; i-- {
		f, err := os.Open(segs[i].path)
		if err != nil {
			return false
		}
		st, err := f.Stat()
		if err != nil || st.Size() == 0 {
			_ = f.Close()
			continue
		}
		var b [1]byte
		_, err = f.ReadAt(b[:], st.Size()-1)
		_ = f.Close()
		return err == nil && b[0] != '\n'
	}
	return false
}
