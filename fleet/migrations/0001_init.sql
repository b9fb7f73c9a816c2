-- talon fleet schema, version 1: hosts, shipped receipts (partitioned by
-- month), the shipper's place per chain, and the shared approval inbox.
-- Applied by `talon fleet migrate` inside one transaction.

CREATE SCHEMA IF NOT EXISTS talon;

-- One row per host id: the machine that claimed it first. A second
-- machine presenting the same host id is refused (see docs/fleet.md to
-- hand a host id over to a new machine).
CREATE TABLE talon.hosts (
	host_id       text PRIMARY KEY,
	machine       text NOT NULL,
	hostname      text NOT NULL,
	claimed_at    timestamptz NOT NULL DEFAULT now(),
	last_seen     timestamptz NOT NULL DEFAULT now(),
	talon_version text NOT NULL DEFAULT ''
);

-- The public keys that sign a host's receipts (its receipt-key.pub), one
-- row per key, in the text form `talon receipts key` prints.
CREATE TABLE talon.receipt_keys (
	host_id    text NOT NULL,
	key_id     text NOT NULL,
	public_key text NOT NULL,
	first_seen timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (host_id, key_id)
);

-- Every receipt of every host: record is the exact signed line of the
-- local log (receipts/FORMAT.md); the other columns repeat its members
-- for queries and are checked against it by `talon receipts verify
-- --source postgres`. Partitioned by the month of the call.
CREATE TABLE talon.receipts (
	host_id     text NOT NULL,
	chain       text NOT NULL,
	seq         bigint NOT NULL,
	time        timestamptz NOT NULL,
	id          text NOT NULL,
	tool        text NOT NULL,
	attribution text NOT NULL,
	channel     text NOT NULL,
	profile     text NOT NULL,
	session     text NOT NULL,
	tier        text NOT NULL,
	allowed_by  text NOT NULL,
	key_id      text NOT NULL,
	rotation    boolean NOT NULL,
	hash        text NOT NULL,
	record      text NOT NULL,
	shipped_at  timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (host_id, chain, seq, time)
) PARTITION BY RANGE (time);

CREATE TABLE talon.receipts_default PARTITION OF talon.receipts DEFAULT;

CREATE INDEX receipts_tool_time ON talon.receipts (tool, time);

-- talon.receipts_partition(t) makes the partition of t's month (UTC),
-- talon.receipts_YYYY_MM, when it does not exist, and returns its name.
-- Shippers call it before they ship a month's first receipt.
CREATE FUNCTION talon.receipts_partition(t timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	lo   timestamp := date_trunc('month', t AT TIME ZONE 'UTC');
	name text := 'receipts_' || to_char(lo, 'YYYY_MM');
BEGIN
	IF to_regclass('talon.' || name) IS NULL THEN
		PERFORM pg_advisory_xact_lock(hashtext('talon.receipts_partition'));
		IF to_regclass('talon.' || name) IS NULL THEN
			EXECUTE format('CREATE TABLE talon.%I PARTITION OF talon.receipts FOR VALUES FROM (%L) TO (%L)',
				name, lo AT TIME ZONE 'UTC', (lo + interval '1 month') AT TIME ZONE 'UTC');
		END IF;
	END IF;
	RETURN name;
END $$;

-- Where each chain's shipping stands: every record up to shipped_seq is
-- in talon.receipts, shipped_hash is the hash of that record, local_seq
-- the last seq the shipper saw in the local log (for the lag).
CREATE TABLE talon.chains (
	host_id      text NOT NULL,
	chain        text NOT NULL,
	shipped_seq  bigint NOT NULL,
	shipped_hash text NOT NULL,
	shipped_at   timestamptz NOT NULL DEFAULT now(),
	local_seq    bigint NOT NULL DEFAULT 0,
	local_seen   timestamptz NOT NULL DEFAULT now(),
	problem      text NOT NULL DEFAULT '',
	PRIMARY KEY (host_id, chain)
);

-- The approval inbox: one row per call waiting for a person, written by
-- the talon process that waits (server names that process). An answer
-- from another machine sets state, answer and who gave it; the waiting
-- process then sets applied, true when the answer reached the call.
CREATE TABLE talon.approvals (
	id             text PRIMARY KEY,
	host_id        text NOT NULL,
	server         text NOT NULL,
	tool           text NOT NULL,
	attribution    text NOT NULL,
	tier           text NOT NULL,
	reasons        jsonb NOT NULL,
	plan           jsonb,
	args           text NOT NULL,
	channel        text NOT NULL,
	profile        text NOT NULL,
	session        text NOT NULL,
	delegation     jsonb NOT NULL,
	always_ask     boolean NOT NULL,
	saveable       boolean NOT NULL,
	request_sha256 text NOT NULL,
	requested_at   timestamptz NOT NULL,
	deadline       timestamptz NOT NULL,
	state          text NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'answered', 'withdrawn')),
	answer         text CHECK (answer IN ('yes', 'no', 'always', 'permanent')),
	answered_by    text,
	answered_host  text,
	answered_via   text CHECK (answered_via IN ('fleet', 'local')),
	answered_at    timestamptz,
	applied        boolean,
	note           text NOT NULL DEFAULT ''
);

CREATE INDEX approvals_pending ON talon.approvals (requested_at) WHERE state = 'pending';
CREATE INDEX approvals_host ON talon.approvals (host_id, state);
