/**
 * The receipt verb (#16): a finished job's receipt (its latest version, or
 * one asked for), optionally written to a host file; or, with verifyFile,
 * the offline check of such a file (receipts/verify-receipt.ts).
 */
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { nextAction } from '../next-action.js';
import type { JobReceipt, ReceiptEnvelope } from '../receipts/job-receipt.js';
import { verifyReceiptFile } from '../receipts/verify-receipt.js';
import { buildResult } from '../result/build-result.js';
import { quotedName } from '../result/visible-text.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage } from '../result/result-package.js';

export interface ReceiptInput {
  jobId?: string;
  version?: number;
  /** Host path to write the receipt file to (through a temporary file and a rename); an existing other file is refused unless overwrite. */
  out?: string;
  /** With out: replace a file already there. */
  overwrite?: boolean;
  /** Instead: a receipt file to verify offline. */
  verifyFile?: string;
  artifactsDir?: string;
  expectSha256?: string;
}

export async function receiptOfJob(ctx: EngineContext, input: ReceiptInput): Promise<ResultPackage> {
  if (input.verifyFile !== undefined) return verifyFile(ctx, input.verifyFile, input);
  if (input.artifactsDir !== undefined || input.expectSha256 !== undefined)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('artifactsDir')} and ${inputRef('expectSha256')} go with ${inputRef('verifyFile')}`, {
      hint: `give ${inputRef('verifyFile')} too, or leave them out to get a receipt`,
      inputsOf: 'receipt',
    });
  if (input.jobId === undefined)
    throw new EngineError('BAD_ARGUMENT', 'receipt needs a job id, or a receipt file to verify', {
      hint: `give ${inputRef('jobId')}, or ${inputRef('verifyFile')}`,
      inputsOf: 'receipt',
    });
  const jobId = validateId('job', input.jobId);
  const store = ctx.store();
  const job = store.getJob(jobId);
  if (!job)
    throw new EngineError('JOB_NOT_FOUND', `no job ${jobId}`, {
      hint: 'job ids are in provenance.job_id of run results; ls lists workspaces',
      action: nextAction('ls'),
    });
  const row = store.receiptOf(jobId, input.version);
  if (!row) {
    if (job.state !== 'finished')
      throw new EngineError('BAD_ARGUMENT', `job ${jobId} is still running: its receipt is issued when it ends`, { hint: 'ask again once it has finished' });
    throw new EngineError(
      'BAD_ARGUMENT',
      `job ${jobId} has no receipt${input.version === undefined ? ' (it finished before receipts existed)' : ` version ${input.version}`}`,
      {
        hint: input.version === undefined ? 'jobs run by this headspace get one when they end' : 'omit the version for the latest',
      },
    );
  }
  const receipt = (JSON.parse(row.document) as ReceiptEnvelope).receipt;
  let written: string | null = null;
  if (input.overwrite !== undefined && input.out === undefined)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('overwrite')} goes with ${inputRef('out')}`, {
      hint: `give ${inputRef('out')} too, or leave ${inputRef('overwrite')} out`,
      inputsOf: 'receipt',
    });
  if (input.out !== undefined) written = writeReceiptFile(resolve(input.out), row.document, input.overwrite === true);
  const findings = [
    `receipt version ${row.version}${receipt.previous_sha256 ? ` (previous ${receipt.previous_sha256})` : ''}, issued ${receipt.issued_at}`,
    `binds: status ${receipt.status}, exit ${receipt.exit_code ?? '(none)'}, command ${receipt.command_sha256}, policy ${receipt.policy_digest}, output ${receipt.output.sha256} (${receipt.output.kept_bytes} of ${receipt.output.total_bytes} bytes kept)`,
    `verification: ${(receipt.verification as { outcome?: string }).outcome ?? 'none'}; inputs: ${receipt.inputs.length}; env names: ${receipt.env.names.length === 0 ? 'none' : receipt.env.names.join(', ')}; exported artifacts: ${receipt.artifacts.length}`,
  ];
  // What changed the files besides jobs, so the inputs' digests are not read as what the job ran on (a new user's review).
  const differ = receipt.inputs.filter((i) => i.may_differ_after !== undefined).length;
  if (receipt.forked_from) findings.push(`files began as fork of workspace ${receipt.forked_from.workspace_id} at ${receipt.forked_from.checkpoint_id}`);
  if (receipt.tree_changes?.length)
    findings.push(
      `files changed besides jobs before it started: ${receipt.tree_changes.map((c) => c.change).join(', ')}${differ ? `; ${differ} input(s) may differ from what was put` : ''}`,
    );
  const declaredElsewhere = receipt.artifacts.filter((a) => a.declared_by_job !== undefined);
  if (declaredElsewhere.length)
    findings.push(
      `exported after it as the job that ran last, declared elsewhere: ${declaredElsewhere.map((a) => `${quotedName(a.name)} (${a.declared_by_job === null ? 'declared after the fact' : `declared by ${a.declared_by_job}`})`).join(', ')}`,
    );
  if (written) findings.push(`written to ${written}: it verifies offline from this file alone`);
  const provenance = provenanceFor(ctx, 'receipt', { workspace: store.getWorkspace(job.workspaceId), job });
  provenance.receipt_sha256 = row.sha256;
  return buildResult({
    outcome_summary: `receipt of job ${jobId}: ${row.sha256}`,
    status: 'success',
    key_findings: findings,
    evidence: [{ label: 'the receipt (canonical JSON: {receipt, sha256})', kind: 'fact', source: jobId, truncated: false, excerpt: row.document }],
    provenance,
  });
}

function verifyFile(ctx: EngineContext, file: string, input: ReceiptInput): ResultPackage {
  const path = resolve(file);
  const verdict = verifyReceiptFile(path, {
    ...(input.artifactsDir === undefined ? {} : { artifactsDir: resolve(input.artifactsDir) }),
    ...(input.expectSha256 === undefined ? {} : { expectSha256: input.expectSha256 }),
  });
  const receipt: JobReceipt | null = verdict.receipt;
  const failed = verdict.checks.filter((c) => !c.ok);
  const provenance = provenanceFor(ctx, 'receipt', {});
  provenance.workspace_id = receipt?.workspace_id ?? null;
  provenance.job_id = receipt?.job_id ?? null;
  return buildResult({
    outcome_summary: verdict.ok
      ? `the receipt of job ${receipt!.job_id} verifies: ${verdict.checks.length} check${verdict.checks.length === 1 ? '' : 's'} passed`
      : `the receipt in ${path} does NOT verify: ${failed[0]!.what}: ${failed[0]!.detail}`,
    status: verdict.ok ? 'success' : 'failure',
    key_findings: verdict.checks.map((c) => `${c.ok ? 'ok' : 'FAILED'} ${c.what}: ${c.detail}`),
    warnings: [
      ...(input.expectSha256 === undefined && verdict.ok
        ? ["the digest was checked against the file's own: pin the sha256 from the job's result (expect-sha256) to rule out a rewritten receipt"]
        : []),
      // A verdict that says nothing of the artifacts must say so (a new user read "verifies" as covering them).
      ...(input.artifactsDir === undefined && receipt !== null && Array.isArray(receipt.artifacts) && receipt.artifacts.length > 0
        ? [
            `the receipt binds ${receipt.artifacts.length} exported artifact${receipt.artifacts.length === 1 ? '' : 's'} (${receipt.artifacts
              .map((a) => String(a.name))
              .join(', ')}) that ${receipt.artifacts.length === 1 ? 'was' : 'were'} NOT checked: give the directory holding them (artifacts) to re-hash them`,
          ]
        : []),
    ],
    provenance,
  });
}

function writeReceiptFile(path: string, document: string, overwrite: boolean): string {
  // An existing file is someone's: replaced only when asked (a new user's receipt call replaced his source file).
  // One already holding exactly this receipt is left as it is: writing it again is no change.
  let existing: Buffer | null = null;
  try {
    existing = lstatSync(path).isFile() ? readFileSync(path) : Buffer.alloc(0);
  } catch {
    existing = null;
  }
  if (existing !== null && !overwrite && existing.toString('utf8') !== document)
    throw new EngineError('DESTINATION_EXISTS', `${path} already exists; the receipt was not written`, {
      hint: `give another ${inputRef('out')} path, or set ${inputRef('overwrite')} to replace it`,
      inputsOf: 'receipt',
    });
  if (existing !== null && existing.toString('utf8') === document) return path;
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, document, { mode: 0o644, flag: 'wx' });
    renameSync(temporary, path);
  } catch (cause) {
    rmSync(temporary, { force: true });
    throw new EngineError('BAD_PATH', `cannot write the receipt to ${path}: ${(cause as Error).message}`, { hint: 'give a writable host path', cause });
  }
  return path;
}
