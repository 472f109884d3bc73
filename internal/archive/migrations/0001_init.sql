-- Schema version 1: runs, their records and the records' metric values.
-- The same text runs on SQLite and PostgreSQL: only portable types
-- (TEXT, INTEGER, DOUBLE PRECISION) and times as fixed-width RFC 3339
-- text in UTC, which sorts as it reads.
CREATE TABLE runs (
	lab         TEXT NOT NULL,
	host        TEXT NOT NULL,
	run_id      TEXT NOT NULL,
	applied     TEXT NOT NULL, -- the run's start
	status      TEXT NOT NULL,
	lab_version TEXT NOT NULL,
	spec_hash   TEXT NOT NULL,
	run_json    TEXT NOT NULL, -- run.json, byte for byte
	PRIMARY KEY (lab, host, run_id)
);

CREATE TABLE records (
	lab              TEXT NOT NULL,
	host             TEXT NOT NULL,
	run_id           TEXT NOT NULL,
	path             TEXT NOT NULL, -- the record's path in its run directory
	experiment       TEXT NOT NULL,
	pair             TEXT NOT NULL,
	cell             TEXT NOT NULL, -- cell key ("mtu=1500,streams=1")
	repeat_no        INTEGER NOT NULL,
	warmup           INTEGER NOT NULL,
	failed           INTEGER NOT NULL,
	started          TEXT NOT NULL,
	lab_version      TEXT NOT NULL,
	spec_hash        TEXT NOT NULL,
	provider         TEXT NOT NULL,
	server_kernel    TEXT NOT NULL,
	client_kernel    TEXT NOT NULL,
	server_cpu_model TEXT NOT NULL,
	client_cpu_model TEXT NOT NULL,
	server_driver    TEXT NOT NULL,
	client_driver    TEXT NOT NULL,
	server_template  TEXT NOT NULL,
	client_template  TEXT NOT NULL,
	tool_version     TEXT NOT NULL,
	record_json      TEXT NOT NULL, -- the record file, byte for byte
	PRIMARY KEY (lab, host, run_id, path),
	FOREIGN KEY (lab, host, run_id) REFERENCES runs (lab, host, run_id)
);

CREATE TABLE metrics (
	lab    TEXT NOT NULL,
	host   TEXT NOT NULL,
	run_id TEXT NOT NULL,
	path   TEXT NOT NULL,
	metric TEXT NOT NULL, -- results.Metric key ("throughput_bps")
	value  DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (lab, host, run_id, path, metric),
	FOREIGN KEY (lab, host, run_id, path) REFERENCES records (lab, host, run_id, path)
);

CREATE INDEX records_cell ON records (lab, experiment, cell);
CREATE INDEX metrics_metric ON metrics (lab, metric);

-- Who holds a footprint's benchmark lock (a PostgreSQL advisory lock,
-- released with its session): written by the holder after it locks, read
-- by those who wait. A row whose backend is gone is stale and not shown.
CREATE TABLE footprint_holders (
	resource    TEXT NOT NULL PRIMARY KEY,
	runner      TEXT NOT NULL,
	lab         TEXT NOT NULL,
	pid         INTEGER NOT NULL,
	since       TEXT NOT NULL,
	backend_pid INTEGER NOT NULL
);
