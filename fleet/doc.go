// Package fleet connects the talon processes of an organisation through
// one PostgreSQL database: each process ships its receipts there, and,
// where the operator turns it on, publishes the approvals it waits for so
// that a person on any machine can answer them. Everything it does is
// off unless [fleet] database_url is set, and nothing in a tool call's
// path waits for the database.
//
// A talon serve runs one [Fleet]:
//
//	f, err := fleet.New(fleet.Options{URL: url, DataDir: dataDir, ReceiptsDir: dir})
//	if err != nil {
//		return err // a bad URL, an unreadable host id
//	}
//	f.ShipStore(store)             // its own chain first
//	f.Attach(queue, timeout)       // [fleet] approvals = true
//	f.Start()                      // connects in the background, retrying
//	defer f.Close()
//
// and commands reach the database through [Connect]:
//
//	db, err := fleet.Connect(ctx, url)
//	...
//	report, err := db.Verify(ctx, fleet.VerifyOptions{})
//
// # Notes
//
// The local receipt log stays the source of truth. The shipper only reads
// it (a [receipts.Follower] per chain), copies new records in batches with
// COPY, and keeps its place in the database in the same transaction, so a
// restart or an outage resumes from the last record shipped and a record
// is stored once per (host, chain, seq). While the database is away the
// log simply grows; what the shipper holds in memory is one batch.
//
// Each machine is a host, named by a host id kept in the data directory
// (fleet/host-id) unless [fleet] host_id sets one. The first machine to
// use a host id claims it; another machine presenting the same id is
// refused, so two machines never write one host's chains.
//
// The schema lives in the talon schema of the database and is created and
// upgraded by [DB.Migrate] (talon fleet migrate), from SQL embedded in
// the binary. A database whose schema is newer than this talon knows is
// refused rather than written.
package fleet
