package fsx

import (
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		tier tool.Tier
	}{
		{name: "content_search", tier: tool.Low},
		{name: "file_edit", tier: tool.Medium},
		{name: "file_read", tier: tool.Low},
		{name: "file_write", tier: tool.Medium},
		{name: "glob_search", tier: tool.Low},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fac, ok := toolfactory.Get(tt.name)
			if !ok {
				t.Fatalf("%s is not registered", tt.name)
			}
			if fac.Tier != tt.tier {
				t.Errorf("factory tier = %v, want %v", fac.Tier, tt.tier)
			}
			tl, err := fac.New(toolfactory.Env{Workspace: dir})
			if err != nil {
				t.Fatalf("New with a nil config: %v", err)
			}
			if spec := tl.Spec(); spec.Name != tt.name || spec.Tier != tt.tier {
				t.Errorf("spec = %+v", spec)
			}
			if _, err := fac.New(toolfactory.Env{}); err == nil {
				t.Error("New without a workspace succeeded")
			}
		})
	}
}

func TestLimitsFrom(t *testing.T) {
	tests := []struct {
		name string
		cfg  *config.Config
		want limits
	}{
		{name: "nil config", want: limits{readMaxBytes: 262144, globMaxResults: 1000, searchMaxResults: 200}},
		{name: "empty config", cfg: &config.Config{}, want: limits{readMaxBytes: 262144, globMaxResults: 1000, searchMaxResults: 200}},
		{name: "configured", cfg: &config.Config{Tools: config.Tools{
			FileRead:      config.FileRead{MaxBytes: 1000},
			GlobSearch:    config.GlobSearch{MaxResults: 10},
			ContentSearch: config.ContentSearch{MaxResults: 5},
		}}, want: limits{readMaxBytes: 1000, globMaxResults: 10, searchMaxResults: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limitsFrom(toolfactory.Env{Config: tt.cfg}); got != tt.want {
				t.Errorf("limitsFrom = %+v, want %+v", got, tt.want)
			}
		})
	}
}
