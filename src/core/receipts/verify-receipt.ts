/**
 * Offline verification of a receipt file (#16): needs no state store and no
 * workspace, only the file and, for artifacts, a directory holding them.
 *
 * What it proves: the receipt's canonical bytes hash to the sha256 the file
 * carries (an edited field without a recomputed digest fails), the file is
 * in canonical form, and each exported artifact found in the directory has
 * the size and sha256 the receipt binds (a tampered artifact fails). What
 * it cannot prove by itself: that nobody rewrote the receipt AND its digest
 * together — pin the digest you got from the job's result
 * (provenance.receipt_sha256) with expectSha256 for that.
 *
 * Artifacts are looked for in the directory by their name (the workspace
 * path, e.g. out/report.json), then by the base name of where they were
 * exported; one found in neither place is reported missing (a failure).
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readRange } from '../files/read-range.js';
import { basename, join } from 'node:path';
import { EngineError, inputRef } from '../errors.js';
import { canonicalJson } from '../canonical-json.js';
import { normalizeWorkspacePath } from '../paths.js';
import { normalizeSha256 } from '../verification/verification.js';
import { JOB_RECEIPT_SCHEMA, receiptDigest, type JobReceipt, type ReceiptEnvelope } from './job-receipt.js';

/** A receipt file is small: past this it is not one. */
const RECEIPT_MAX_BYTES = 16 * 1024 * 1024;

export interface ReceiptCheck {
  what: string;
  ok: boolean;
  detail: string;
}

export interface ReceiptVerification {
  receipt: JobReceipt | null;
  checks: ReceiptCheck[];
  ok: boolean;
}

export function verifyReceiptFile(file: string, options: { artifactsDir?: string; expectSha256?: string } = {}): ReceiptVerification {
  const text = readBounded(file, RECEIPT_MAX_BYTES, `receipt file ${file}`).toString('utf8');
  let envelope: ReceiptEnvelope;
  try {
    envelope = JSON.parse(text) as ReceiptEnvelope;
  } catch {
    return fail('the file is not JSON');
  }
  if (
    envelope === null ||
    typeof envelope !== 'object' ||
    typeof envelope.sha256 !== 'string' ||
    envelope.receipt === null ||
    typeof envelope.receipt !== 'object'
  )
    return fail('the file is not a receipt envelope {receipt, sha256}');
  const receipt = envelope.receipt;
  if (receipt.schema !== JOB_RECEIPT_SCHEMA) return fail(`the receipt's schema is not ${JOB_RECEIPT_SCHEMA}`);
  const checks: ReceiptCheck[] = [];
  let computed: string;
  try {
    computed = receiptDigest(receipt);
  } catch {
    return fail('the receipt holds a value canonical JSON cannot (a non-finite number)');
  }
  checks.push({
    what: 'receipt digest',
    ok: computed === envelope.sha256,
    detail:
      computed === envelope.sha256
        ? `the receipt hashes to ${computed}`
        : `the receipt hashes to ${computed}, but the file says ${envelope.sha256}: it was altered`,
  });
  const canonical = text.replace(/\n$/, '') === canonicalJson(envelope);
  checks.push({
    what: 'canonical form',
    ok: canonical,
    detail: canonical ? 'the file is in canonical form' : 'the file is not in canonical form (keys out of order or extra whitespace)',
  });
  if (options.expectSha256 !== undefined) {
    const expected = normalizeSha256(options.expectSha256);
    checks.push({
      what: 'expected digest',
      ok: computed === expected,
      detail:
        computed === expected
          ? 'the receipt is the one pinned'
          : receipt.previous_sha256 === expected
            ? // An export adds a version that names the one before it; the name alone proves nothing (a forger can write it).
              `the receipt hashes to ${computed}, not the pinned ${expected}: it is version ${String(receipt.version)}, made after the pinned one (which its previous_sha256 names); verify version ${Number(receipt.version) - 1}'s own file (the receipt verb writes any version), or pin this version's digest`
            : `the receipt hashes to ${computed}, not the pinned ${expected}`,
    });
  }
  if (options.artifactsDir !== undefined) {
    for (const artifact of Array.isArray(receipt.artifacts) ? receipt.artifacts : []) checks.push(checkArtifact(options.artifactsDir, artifact));
  }
  return { receipt, checks, ok: checks.every((c) => c.ok) };

  function fail(detail: string): ReceiptVerification {
    return { receipt: null, checks: [{ what: 'receipt', ok: false, detail }], ok: false };
  }
}

function checkArtifact(dir: string, artifact: JobReceipt['artifacts'][number]): ReceiptCheck {
  const what = `artifact ${String(artifact.name)}`;
  // A receipt file is input from anywhere: a name that is not a workspace path (`..`, absolute) would read outside the directory.
  try {
    if (typeof artifact.exported_to !== 'string' || normalizeWorkspacePath(artifact.name) !== artifact.name) throw new Error('not canonical');
  } catch {
    return { what, ok: false, detail: 'its name is not a workspace path, so it is not looked for' };
  }
  const candidates = [join(dir, artifact.name), join(dir, basename(artifact.exported_to))];
  for (const path of candidates) {
    let bytes: { sha256: string; size: number } | null;
    try {
      bytes = hashFile(path);
    } catch {
      continue;
    }
    if (bytes === null) continue;
    const ok = bytes.sha256 === artifact.sha256 && bytes.size === artifact.size_bytes;
    return {
      what,
      ok,
      detail: ok
        ? `${path}: ${bytes.size} bytes, ${bytes.sha256} as bound`
        : `${path}: ${bytes.size} bytes, ${bytes.sha256}; the receipt binds ${artifact.size_bytes} bytes, ${artifact.sha256}: it was altered`,
    };
  }
  return { what, ok: false, detail: `not found in ${dir} (looked for ${candidates.map((c) => basename(c)).join(' and ')})` };
}

/** A regular file's sha256 and size; null when the path is not a regular file. */
function hashFile(path: string): { sha256: string; size: number } | null {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(1 << 20);
    let size = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, size);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      size += n;
    }
    return { sha256: `sha256:${hash.digest('hex')}`, size };
  } finally {
    closeSync(fd);
  }
}

function readBounded(path: string, max: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new EngineError('FILE_NOT_FOUND', `${what} cannot be read`, {
      hint: `check the path; the receipt verb writes one (${inputRef('out')})`,
      inputsOf: 'receipt',
    });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      throw new EngineError('NOT_A_REGULAR_FILE', `${what} is not a regular file`, {
        hint: `give the file the receipt verb wrote (${inputRef('out')})`,
        inputsOf: 'receipt',
      });
    if (info.size > max)
      throw new EngineError('BAD_ARGUMENT', `${what} is ${info.size} bytes, more than a receipt holds (${max})`, {
        hint: `give the file the receipt verb wrote (${inputRef('out')})`,
        inputsOf: 'receipt',
      });
    return readRange(fd, 0, info.size);
  } finally {
    closeSync(fd);
  }
}
