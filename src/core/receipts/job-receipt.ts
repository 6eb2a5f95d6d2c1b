/**
 * Job receipts (#16): every terminal job gets one — a canonical JSON
 * document (canonical-json.ts: keys sorted, no whitespace, UTF-8) binding
 * what ran, under what, on what, with which verdict and output, and its
 * sha256. Every field comes from the engine's own records (the store, the
 * kept log's bytes, the provider's exit facts): none is read from what the
 * job printed, so a job cannot forge or alter its receipt by printing one.
 *
 * What is bound, and how:
 * - command_sha256: the canonical JSON of {argv, cwd} (argv is recorded
 *   verbatim elsewhere; the receipt holds its digest);
 * - policy_digest: the canonical JSON of the whole policy (as in results);
 * - environment_digest: what the job ran on (the provider's digest of its
 *   runtime: binaries, image);
 * - env: the NAMES of the variables the job was given and the digest of
 *   that list — never a value or a digest of one: a digest of a short
 *   secret can be reversed by guessing, so values are not bound at all;
 * - inputs: every input of the workspace recorded by the time the job
 *   started (destination, size, sha256 as put); one that a later restore or
 *   settle may have replaced names it (`may_differ_after`), and those changes
 *   are listed (`tree_changes`), as is the fork the files began as
 *   (`forked_from`): tree-history.ts;
 * - verification: each check, its outcome and its evidence digest;
 * - output: the sha256 of the output KEPT (at most the output budget) with
 *   the kept and total byte counts;
 * - artifacts: the job's exported artifacts (name, size, sha256, where).
 *
 * Versions: export happens after the job ends, so exporting one of a
 * job's artifacts issues the next version of its receipt — the same
 * bindings plus the artifact — naming the previous version's sha256 in
 * `previous_sha256`. Earlier versions stay stored and retrievable; none is
 * ever rewritten. An exported artifact goes on the receipt of the job that
 * ran last in the workspace before the export (the bytes are what that job
 * left, whoever wrote them), with `declared_by_job` naming the declarer when
 * it is another job or none (the declare verb): binding it to its declarer
 * let a later job's bytes stand under an earlier job's receipt (red team).
 * When a put, a restore or a settle began after that last job, no job left
 * those bytes, and no receipt binds the export.
 *
 * The file form (`receipt --out`) is an envelope {receipt, sha256}, itself
 * canonical: `receipt verify` recomputes the sha256 of the receipt's
 * canonical bytes and each artifact's digest, offline.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { canonicalDigest, canonicalJson, sha256Of } from '../canonical-json.js';
import { policyDigest, isoTime } from '../result/package-parts.js';
import type { JobRecord, SqliteStore, WorkspaceRecord } from '../store/sqlite-store.js';
import { describeTreeChange, filesChangedBesidesJobsSince, readTreeChanges, supersedingChange } from './tree-history.js';

export const JOB_RECEIPT_SCHEMA = 'headspace.job-receipt/v1';

export interface ReceiptArtifact {
  name: string;
  size_bytes: number;
  sha256: string;
  exported_to: string;
  /** Present when the artifact was declared by another job than the receipt's (its id) or by the declare verb (null). */
  declared_by_job?: string | null;
}

export interface JobReceipt {
  schema: typeof JOB_RECEIPT_SCHEMA;
  version: number;
  previous_sha256: string | null;
  issued_at: string;
  headspace_version: string;
  workspace_id: string;
  job_id: string;
  provider: string;
  profile: string;
  status: string;
  exit_code: number | null;
  signal: string | null;
  started_at: string | null;
  finished_at: string | null;
  command_sha256: string;
  policy_digest: string;
  environment_digest: string | null;
  env: { names: string[]; names_sha256: string };
  inputs: Array<{ destination: string; size_bytes: number; sha256: string; may_differ_after?: string }>;
  /** Restores and settles of the workspace before the job started (absent when none). */
  tree_changes?: Array<{ change: string; at: string }>;
  /** The workspace is a fork: the files began as this workspace's checkpoint (absent otherwise). */
  forked_from?: { workspace_id: string; checkpoint_id: string; digest: string };
  verification: unknown;
  output: { sha256: string; kept_bytes: number; total_bytes: number };
  artifacts: ReceiptArtifact[];
}

/** The file form: the receipt and the sha256 of its canonical bytes. */
export interface ReceiptEnvelope {
  receipt: JobReceipt;
  sha256: string;
}

export function receiptDigest(receipt: JobReceipt): string {
  return canonicalDigest(receipt);
}

/** The envelope's canonical text; pass the receipt's digest when it is already computed (issuing digests once, #20). */
export function envelopeText(receipt: JobReceipt, sha256: string = receiptDigest(receipt)): string {
  return canonicalJson({ receipt, sha256 });
}

/**
 * Issues version 1 of a finished job's receipt. Synchronous, so it runs in
 * the transaction that writes the job's terminal record: a terminal job
 * without a receipt cannot be observed. Returns its sha256.
 */
export function issueJobReceipt(
  ctx: EngineContext,
  store: SqliteStore,
  ws: WorkspaceRecord,
  job: JobRecord,
  /** The kept output's digest when the caller hashed it as it was written (run's sink); otherwise the log is read back. */
  kept: { sha256: string; kept_bytes: number } | null = null,
): string {
  // A record written twice (finishJob's second call is a no-op) keeps its first receipt: versions come only from exports.
  const existing = store.receiptOf(job.id);
  if (existing) return existing.sha256;
  const envNames = store.envNames(job.id);
  // Absent fields keep a receipt with neither byte-identical to one issued before they existed.
  const changes = readTreeChanges(store, ws.id, job.startedAt);
  const fork = store.statement('SELECT parent_id, parent_checkpoint_id, parent_digest FROM forks WHERE child_id = ?').get(ws.id) as
    { parent_id: string; parent_checkpoint_id: string; parent_digest: string } | undefined;
  const receipt: JobReceipt = {
    schema: JOB_RECEIPT_SCHEMA,
    version: 1,
    previous_sha256: null,
    issued_at: isoTime(ctx.clock.now())!,
    headspace_version: ctx.version,
    workspace_id: ws.id,
    job_id: job.id,
    provider: ws.provider,
    profile: ws.profile,
    status: job.status ?? 'unknown',
    exit_code: job.exitCode,
    signal: job.signal,
    started_at: isoTime(job.startedAt),
    finished_at: isoTime(job.finishedAt),
    command_sha256: canonicalDigest({ argv: job.argv, cwd: job.cwd ?? '' }),
    policy_digest: policyDigest(ws.policy),
    environment_digest: ws.environmentDigest,
    env: { names: envNames, names_sha256: canonicalDigest(envNames) },
    inputs: store
      .listInputs(ws.id)
      .filter((i) => i.createdAt <= job.startedAt || i.jobId === job.id)
      .map((i) => {
        const after = supersedingChange(i, changes);
        return {
          destination: i.destination,
          size_bytes: i.sizeBytes,
          sha256: prefixed(i.sha256),
          ...(after ? { may_differ_after: describeTreeChange(after) } : {}),
        };
      }),
    ...(changes.length > 0 ? { tree_changes: changes.map((c) => ({ change: describeTreeChange(c), at: isoTime(c.at)! })) } : {}),
    ...(fork ? { forked_from: { workspace_id: fork.parent_id, checkpoint_id: fork.parent_checkpoint_id, digest: fork.parent_digest } } : {}),
    verification: store.verificationOf(job.id) ?? { outcome: 'none', checks: [] },
    output: { ...(kept ?? keptOutputDigest(ctx.logPath(job.id))), total_bytes: job.outputBytes },
    artifacts: [],
  };
  return storeReceipt(ctx, store, receipt);
}

/** A terminal record writer's one call (stop, doctor's repair): the job's receipt issued, the job handed back. Call inside the record's transaction. */
export function issuingReceipt(ctx: EngineContext, ws: WorkspaceRecord, job: JobRecord): JobRecord {
  issueJobReceipt(ctx, ctx.store(), ws, job);
  return job;
}

/**
 * After an export: the next version of the owning job's receipt, with the
 * artifact added (replacing an earlier export of the same name). Returns
 * the job and sha256, or null when no finished job of the workspace has a
 * receipt to extend.
 */
export function reissueOnExport(
  ctx: EngineContext,
  store: SqliteStore,
  ws: WorkspaceRecord,
  declaredByJob: string | null,
  artifact: ReceiptArtifact,
): { jobId: string; sha256: string; version: number } | null {
  const last = store.latestFinishedJobs(ws.id, 0, 1)[0];
  if (last === undefined || last.finishedAt === null || !store.receiptOf(last.id)) return null;
  // A put, restore or settle since that job ended: the bytes are no job's leaving.
  if (filesChangedBesidesJobsSince(store, ws.id, last.finishedAt)) return null;
  const owner = last.id;
  const previous = store.receiptOf(owner)!;
  const before = (JSON.parse(previous.document) as ReceiptEnvelope).receipt;
  const receipt: JobReceipt = {
    ...before,
    version: previous.version + 1,
    previous_sha256: previous.sha256,
    issued_at: isoTime(ctx.clock.now())!,
    artifacts: [
      ...before.artifacts.filter((a) => a.name !== artifact.name),
      { ...artifact, sha256: prefixed(artifact.sha256), ...(declaredByJob === owner ? {} : { declared_by_job: declaredByJob }) },
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  return { jobId: owner, sha256: storeReceipt(ctx, store, receipt), version: receipt.version };
}

function storeReceipt(ctx: EngineContext, store: SqliteStore, receipt: JobReceipt): string {
  // Serialised once: the envelope's canonical text is the receipt's, then its digest ("receipt" sorts before "sha256"; no whitespace), #20.
  const text = canonicalJson(receipt);
  const sha256 = sha256Of(text);
  store.insertReceipt({
    jobId: receipt.job_id,
    workspaceId: receipt.workspace_id,
    version: receipt.version,
    sha256,
    document: `{"receipt":${text},"sha256":${JSON.stringify(sha256)}}`,
    createdAt: ctx.clock.now(),
  });
  return sha256;
}

function prefixed(digest: string): string {
  return digest.startsWith('sha256:') ? digest : `sha256:${digest}`;
}

/** sha256 and size of the kept log, streamed in 1 MiB reads (a missing log is no output). */
function keptOutputDigest(path: string): { sha256: string; kept_bytes: number } {
  const hash = createHash('sha256');
  let size = 0;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { sha256: `sha256:${hash.digest('hex')}`, kept_bytes: 0 };
  }
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, size);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      size += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: `sha256:${hash.digest('hex')}`, kept_bytes: size };
}
