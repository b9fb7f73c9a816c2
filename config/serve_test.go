package config

import (
	"strings"
	"testing"
	"time"
)

func TestServeQueue(t *testing.T) {
	tests := []struct {
		name     string
		toml     string
		inFlight int
		queue    int
		wait     time.Duration
		err      string // substring of the error; "" for none
	}{
		{name: "defaults", inFlight: 32, queue: 1024, wait: time.Minute},
		{name: "zero is the default", toml: "[serve]\nmax_in_flight = 0\nqueue_length = 0\nqueue_wait_seconds = 0\n", inFlight: 32, queue: 1024, wait: time.Minute},
		{name: "set", toml: "[serve]\nmax_in_flight = 4\nqueue_length = 16\nqueue_wait_seconds = 5\n", inFlight: 4, queue: 16, wait: 5 * time.Second},
		{name: "negative in flight", toml: "[serve]\nmax_in_flight = -1\n", err: "serve.max_in_flight = -1 is negative"},
		{name: "negative queue", toml: "[serve]\nqueue_length = -1\n", err: "serve.queue_length = -1 is negative"},
		{name: "negative wait", toml: "[serve]\nqueue_wait_seconds = -5\n", err: "serve.queue_wait_seconds = -5 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := Parse("talon.toml", []byte(tt.toml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := cfg.Serve
			if s.InFlightLimit() != tt.inFlight || s.QueueLimit() != tt.queue || s.QueueWait() != tt.wait {
				t.Fatalf("in flight %d, queue %d, wait %s", s.InFlightLimit(), s.QueueLimit(), s.QueueWait())
			}
		})
	}
}
