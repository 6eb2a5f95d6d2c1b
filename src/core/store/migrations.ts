/**
 * Schema migrations, applied in order inside one transaction each. The
 * database's `user_version` is the schema version; a store written by a newer
 * headspace is refused before anything touches it (see open-store.ts).
 */
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
  // network (#18): every egress decision of a job whose workspace has a
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
];

export const SCHEMA_VERSION = MIGRATIONS.length;
