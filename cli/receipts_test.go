package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReceiptsVerifyNeedsAKey: verifying a copy that has no public key file
// beside it (an export, or a chain's directory copied elsewhere) without
// --pubkey is a usage error that says to pass one, not a failed check of
// the records; with the key it verifies.
func TestReceiptsVerifyNeedsAKey(t *testing.T) {
	s := newSandbox(t, "")
	if code, out := s.run("tools", "call", "calculator", `{"expression":"6*7"}`); code != 0 {
		t.Fatalf("tools call: exit %d\n%s", code, out)
	}
	elsewhere := t.TempDir()
	code, exported := s.run("receipts", "export")
	if code != 0 {
		t.Fatalf("receipts export: exit %d\n%s", code, exported)
	}
	file := filepath.Join(elsewhere, "receipts.jsonl")
	if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	code, key := s.run("receipts", "key")
	if code != 0 {
		t.Fatalf("receipts key: exit %d\n%s", code, key)
	}
	pub := filepath.Join(elsewhere, "key.pub")
	if err := os.WriteFile(pub, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"export without --pubkey", []string{"receipts", "verify", file}, ExitUsage, "--pubkey"},
		{"missing --pubkey file", []string{"receipts", "verify", "--pubkey", filepath.Join(elsewhere, "none.pub"), file}, ExitUsage, "--pubkey"},
		{"export with --pubkey", []string{"receipts", "verify", "--pubkey", pub, file}, 0, "OK: every signature"},
		{"the store itself", []string{"receipts", "verify"}, 0, "OK: every signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := s.run(tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("talon %s: exit %d, want %d and %q:\n%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out)
			}
		})
	}
}
