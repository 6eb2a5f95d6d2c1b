import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { readRange } from '../files/read-range.js';
import { fullOutputOf } from '../next-action.js';
import type { EngineContext } from '../context.js';
import { findingLines, parseFindings } from './findings/index.js';
import type { Evidence, KeyFinding } from '../result/result-package.js';
import { selectExcerpt } from './select-excerpt.js';
import type { JobRecord } from '../store/sqlite-store.js';

/** Default bytes of captured output chosen for a result; the markdown bound may shrink it further. */
export const EXCERPT_BUDGET_BYTES = 5000;

export function readJobLog(ctx: EngineContext, jobId: string): Buffer | null {
  try {
    return readFileSync(ctx.logPath(jobId));
  } catch {
    return null;
  }
}

/** Logs up to this size are scanned whole for the excerpt. */
export const EXCERPT_SCAN_BYTES = 64 * 1024 * 1024;
const SCAN_HEAD_BYTES = 16 * 1024 * 1024;

/**
 * The log as the excerpt selector sees it, in bounded memory: whole when it
 * is at most EXCERPT_SCAN_BYTES, otherwise its first 16 MiB and last 48 MiB
 * with a line saying how much of the middle was not scanned (a job with a
 * large output budget must not make the engine hold gigabytes).
 */
export function readLogForExcerpt(ctx: EngineContext, job: JobRecord): Buffer | null {
  let fd: number;
  try {
    fd = openSync(ctx.logPath(job.id), 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const read = (position: number, length: number) => readRange(fd, position, length);
    if (size <= EXCERPT_SCAN_BYTES) return read(0, size);
    const tailBytes = EXCERPT_SCAN_BYTES - SCAN_HEAD_BYTES;
    const skipped = size - SCAN_HEAD_BYTES - tailBytes;
    const note = Buffer.from(
      `\n… [${skipped} bytes in the middle of this ${size}-byte log were not scanned for the excerpt; search them with a logs grep of job ${job.id}] …\n`,
    );
    return Buffer.concat([read(0, SCAN_HEAD_BYTES), note, read(size - tailBytes, tailBytes)]);
  } finally {
    closeSync(fd);
  }
}

/** Most failing tests or diagnostics a parsed finding lists; the rest are counted. */
export const FINDING_ITEMS = 10;

export interface JobOutputView {
  /** The captured output as evidence; empty when the job printed nothing. */
  evidence: Evidence[];
  /** Facts lifted from the output (failing tests, diagnostics, the last exception), each with its markdown text. */
  findings: KeyFinding[];
}

/**
 * The job's output as an agent should meet it, from one bounded read of the
 * log: the facts recognised in it (findings/, #13) and an excerpt chosen for
 * an agent. A parsed finding that lists only the first items says how to get
 * the rest.
 */
export function jobOutputView(ctx: EngineContext, job: JobRecord, budgetBytes = EXCERPT_BUDGET_BYTES, kept: Buffer | null = null): JobOutputView {
  if (job.outputBytes === 0) return { evidence: [], findings: [] };
  // `kept`: the log's whole content as the run that wrote it still holds it (output-sink.ts kept()), the same bytes a read would give.
  const log = kept ?? readLogForExcerpt(ctx, job);
  const findings: KeyFinding[] =
    log === null ? [] : parseFindings(log.toString('utf8'), { maxItems: FINDING_ITEMS }).map((f) => ({ ...f, text: findingLines([f]).join('\n') }));
  if (findings.some((f) => typeof f !== 'string' && typeof f.more === 'number' && f.more > 0))
    findings.push("every line of the output: the evidence's retrieval");
  return { evidence: [outputEvidence(job, log, budgetBytes)], findings };
}

/** The job's captured output as one evidence excerpt, chosen for an agent. */
export function jobOutputEvidence(ctx: EngineContext, job: JobRecord, budgetBytes = EXCERPT_BUDGET_BYTES): Evidence {
  return outputEvidence(job, readLogForExcerpt(ctx, job), budgetBytes);
}

function outputEvidence(job: JobRecord, log: Buffer | null, budgetBytes: number): Evidence {
  if (log === null) {
    return {
      label: 'captured output',
      kind: 'fact',
      source: job.id,
      truncated: false,
      // A running job whose supervisor has not opened its log yet has none so far; only an ended job's log was removed.
      excerpt: job.state === 'running' ? '(no output yet)' : '(the captured output is no longer kept)',
      total_bytes: job.outputBytes,
    };
  }
  // No marker from the selector: a face writes it, naming the retrieval in its own words (#11).
  const picked = selectExcerpt(log, { budgetBytes });
  const clippedAtBudget = job.outputBytes > job.storedBytes;
  return {
    label: 'captured output',
    kind: 'excerpt',
    source: job.id,
    truncated: picked.truncated || clippedAtBudget,
    excerpt: picked.excerpt === '' ? '(no output)' : picked.excerpt,
    total_bytes: job.outputBytes,
    total_lines: picked.total_lines,
    omitted_lines: picked.omitted_lines,
    retrieval_action: fullOutputOf(job.id),
  };
}
