package manifest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gowebpki/jcs"
	"github.com/pelletier/go-toml/v2"

	"github.com/talonhq/talon/config"
)

// payloadContext starts every signed payload, so a signature over a
// manifest can never be mistaken for one over anything else a key signs.
const payloadContext = "talon plugin manifest v1\n"

var (
	// ErrBadSignature is wrapped when a manifest's signature does not verify.
	ErrBadSignature = errors.New("plugin signature does not verify")
	// ErrUnsigned is wrapped when strict signature_mode meets an unsigned
	// manifest.
	ErrUnsigned = errors.New("plugin is not signed")
	// ErrUntrustedKey is wrapped when strict signature_mode meets a key that
	// is not in trusted_publisher_keys.
	ErrUntrustedKey = errors.New("plugin publisher key is not trusted")
)

// SignedPayload returns the exact bytes a manifest's Ed25519 signature
// covers, given plugin.toml's text:
//
//  1. decode the TOML document to a tree (tables become JSON objects,
//     arrays arrays, strings strings, integers and floats numbers, booleans
//     booleans, date-times RFC 3339 strings);
//  2. remove the top-level keys "signature" and "publisher_key";
//  3. serialize the tree as canonical JSON per RFC 8785 (JCS);
//  4. prefix the ASCII text "talon plugin manifest v1" and a newline (0x0A).
//
// A third party reproduces it with any TOML decoder and JCS implementation;
// comments, key order and formatting of plugin.toml are not covered, so
// reformatting a signed manifest keeps its signature valid while any change
// of a value breaks it.
func SignedPayload(data []byte) ([]byte, error) {
	var tree map[string]any
	if err := decodeLoose(data, &tree); err != nil {
		return nil, fmt.Errorf("decode manifest for signing: %w", err)
	}
	delete(tree, "signature")
	delete(tree, "publisher_key")
	raw, err := json.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("encode manifest for signing: %w", err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonicalize manifest for signing: %w", err)
	}
	return append([]byte(payloadContext), canon...), nil
}

func decodeLoose(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml decoder failed: %v", r)
		}
	}()
	return toml.Unmarshal(data, v)
}

var (
	signedKeyLine = lazyRegexp(`^\s*(signature|publisher_key)\s*=`)
	headerLine    = lazyRegexp(`^\s*\[`)
)

// Sign signs plugin.toml's text with key and returns the text with
// publisher_key and signature set at the top level: lines that already set
// them are replaced, everything else (comments, order, layout) is kept.
//
// # Errors
//
// Sign fails when data is not TOML, or when its layout defeats the line
// edit (for example a signature key inside a multi-line string); the result
// is checked by decoding it again, so a returned manifest always verifies.
func Sign(data []byte, key ed25519.PrivateKey) ([]byte, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("sign manifest: the private key has the wrong size; generate a new key")
	}
	payload, err := SignedPayload(data)
	if err != nil {
		return nil, err
	}
	pub := base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(key, payload))

	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	top := true
	insert := -1
	for _, l := range lines {
		if top && headerLine().MatchString(l) {
			top = false
		}
		if top && signedKeyLine().MatchString(l) {
			continue
		}
		if insert < 0 {
			t := strings.TrimSpace(l)
			if !top || (t != "" && !strings.HasPrefix(t, "#")) {
				insert = len(kept)
			}
		}
		kept = append(kept, l)
	}
	if insert < 0 {
		insert = len(kept)
	}
	if insert > 0 && !strings.HasSuffix(kept[insert-1], "\n") {
		kept[insert-1] += "\n"
	}
	add := fmt.Sprintf("publisher_key = %q\nsignature = %q\n", pub, sig)
	var b strings.Builder
	for i, l := range kept {
		if i == insert {
			b.WriteString(add)
		}
		b.WriteString(l)
	}
	if insert == len(kept) {
		b.WriteString(add)
	}
	out := []byte(b.String())

	var check struct {
		Signature    string `toml:"signature"`
		PublisherKey string `toml:"publisher_key"`
	}
	again, err := SignedPayload(out)
	if err == nil {
		err = decodeLoose(out, &check)
	}
	if err != nil || !bytes.Equal(again, payload) || check.Signature != sig || check.PublisherKey != pub {
		return nil, errors.New("sign manifest: signature and publisher_key could not be set at the top level of this file; move any existing ones to the top, as plain lines")
	}
	return out, nil
}

// Verify checks a manifest's signature. m is the parsed manifest, data the
// text it was parsed from, trusted the base64 (standard encoding) Ed25519
// public keys of [plugins.security] trusted_publisher_keys.
//
// A manifest with neither signature nor publisher_key is [Unsigned]; one
// with only one of them, with undecodable values, or whose signature does
// not verify over [SignedPayload] is [BadSignature].
func Verify(m *Manifest, data []byte, trusted []string) SignatureStatus {
	if m.Signature == "" && m.PublisherKey == "" {
		return Unsigned
	}
	pub, err := decodePublicKey(m.PublisherKey)
	if err != nil {
		return BadSignature
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return BadSignature
	}
	payload, err := SignedPayload(data)
	if err != nil || !ed25519.Verify(pub, payload, sig) {
		return BadSignature
	}
	for _, t := range trusted {
		if k, err := decodePublicKey(t); err == nil && bytes.Equal(k, pub) {
			return SignedTrusted
		}
	}
	return SignedUntrusted
}

func decodePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("an Ed25519 public key is %d bytes, got %d", ed25519.PublicKeySize, len(b))
	}
	return ed25519.PublicKey(b), nil
}

// CheckSignature applies [plugins.security] signature_mode to a status:
//
//   - every mode refuses [BadSignature]: a signature that does not verify
//     means the manifest changed after signing, which no mode should
//     overlook;
//   - "disabled" accepts everything else without a word;
//   - "permissive" (the default, also for "") accepts [Unsigned] and
//     [SignedUntrusted]; [SignatureWarning] says what the caller should
//     print;
//   - "strict" accepts only [SignedTrusted].
func CheckSignature(mode string, st SignatureStatus) error {
	if st == BadSignature {
		return fmt.Errorf("%w: the manifest changed after it was signed, or the signature is corrupt; reinstall the plugin from its publisher", ErrBadSignature)
	}
	if mode != config.SignatureStrict {
		return nil
	}
	switch st {
	case SignedTrusted:
		return nil
	case SignedUntrusted:
		return fmt.Errorf("%w: signature_mode is strict; add the plugin's publisher_key to [plugins.security] trusted_publisher_keys if you trust its publisher", ErrUntrustedKey)
	default:
		return fmt.Errorf("%w: signature_mode is strict; install a signed build, or sign it yourself with a key listed in trusted_publisher_keys", ErrUnsigned)
	}
}

// SignatureWarning returns the warning a caller prints for a status that
// [CheckSignature] accepted under mode, or "".
func SignatureWarning(mode string, st SignatureStatus) string {
	if mode == config.SignatureDisabled || mode == config.SignatureStrict {
		return ""
	}
	switch st {
	case Unsigned:
		return "is not signed; it loads because signature_mode is permissive"
	case SignedUntrusted:
		return "is signed by a key not in trusted_publisher_keys; it loads because signature_mode is permissive"
	case SignedTrusted, BadSignature:
		// Nothing to warn about, or refused outright.
	}
	return ""
}

// GenerateKey returns a new Ed25519 key pair for signing manifests.
func GenerateKey() (ed25519.PublicKey, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		// crypto/rand does not fail on supported platforms.
		panic("manifest: generate key: " + err.Error())
	}
	return pub, priv
}

// PublicKeyString renders a public key as trusted_publisher_keys and
// publisher_key expect it: standard base64.
func PublicKeyString(pub ed25519.PublicKey) string {
	return base64.StdEncoding.EncodeToString(pub)
}

// privateKeyHeader starts a key file; the second line is the key's 32-byte
// seed in standard base64.
const privateKeyHeader = "talon-plugin-signing-key-v1"

// WritePrivateKey writes a signing key to path with mode 0600, as two
// lines: "talon-plugin-signing-key-v1", then the base64 (standard
// encoding) of the key's 32-byte Ed25519 seed. An existing file is
// replaced atomically.
func WritePrivateKey(path string, key ed25519.PrivateKey) error {
	if len(key) != ed25519.PrivateKeySize {
		return errors.New("write signing key: the key has the wrong size")
	}
	text := privateKeyHeader + "\n" + base64.StdEncoding.EncodeToString(key.Seed()) + "\n"
	if err := config.WriteFileAtomic(path, []byte(text), 0o600); err != nil {
		return fmt.Errorf("write signing key: %w", err)
	}
	return nil
}

// ReadPrivateKey reads a key file written by [WritePrivateKey].
func ReadPrivateKey(path string) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	header, seed, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if strings.TrimSpace(header) != privateKeyHeader {
		return nil, fmt.Errorf("read signing key %s: not a talon plugin signing key (the first line must be %q)", path, privateKeyHeader)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(seed))
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, fmt.Errorf("read signing key %s: the second line must be the base64 of a %d-byte seed; generate a new key", path, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(b), nil
}
