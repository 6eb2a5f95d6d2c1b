/**
 * prepare's receipt (#17): what a workspace was prepared from — the
 * manifest's file and digest, each input's destination and digest, and
 * the verify section's verdict (each check's outcome and evidence digest) —
 * kept as one JSON file per workspace under HEADSPACE_HOME/receipts/. A
 * later prepare compares against it (nothing changed: nothing to do; a
 * change: refused, naming it, unless recreate), and status finds a
 * workspace from the manifests in the caller's directory through it. Env
 * values, and env files' digests, are never recorded.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VerificationBlock } from '../verification/verification.js';

export const RECEIPT_SCHEMA = 'headspace.receipt/v1';

export interface ReceiptInput {
  input: string;
  from: string;
  to: string;
  sha256: string;
  size_bytes: number;
}

export interface ReceiptRepository {
  input: string;
  source: string;
  ref: string;
  commit: string;
  to: string;
}

export interface Receipt {
  schema: typeof RECEIPT_SCHEMA;
  workspace_id: string;
  manifest_file: string;
  manifest_dir: string;
  manifest_sha256: string;
  inputs: ReceiptInput[];
  /** Absent in a receipt written before git inputs. */
  repositories?: ReceiptRepository[];
  env_names: string[];
  setup_jobs: string[];
  prepared_at: string;
  /** The manifest's digest without its verify section, and the section's own (absent in a receipt written before verify): a change to verify alone re-judges the checks. */
  manifest_base_sha256?: string;
  verify_sha256?: string;
  /** The verify section's verdict at the last judging, each check's outcome and evidence digest (no excerpt), and the job it was judged after. */
  verification?: VerificationBlock;
  verify_job?: string;
  verified_at?: string;
}

function receiptsDir(home: string): string {
  return join(home, 'receipts');
}

export function readReceipt(home: string, workspaceId: string): Receipt | null {
  try {
    const parsed = JSON.parse(readFileSync(join(receiptsDir(home), `${workspaceId}.json`), 'utf8')) as Receipt;
    return parsed.schema === RECEIPT_SCHEMA && parsed.workspace_id === workspaceId ? parsed : null;
  } catch {
    return null;
  }
}

/** Written through a temporary file and a rename: a receipt is whole or absent. */
export function writeReceipt(home: string, receipt: Receipt): void {
  const dir = receiptsDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const final = join(dir, `${receipt.workspace_id}.json`);
  const temporary = `${final}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(receipt, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, final);
}

export function removeReceipt(home: string, workspaceId: string): void {
  rmSync(join(receiptsDir(home), `${workspaceId}.json`), { force: true });
}

/** Every receipt kept (a file that does not read as one is skipped). */
export function listReceipts(home: string): Receipt[] {
  let names: string[];
  try {
    names = readdirSync(receiptsDir(home)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((n) => readReceipt(home, n.slice(0, -'.json'.length))).filter((r): r is Receipt => r !== null);
}

/** What differs between a receipt and what prepare would record now, one line each; empty when nothing changed. */
export function receiptChanges(
  receipt: Receipt,
  now: { manifest_file: string; manifest_sha256: string; manifest_base_sha256?: string; inputs: ReceiptInput[]; repositories?: ReceiptRepository[] },
  fastForward: (repo: ReceiptRepository, older: string) => boolean = () => false,
): string[] {
  const changes: string[] = [];
  if (receipt.manifest_file !== now.manifest_file)
    changes.push(`the workspace was prepared from another manifest (${receipt.manifest_file}), not ${now.manifest_file}`);
  // A change to the verify section alone is not one: prepare re-judges the checks instead (verbs/plan.ts).
  const onlyVerify = receipt.manifest_base_sha256 !== undefined && receipt.manifest_base_sha256 === now.manifest_base_sha256;
  if (receipt.manifest_sha256 !== now.manifest_sha256 && !onlyVerify) changes.push(`the manifest changed: ${receipt.manifest_sha256} → ${now.manifest_sha256}`);
  for (const input of now.inputs) {
    const before = receipt.inputs.find((r) => r.to === input.to);
    if (!before) changes.push(`${input.input} (${input.from} → ${input.to}) is new`);
    else if (before.sha256 !== input.sha256) changes.push(`${input.input} (${input.from}) changed: ${before.sha256} → ${input.sha256}`);
  }
  for (const repo of now.repositories ?? []) {
    const before = (receipt.repositories ?? []).find((r) => r.to === repo.to);
    if (!before) changes.push(`${repo.input} (${repo.source}@${repo.ref} → ${repo.to}) is new`);
    else if (before.commit !== repo.commit)
      changes.push(
        `${repo.input} (${repo.source}@${repo.ref}) moved: ${before.commit} → ${repo.commit}, ${fastForward(repo, before.commit) ? 'a fast-forward' : 'NOT a fast-forward (history was rewritten)'}`,
      );
  }
  for (const before of receipt.repositories ?? []) {
    if (!(now.repositories ?? []).some((r) => r.to === before.to)) changes.push(`${before.input} (${before.source} → ${before.to}) is gone from the manifest`);
  }
  for (const before of receipt.inputs) {
    if (!now.inputs.some((i) => i.to === before.to)) changes.push(`${before.input} (${before.from} → ${before.to}) is gone from the manifest`);
  }
  return changes;
}
