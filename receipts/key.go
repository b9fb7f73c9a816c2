package receipts

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files in a store directory.
const (
	// PrivateKeyFile holds the current signing key (mode 0600).
	PrivateKeyFile = "receipt-key"
	// PublicKeyFile lists every public key the store has signed with, one
	// per line, oldest first.
	PublicKeyFile = "receipt-key.pub"
	// nextKeyFile holds a new key between RotateKey and the first record
	// signed with it.
	nextKeyFile = "receipt-key.next"
)

const (
	publicKeyTag  = "talon-receipt-key-v1"
	privateKeyTag = "talon-receipt-private-key-v1"
	keyAlgorithm  = "ed25519"
)

var pubEncoding = base64.StdEncoding.Strict()

// KeyID returns the key id of a public key: the first 16 lowercase hex
// digits of SHA-256 over its 32 raw bytes.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// FormatPublicKey returns the one-line text form of a public key:
//
//	talon-receipt-key-v1 ed25519 <standard base64 of 32 bytes> key_id=<key id>
//
// Everything after the base64 field is a comment that readers ignore.
func FormatPublicKey(pub ed25519.PublicKey) string {
	return publicKeyTag + " " + keyAlgorithm + " " + pubEncoding.EncodeToString(pub) + " key_id=" + KeyID(pub)
}

// ParsePublicKey decodes one line written by [FormatPublicKey].
func ParsePublicKey(line string) (ed25519.PublicKey, error) {
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != publicKeyTag || f[1] != keyAlgorithm {
		return nil, fmt.Errorf("%w: want %q followed by the base64 key", ErrInvalidKey, publicKeyTag+" "+keyAlgorithm)
	}
	pub, err := decodePub(f[2])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return pub, nil
}

// ReadPublicKeys reads a public key file: one key per line in the form of
// [FormatPublicKey]; blank lines and lines starting with # are skipped.
func ReadPublicKeys(path string) ([]ed25519.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read public keys: %w", err)
	}
	return parsePublicKeys(data, path)
}

func parsePublicKeys(data []byte, path string) ([]ed25519.PublicKey, error) {
	var keys []ed25519.PublicKey
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pub, err := ParsePublicKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		keys = append(keys, pub)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrInvalidKey, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: %w: no public key in the file", path, ErrInvalidKey)
	}
	return keys, nil
}

// PublicKeyPath returns the path of the public key file of a store directory.
func PublicKeyPath(dir string) string { return filepath.Join(dir, PublicKeyFile) }

func decodePub(s string) (ed25519.PublicKey, error) {
	if len(s) != 44 {
		return nil, fmt.Errorf("want 44 base64 characters, got %d", len(s))
	}
	b, err := pubEncoding.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("not a base64 Ed25519 public key")
	}
	return ed25519.PublicKey(b), nil
}

// signingKey is a private key with its derived public key and id.
type signingKey struct {
	id   string
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func newSigningKey(seed []byte) *signingKey {
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	return &signingKey{id: KeyID(pub), pub: pub, priv: priv}
}

func generateKey(rand io.Reader) (*signingKey, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(rand, seed); err != nil {
		return nil, fmt.Errorf("generate receipt key: %w", err)
	}
	return newSigningKey(seed), nil
}

func (k *signingKey) pubString() string { return pubEncoding.EncodeToString(k.pub) }

// loadKeyFile reads a private key file. It refuses a file that others can
// read or write, and anything but a regular file. A missing file is
// reported with an error satisfying errors.Is(err, fs.ErrNotExist).
func loadKeyFile(path string) (*signingKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat receipt key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrInvalidKey, path)
	}
	if err := checkKeyMode(path, st.Mode()); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return nil, fmt.Errorf("read receipt key: %w", err)
	}
	fields := strings.Fields(string(data))
	if len(fields) != 3 || fields[0] != privateKeyTag || fields[1] != keyAlgorithm {
		return nil, fmt.Errorf("%w: %s is not a talon receipt private key (want %q followed by the base64 seed)",
			ErrInvalidKey, path, privateKeyTag+" "+keyAlgorithm)
	}
	seed, err := pubEncoding.DecodeString(fields[2])
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: %s does not hold a 32-byte base64 seed", ErrInvalidKey, path)
	}
	return newSigningKey(seed), nil
}

// writeKeyFile writes a private key durably and atomically with mode 0600.
func writeKeyFile(path string, k *signingKey) error {
	text := privateKeyTag + " " + keyAlgorithm + " " + pubEncoding.EncodeToString(k.priv.Seed()) + "\n"
	return writeFileAtomic(path, []byte(text), 0o600)
}

func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// addPublicKey appends pub to the directory's public key file unless it is
// already listed, and returns every key the file lists afterwards.
func addPublicKey(dir string, pub ed25519.PublicKey) ([]ed25519.PublicKey, error) {
	path := PublicKeyPath(dir)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read public keys: %w", err)
	}
	var keys []ed25519.PublicKey
	if len(bytes.TrimSpace(data)) > 0 {
		keys, err = parsePublicKeys(data, path)
		if err != nil {
			return nil, fmt.Errorf("%w: fix or remove the file; it is rebuilt from the private key", err)
		}
		for _, k := range keys {
			if k.Equal(pub) {
				return keys, nil
			}
		}
	}
	line := FormatPublicKey(pub) + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line = "\n" + line
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644) //nolint:gosec // public keys are meant to be read
	if err != nil {
		return nil, fmt.Errorf("open public keys: %w", err)
	}
	_, err = f.WriteString(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write public keys: %w", err)
	}
	if len(data) == 0 {
		if err := syncDir(dir); err != nil {
			return nil, err
		}
	}
	return append(keys, pub), nil
}
