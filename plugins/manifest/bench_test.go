package manifest

import (
	"crypto/ed25519"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// BenchmarkParse compares Parse (strict decoding plus validation) with a
// plain go-toml decode of the same manifest.
func BenchmarkParse(b *testing.B) {
	data := []byte(valid)
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m Manifest
			if err := toml.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("talon", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVerify compares Verify (decode, canonical JSON, Ed25519) with a
// bare Ed25519 verification of a payload of the same size.
func BenchmarkVerify(b *testing.B) {
	pub, priv := GenerateKey()
	data, err := Sign([]byte(valid), priv)
	if err != nil {
		b.Fatal(err)
	}
	m, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	trusted := []string{PublicKeyString(pub)}
	payload, _ := SignedPayload(data)
	sig := ed25519.Sign(priv, payload)
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if !ed25519.Verify(pub, payload, sig) {
				b.Fatal("does not verify")
			}
		}
	})
	b.Run("talon", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if st := Verify(m, data, trusted); st != SignedTrusted {
				b.Fatal(st)
			}
		}
	})
}
