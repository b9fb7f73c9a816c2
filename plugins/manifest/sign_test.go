package manifest

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
)

func signedFixture(t *testing.T) ([]byte, ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv := GenerateKey()
	text := "# A plugin that says hello.\n\n" + valid
	out, err := Sign([]byte(text), priv)
	if err != nil {
		t.Fatal(err)
	}
	return out, pub, priv
}

func verifyText(t *testing.T, data []byte, trusted ...string) SignatureStatus {
	t.Helper()
	m, err := Parse(data)
	if err != nil {
		t.Fatalf("signed manifest does not parse: %v\n%s", err, data)
	}
	return Verify(m, data, trusted)
}

func TestSignKeepsTextAndVerifies(t *testing.T) {
	out, pub, _ := signedFixture(t)
	s := string(out)
	if !strings.HasPrefix(s, "# A plugin that says hello.\n\npublisher_key = ") {
		t.Fatalf("signature lines not placed after the leading comment:\n%s", s)
	}
	if !strings.Contains(s, strings.TrimPrefix(valid, "")) {
		t.Fatal("the rest of the text was changed")
	}
	if got := verifyText(t, out); got != SignedUntrusted {
		t.Fatalf("untrusted key: %s", got)
	}
	if got := verifyText(t, out, "bm90IGEga2V5", PublicKeyString(pub)); got != SignedTrusted {
		t.Fatalf("trusted key: %s", got)
	}
}

func TestSignReplacesOldSignature(t *testing.T) {
	out, _, _ := signedFixture(t)
	pub2, priv2 := GenerateKey()
	again, err := Sign(out, priv2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(again), "signature = ") != 1 || strings.Count(string(again), "publisher_key = ") != 1 {
		t.Fatalf("old signature lines kept:\n%s", again)
	}
	if got := verifyText(t, again, PublicKeyString(pub2)); got != SignedTrusted {
		t.Fatalf("re-signed: %s", got)
	}
}

func TestVerifyStatuses(t *testing.T) {
	out, pub, _ := signedFixture(t)
	trusted := PublicKeyString(pub)
	tests := []struct {
		name string
		edit func(string) string
		want SignatureStatus
	}{
		{"unsigned", func(string) string { return valid }, Unsigned},
		{"reformatted", func(s string) string {
			s = strings.Replace(s, `version = "1.0.0"`, "version    =    \"1.0.0\"   # semver", 1)
			return strings.Replace(s, "# A plugin that says hello.", "# reworded comment", 1)
		}, SignedTrusted},
		{"value changed", func(s string) string { return strings.Replace(s, `"Says hello"`, `"Says goodbye"`, 1) }, BadSignature},
		{"permission added", func(s string) string {
			return strings.Replace(s, `secrets = ["API_TOKEN"]`, `secrets = ["API_TOKEN", "AWS"]`, 1)
		}, BadSignature},
		{"limit added", func(s string) string { return s + "max_instances = 9\n" }, BadSignature},
		{"signature only", func(s string) string { return removeLine(s, "publisher_key") }, BadSignature},
		{"key only", func(s string) string { return removeLine(s, "signature") }, BadSignature},
		{"signature not base64", func(s string) string { return replaceValue(s, "signature", "!!!") }, BadSignature},
		{"signature short", func(s string) string {
			return replaceValue(s, "signature", base64.StdEncoding.EncodeToString(make([]byte, 10)))
		}, BadSignature},
		{"other key", func(s string) string {
			other, _ := GenerateKey()
			return replaceValue(s, "publisher_key", PublicKeyString(other))
		}, BadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyText(t, []byte(tt.edit(string(out))), trusted); got != tt.want {
				t.Fatalf("status %s, want %s", got, tt.want)
			}
		})
	}
}

func removeLine(s, key string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, key+" = ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func replaceValue(s, key, value string) string {
	return strings.Replace(removeLine(s, key), "name = ", key+` = "`+value+"\"\nname = ", 1)
}

// TestSignedPayloadIsReproducible pins the payload definition: context
// line, then RFC 8785 JSON without signature and publisher_key.
func TestSignedPayloadIsReproducible(t *testing.T) {
	text := "signature = \"x\"\npublisher_key = \"y\"\nname = \"a\"\nabi_version = 1\n[limits]\ntimeout_ms = 10\n[permissions.http]\nallowed_hosts = [\"b.example\", \"a.example\"]\n"
	got, err := SignedPayload([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := "talon plugin manifest v1\n" +
		`{"abi_version":1,"limits":{"timeout_ms":10},"name":"a","permissions":{"http":{"allowed_hosts":["b.example","a.example"]}}}`
	if string(got) != want {
		t.Fatalf("payload\n%s\nwant\n%s", got, want)
	}
}

func TestSignEdgeCases(t *testing.T) {
	_, priv := GenerateKey()
	// A table header first: the top level has no room for the keys.
	if _, err := Sign([]byte("[limits]\ntimeout_ms = 1\n"), priv); err != nil {
		t.Fatalf("file without top-level keys: %v", err)
	}
	// A line inside a multi-line string must not be taken for a key.
	ml := "description = \"\"\"\nsignature = \"x\"\n\"\"\"\nname = \"a\"\n"
	if _, err := Sign([]byte(ml), priv); err == nil {
		t.Fatal("Sign edited a multi-line string")
	}
	if _, err := Sign([]byte("name = [\n"), priv); err == nil {
		t.Fatal("signed invalid TOML")
	}
	if _, err := Sign([]byte(valid), priv[:10]); err == nil {
		t.Fatal("signed with a short key")
	}
}

func TestCheckSignature(t *testing.T) {
	statuses := []SignatureStatus{Unsigned, SignedUntrusted, SignedTrusted, BadSignature}
	want := map[string]map[SignatureStatus]error{
		config.SignatureDisabled:   {BadSignature: ErrBadSignature},
		config.SignaturePermissive: {BadSignature: ErrBadSignature},
		"":                         {BadSignature: ErrBadSignature},
		config.SignatureStrict:     {BadSignature: ErrBadSignature, Unsigned: ErrUnsigned, SignedUntrusted: ErrUntrustedKey},
	}
	warns := map[string]map[SignatureStatus]bool{
		config.SignaturePermissive: {Unsigned: true, SignedUntrusted: true},
		"":                         {Unsigned: true, SignedUntrusted: true},
	}
	for mode, byStatus := range want {
		for _, st := range statuses {
			t.Run(mode+"/"+string(st), func(t *testing.T) {
				err := CheckSignature(mode, st)
				if w := byStatus[st]; w == nil && err != nil || w != nil && !errors.Is(err, w) {
					t.Fatalf("CheckSignature = %v, want %v", err, w)
				}
				if got := SignatureWarning(mode, st) != ""; got != warns[mode][st] {
					t.Fatalf("warning %q", SignatureWarning(mode, st))
				}
			})
		}
	}
}

func TestPrivateKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signing.key")
	pub, priv := GenerateKey()
	if err := WritePrivateKey(path, priv); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || lines[0] != "talon-plugin-signing-key-v1" || lines[1] != base64.StdEncoding.EncodeToString(priv.Seed()) {
		t.Fatalf("key file layout:\n%s", data)
	}
	got, err := ReadPrivateKey(path)
	if err != nil || !got.Equal(priv) || !got.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatalf("ReadPrivateKey = %v", err)
	}
	for name, text := range map[string]string{
		"header": "something else\n" + lines[1] + "\n",
		"seed":   lines[0] + "\nAAAA\n",
		"empty":  "",
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPrivateKey(path); err == nil {
			t.Errorf("%s: accepted a broken key file", name)
		}
	}
}
