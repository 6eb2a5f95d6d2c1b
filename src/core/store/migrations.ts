/**
 * Schema migrations, applied in order inside one transaction each. The
 * database's `user_version` is the schema version; a store written by a newer
 * headspace is refused before anything touches it (see open-store.ts).
 */
import { NETWORK_CUT_REASON } from '../network/egress-ledger.js';

/** NETWORK_CUT_REASON as a SQL string literal: the partial index's condition, which a query must name alike to use it. */
export const NETWORK_CUT_SQL = `'${NETWORK_CUT_REASON.split("'").join("''")}'`;

export const MIGRATIONS: readonly string[] = [
  // 1: workspaces, jobs, the intent journal.
  `
  CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    state TEXT NOT NULL,
    profile TEXT NOT NULL,
    policy TEXT NOT NULL,
    environment_digest TEXT,
    purpose TEXT,
    owner TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER,
    lifecycle_path TEXT NOT NULL
  );
  CREATE INDEX workspaces_state ON workspaces(state);
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    state TEXT NOT NULL,
    status TEXT,
    argv TEXT NOT NULL,
    exit_code INTEGER,
    signal TEXT,
    limit_hit TEXT,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    owner_pid INTEGER NOT NULL,
    owner_started TEXT,
    output_bytes INTEGER NOT NULL DEFAULT 0,
    stored_bytes INTEGER NOT NULL DEFAULT 0,
    usage TEXT,
    stop_requested INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX jobs_workspace ON jobs(workspace_id, started_at);
  CREATE INDEX jobs_running ON jobs(state) WHERE state = 'running';
  CREATE TABLE intents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    job_id TEXT,
    op TEXT NOT NULL,
    provider TEXT NOT NULL,
    owner_pid INTEGER NOT NULL,
    owner_started TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER,
    outcome TEXT
  );
  CREATE INDEX intents_open ON intents(settled_at) WHERE settled_at IS NULL;
  `,
  // 2: files in (inputs ledger: destination, size, digest — never bytes),
  // declared artifacts and their exports, and the env NAMES a job received.
  `
  CREATE TABLE inputs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    job_id TEXT,
    destination TEXT NOT NULL,
    kind TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    file_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX inputs_workspace ON inputs(workspace_id);
  CREATE TABLE artifacts (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name TEXT NOT NULL,
    purpose TEXT NOT NULL,
    media_type TEXT NOT NULL,
    declared_by_job TEXT,
    declared_at INTEGER NOT NULL,
    exported_to TEXT,
    exported_sha256 TEXT,
    exported_size INTEGER,
    exported_at INTEGER,
    PRIMARY KEY (workspace_id, name)
  );
  ALTER TABLE jobs ADD COLUMN env_names TEXT;
  `,
  // 3: what an intent acts on beyond its workspace (an export's artifact
  // name and host destination as JSON {name, to}; a put's workspace path),
  // so doctor --repair can prove its
  // outcome and find its temporary file after a crash; and a note on a job
  // whose record was written by someone other than its own process.
  `
  ALTER TABLE intents ADD COLUMN target TEXT;
  ALTER TABLE jobs ADD COLUMN note TEXT;
  CREATE INDEX intents_workspace_open ON intents(workspace_id) WHERE settled_at IS NULL;
  `,
  // 4: each workspace's job identity slot (job uid = 600000 + slot, see
  // core/job-identity.ts), unique among workspaces not destroyed: the index
  // itself refuses a second live holder, so a slot is never shared while its
  // workspace exists (failed and half-removed ones included) and is free
  // again once it is destroyed. Workspaces made before this migration keep
  // NULL: they run as the legacy uid 600000 until destroyed.
  `
  ALTER TABLE workspaces ADD COLUMN job_slot INTEGER;
  CREATE UNIQUE INDEX workspaces_live_job_slot ON workspaces(job_slot) WHERE state != 'destroyed';
  `,
  // 5: who cancelled a cancelled job ('stop', 'the MCP client', …), so its
  // record and every result about it say so instead of always blaming stop
  // (#12 item 22). NULL for every other status and for older records.
  `
  ALTER TABLE jobs ADD COLUMN cancelled_by TEXT;
  `,
  // 6: the trace id of the engine call that wrote each intent (the
  // provenance.trace_id of its result, #12 item 7). Rows written before
  // keep NULL.
  `
  ALTER TABLE intents ADD COLUMN trace_id TEXT;
  `,
  // 7: the working directory a job ran in (run --cwd), workspace-relative;
  // NULL for the workspace root, and for jobs recorded before it (#12 item 9).
  `
  ALTER TABLE jobs ADD COLUMN cwd TEXT;
  `,
  // 8: events (#15): one terminal event per job end, written by finishJob in
  // the terminal record's own transaction (never the command, output, env or
  // paths: ids, status, exit code and times only); durable subscriptions;
  // and one delivery row per (subscription, event) carrying the claim/ack
  // state. `seq` is the monotonically increasing order; `id` is derived from
  // the job id and its start, UNIQUE, so a second finish of the same job
  // inserts nothing.
  `
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    job_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    status TEXT NOT NULL,
    exit_code INTEGER,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL
  );
  CREATE INDEX events_job ON events(job_id);
  CREATE INDEX events_workspace ON events(workspace_id, seq);
  CREATE TABLE event_subscriptions (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    target TEXT,
    name TEXT,
    max_deliveries INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    webhook_url TEXT
  );
  CREATE TABLE event_deliveries (
    subscription_id TEXT NOT NULL REFERENCES event_subscriptions(id) ON DELETE CASCADE,
    event_seq INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
    state TEXT NOT NULL,
    deliveries INTEGER NOT NULL DEFAULT 0,
    claimed_at INTEGER,
    lease_until INTEGER,
    settled_at INTEGER,
    PRIMARY KEY (subscription_id, event_seq)
  );
  CREATE INDEX event_deliveries_open ON event_deliveries(subscription_id, state, event_seq);
  CREATE INDEX event_deliveries_dead ON event_deliveries(state) WHERE state = 'dead';
  `,
  // 9: snapshots (#14): checkpoints (the provider holds the bytes, the store the
  // record: a 'pending' one was never finished and is never restored), fork
  // links with their baseline, sealed outputs settled exactly once (state
  // 'applying' is the journalled half-way point repair finishes), the merge
  // gate's decisions (never file bodies), and each workspace's review policy.
  `
  CREATE TABLE checkpoints (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    label TEXT,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    file_count INTEGER,
    bytes INTEGER,
    digest TEXT,
    consumed_at INTEGER
  );
  CREATE INDEX checkpoints_workspace ON checkpoints(workspace_id, created_at);
  CREATE TABLE forks (
    child_id TEXT PRIMARY KEY,
    parent_id TEXT NOT NULL,
    parent_checkpoint_id TEXT NOT NULL,
    parent_digest TEXT NOT NULL,
    child_base_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX forks_parent ON forks(parent_id);
  CREATE TABLE outputs (
    id TEXT PRIMARY KEY,
    child_id TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    seal_checkpoint_id TEXT NOT NULL,
    changes TEXT NOT NULL,
    proposal_digest TEXT NOT NULL,
    state TEXT NOT NULL,
    decision TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER
  );
  CREATE TABLE reviews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    output_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    proposal_digest TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    paths TEXT NOT NULL,
    kinds TEXT NOT NULL,
    decided_at INTEGER NOT NULL
  );
  ALTER TABLE workspaces ADD COLUMN review_policy TEXT;
  `,
  // 10: verification, receipts and supervision rules (#16): each job's
  // verification block (JSON: every check, its outcome and the digest of its
  // evidence; NULL when no check was asked for and for older jobs); every
  // receipt version of a job (the canonical document and its sha256; a new
  // version is issued when one of the job's artifacts is exported); a
  // workspace's supervision rules (canonical text, whether a blocking rule
  // has tripped, and the jobs rowid after which it counts); and the journal of every rule
  // decision (denied, fired, blocked, cleared).
  `
  ALTER TABLE jobs ADD COLUMN verification TEXT;
  CREATE TABLE job_receipts (
    job_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, version)
  );
  CREATE TABLE workspace_rules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    rule TEXT NOT NULL,
    added_at INTEGER NOT NULL,
    counts_after_job INTEGER NOT NULL,
    tripped_at INTEGER,
    tripped_by_job TEXT,
    UNIQUE (workspace_id, rule)
  );
  CREATE TABLE rule_decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    job_id TEXT,
    rule TEXT NOT NULL,
    decision TEXT NOT NULL,
    detail TEXT NOT NULL,
    at INTEGER NOT NULL,
    trace_id TEXT
  );
  CREATE INDEX rule_decisions_workspace ON rule_decisions(workspace_id, id);
  `,
  // 11: network (#18): every egress decision of a job whose workspace has a
  // network allow-list (host, port, verdict, reason, bytes; never a path,
  // query, header or body), and the job's one-line network summary. At most
  // the ledger's first 1000 decisions per job are itemised; the summary
  // keeps the full counts.
  `
  CREATE TABLE network_decisions (
    job_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    workspace_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    host TEXT NOT NULL,
    port INTEGER NOT NULL,
    via TEXT NOT NULL,
    reason TEXT,
    bytes_up INTEGER NOT NULL,
    bytes_down INTEGER NOT NULL,
    PRIMARY KEY (job_id, seq)
  );
  ALTER TABLE jobs ADD COLUMN network_summary TEXT;
  `,
  // ui (#21): which face asked for a journalled operation. The dashboard's
  // engine writes 'ui' on the intents of the stops, destroys and exports a
  // person confirms in the page, so the journal tells them from an agent's;
  // NULL for every other caller, as before.
  `
  ALTER TABLE intents ADD COLUMN actor TEXT;
  `,
  // batch (#16): a batch's durable group (strategy, bounds, its driver's
  // identity, the join's decision and cleanup report) and its members (each
  // job's spec, where it stands, the job it became). A driver that dies
  // leaves the rows as they were: the next batch wait adopts the group and
  // finishes it; a member that never reached a job record never ran, and a
  // member with a job is only watched, never launched again.
  `
  CREATE TABLE batch_groups (
    id TEXT PRIMARY KEY,
    strategy TEXT NOT NULL,
    quorum INTEGER,
    concurrency INTEGER NOT NULL,
    timeout_ms INTEGER,
    cleanup_timeout_ms INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    state TEXT NOT NULL,
    status TEXT,
    summary TEXT,
    winners TEXT,
    driver_pid INTEGER,
    driver_started TEXT,
    cancel_requested_at INTEGER,
    decided_at INTEGER,
    finished_at INTEGER,
    cleanup TEXT,
    trace_id TEXT
  );
  CREATE TABLE batch_members (
    group_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    workspace_id TEXT,
    fork_of TEXT,
    argv TEXT NOT NULL,
    state TEXT NOT NULL,
    job_id TEXT,
    status TEXT,
    ended_at INTEGER,
    note TEXT,
    PRIMARY KEY (group_id, idx)
  );
  `,
  // scale-out (#22): why a workspace failed after it was ready (its swarm node
  // went down, its files with it), as the provider said it; null otherwise.
  `
  ALTER TABLE workspaces ADD COLUMN failure_reason TEXT;
  `,
  // dashboard (#21): each `probe --all` report as it returned (JSON), with
  // when, on which provider and by which build, so the dashboard's System view
  // shows the last one without running the probe again (a run takes a minute).
  `
  CREATE TABLE probe_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    provider TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    headspace_version TEXT NOT NULL,
    build TEXT NOT NULL,
    status TEXT NOT NULL,
    report TEXT NOT NULL
  );
  `,
  // batch forks (#16): whether the batch keeps every fork it made (keepForks), or, the default, destroys the
  // forks that hold neither a winner's work nor a failed batch's evidence when it settles. A group recorded before
  // this column reads 1: it was started when every fork was kept, and its driver keeps that promise.
  `
  ALTER TABLE batch_groups ADD COLUMN keep_forks INTEGER NOT NULL DEFAULT 1;
  `,
  // Two indexes no query needed (#20 item 4), each a page written in commits of every create, run and
  // destroy (52 -> 41 WAL frames per fake create+run+destroy cycle). workspaces_state: every workspace
  // query is by id, or by `state != 'destroyed'`, which no index on state serves (the live job slot's
  // partial index does). intents_workspace_open: a workspace's open intents (the lease check) are found
  // through intents_open, the few open intents of the whole home, as reconcile already reads them.
  `
  DROP INDEX IF EXISTS workspaces_state;
  DROP INDEX IF EXISTS intents_workspace_open;
  `,
  // A job whose network was cut for probing the secret redactor (red team, session 12): a run with secrets in its
  // workspace, or a fork of it, is refused after it (run.ts). Partial, so it holds the cut rows alone and no other
  // decision's insert writes to it. The literal is NETWORK_CUT_REASON's (egress-ledger.ts), quotes doubled, written
  // out: a migration never changes once shipped, and a test holds the constant to it (a changed reason would leave
  // the homes made before on an index, and cut rows, that no query names).
  `
  CREATE INDEX network_decisions_cut ON network_decisions(workspace_id) WHERE reason = 'network cut: a response ended with what may be a secret value''s first bytes';
  `,
  // Reads that scanned a table growing with the home's whole history (#20, found by EXPLAIN QUERY PLAN over every
  // statement the everyday verbs prepare: test/unit/core/store/per-call-reads-search-the-tables-that-grow-with-history).
  // Every run's receipt reads its workspace's puts, restores and settles (tree-history.ts), and so does an export,
  // and each scanned every intent of the home, three more per create+run+destroy; a workspace's outputs
  // (snapshot-records.ts) scanned every output. intents_file_changes is partial, and both reads name its op list
  // exactly as written here (SQLite uses a partial index only then): it holds the puts, restores and settles alone,
  // so no create, run or destroy writes to it (the WAL frames of #20 item 4 stay as they were).
  `
  CREATE INDEX intents_file_changes ON intents(workspace_id, created_at) WHERE op IN ('put', 'restore', 'settle');
  CREATE INDEX outputs_child ON outputs(child_id);
  CREATE INDEX outputs_parent ON outputs(parent_id);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
