package config

import "strings"

// Fleet is [fleet]: one PostgreSQL database that the talon processes of
// an organisation share for their receipts and, when approvals is set,
// their pending approvals (docs/fleet.md). The zero value, and a file
// without the table, leaves every talon on its own.
type Fleet struct {
	// DatabaseURL is postgres://user:password@host:port/database, usually
	// with the password from the environment: "postgres://talon:${TALON_DB_PASSWORD}@db/talon".
	// ${VAR} is expanded when talon connects. "" turns the fleet off.
	DatabaseURL string `toml:"database_url"`
	// HostID names this host in the database; "" means an id generated
	// once and kept in the data directory (fleet/host-id).
	HostID string `toml:"host_id"`
	// AutoMigrate applies the schema at start instead of waiting for
	// talon fleet migrate.
	AutoMigrate bool `toml:"auto_migrate"`
	// Approvals publishes the approvals talon serve waits for, so that
	// talon approvals on any machine that reaches the database can
	// answer them.
	Approvals bool `toml:"approvals"`
}

// Enabled reports whether a database is configured.
func (f Fleet) Enabled() bool { return f.DatabaseURL != "" }

// fleetHostID reports a valid host id: 1 to 64 letters, digits, '.', '-'
// and '_', starting with a letter or digit (as the fleet package checks).
func fleetHostID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i, c := range []byte(id) {
		alnum := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !alnum && (i == 0 || (c != '.' && c != '-' && c != '_')) {
			return false
		}
	}
	return true
}

func (c *Config) validateFleet(v *validator) {
	f := c.Fleet
	path := []string{"fleet"}
	if u := f.DatabaseURL; u != "" && !strings.HasPrefix(u, "${") &&
		!strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		v.fail(append(path, "database_url"), "fleet.database_url must be a PostgreSQL URL (postgres://user:password@host/database) or ${VAR} naming one")
	}
	if id := f.HostID; id != "" && !fleetHostID(id) {
		v.fail(append(path, "host_id"), "fleet.host_id = %s: use 1 to 64 letters, digits, '.', '-' and '_', starting with a letter or digit", quoteString(id))
	}
	if !f.Enabled() && (f.HostID != "" || f.AutoMigrate || f.Approvals) {
		v.warnings = append(v.warnings, "[fleet] is set without database_url, so it does nothing; set database_url to use the fleet")
	}
}
