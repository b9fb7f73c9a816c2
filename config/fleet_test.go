package config

import (
	"strings"
	"testing"
)

func TestFleet(t *testing.T) {
	tests := []struct {
		name    string
		toml    string
		want    Fleet
		err     string // substring of the error; "" for none
		warning string
	}{
		{name: "absent is off"},
		{name: "set", toml: "[fleet]\ndatabase_url = \"postgres://talon:${PW}@db/talon\"\nhost_id = \"ci-runner.7\"\nauto_migrate = true\napprovals = true\n",
			want: Fleet{DatabaseURL: "postgres://talon:${PW}@db/talon", HostID: "ci-runner.7", AutoMigrate: true, Approvals: true}},
		{name: "a variable", toml: "[fleet]\ndatabase_url = \"${TALON_DATABASE_URL}\"\n", want: Fleet{DatabaseURL: "${TALON_DATABASE_URL}"}},
		{name: "postgresql scheme", toml: "[fleet]\ndatabase_url = \"postgresql://db/talon\"\n", want: Fleet{DatabaseURL: "postgresql://db/talon"}},
		{name: "not postgres", toml: "[fleet]\ndatabase_url = \"mysql://db/talon\"\n", err: "fleet.database_url must be a PostgreSQL URL"},
		{name: "bad host id", toml: "[fleet]\ndatabase_url = \"postgres://db/t\"\nhost_id = \"a b\"\n", err: `fleet.host_id = "a b"`},
		{name: "unknown key", toml: "[fleet]\ndatabase = \"postgres://db/t\"\n", err: "database"},
		{name: "nothing to connect to", toml: "[fleet]\napprovals = true\n", want: Fleet{Approvals: true}, warning: "without database_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, warnings, err := Parse("talon.toml", []byte("schema_version = 1\n[tools]\noptional = [\"*\"]\n"+tt.toml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Fleet != tt.want || cfg.Fleet.Enabled() != (tt.want.DatabaseURL != "") {
				t.Fatalf("Fleet = %+v, want %+v", cfg.Fleet, tt.want)
			}
			if got := strings.Join(warnings, "\n"); !strings.Contains(got, tt.warning) || (tt.warning == "" && got != "") {
				t.Errorf("warnings %q, want %q", got, tt.warning)
			}
		})
	}
	if Default().Fleet.Enabled() {
		t.Error("the embedded defaults turn the fleet on")
	}
}
