package config

import (
	"strings"
	"testing"
)

// TestPluginCeilings: [plugins] max_memory_mb, max_timeout_ms,
// max_instances and max_output_bytes default to documented values, and a
// value that is negative or past its hard cap is refused naming the key.
func TestPluginCeilings(t *testing.T) {
	for _, c := range []*Config{{}, Default()} {
		p := c.Plugins
		if p.MaxMemoryMBValue() != 256 || p.MaxTimeoutMSValue() != 60000 || p.MaxInstancesValue() != 4 || p.MaxOutputBytesValue() != 4<<20 {
			t.Errorf("ceilings %d MiB, %d ms, %d instances, %d bytes", p.MaxMemoryMBValue(), p.MaxTimeoutMSValue(), p.MaxInstancesValue(), p.MaxOutputBytesValue())
		}
	}
	tests := []struct {
		name string
		toml string
		want string // "" means valid
	}{
		{"raised", "max_memory_mb = 4096\nmax_timeout_ms = 3600000\nmax_instances = 64\nmax_output_bytes = 67108864", ""},
		{"lowered", "max_memory_mb = 1\nmax_timeout_ms = 1\nmax_instances = 1\nmax_output_bytes = 1", ""},
		{"memory negative", "max_memory_mb = -1", "plugins.max_memory_mb = -1 is negative"},
		{"memory over wasm32", "max_memory_mb = 4097", "plugins.max_memory_mb = 4097 is more than 4096"},
		{"timeout over an hour", "max_timeout_ms = 3600001", "plugins.max_timeout_ms = 3600001 is more than 3600000"},
		{"instances", "max_instances = 65", "plugins.max_instances = 65 is more than 64"},
		{"output", "max_output_bytes = 67108865", "plugins.max_output_bytes = 67108865 is more than 67108864"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte("[plugins]\n"+tt.toml+"\n"))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
