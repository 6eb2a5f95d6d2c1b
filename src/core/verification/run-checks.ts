/**
 * Runs a job's verification checks after its process has ended and before
 * its terminal record is written (#16), so the status recorded — and the
 * terminal event that carries it — already includes the verdict.
 *
 * - A check command runs through the provider like a job: the same
 *   workspace, working directory, environment and policy, under the job's
 *   own id (so a stop of the job reaches its checks too). Its output is
 *   hashed whole and only a tail kept for the result; it never enters the
 *   job's log, so the job's output digest is the job's alone.
 * - Time: all checks of a job share one allowance equal to the workspace's
 *   per-job wall clock, separate from the job's own; each command gets what
 *   remains of it. A command that runs past it is killed and is a verifier
 *   FAULT (the check could not answer), never the job's failure.
 * - expect-file reads through the provider (regular files only: a link is
 *   refused, never followed) and hashes the bytes, at most the workspace's
 *   storage budget of them and within the checks' time: a file reading as
 *   more (a sparse file, whose apparent size no budget bounds) or a read
 *   past the allowance is a verifier FAULT, never hours of hashing zeros.
 * - expect-output searches the job's KEPT output (at most its output
 *   budget, and at most the first 64 MiB) with RE2 in linear time; when
 *   bytes were dropped and the pattern was not found in what was kept, the
 *   verdict is a fault: the unkept part was never searched.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { Clock } from '../clock.js';
import { toEngineError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import type { JobOutcome, Provider } from '../provider.js';
import { shellJoin } from '../result/markdown-sections.js';
import { compilePattern, type CheckResult, type PlannedCheck } from './verification.js';

/** Bytes of a check command's output kept for its excerpt (the tail); the digest covers all of it. */
const CHECK_TAIL_BYTES = 2048;
/** expect-output searches at most this much of the kept output. */
const SEARCH_MAX_BYTES = 64 * 1024 * 1024;

export interface CheckContext {
  provider: Provider;
  clock: Clock;
  workspaceId: string;
  jobId: string;
  policy: Policy;
  cwd: string | undefined;
  env: Record<string, string>;
  /** The job's kept output. */
  logPath: string;
  /** Bytes the job printed, and bytes kept: more printed than kept means truncated. */
  outputBytes: number;
  storedBytes: number;
  /** The caller's abort (CLI interrupt, MCP cancellation): ends the running check as cancelled. */
  signal: AbortSignal | undefined;
}

export async function runChecks(ctx: CheckContext, checks: readonly PlannedCheck[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const deadline = ctx.clock.now() + ctx.policy.budget.wallClockSeconds * 1000;
  for (const check of checks) {
    if (ctx.signal?.aborted) {
      results.push({ kind: check.kind, check: describeCheck(check), outcome: 'cancelled', detail: 'not run: the job was cancelled', evidence_sha256: null });
      continue;
    }
    switch (check.kind) {
      case 'expect-output':
        results.push(expectOutput(ctx, check.pattern));
        break;
      case 'expect-file':
        results.push(await expectFile(ctx, check.path, check.sha256, deadline));
        break;
      case 'verify':
        results.push(await verifyCommand(ctx, check.argv, deadline));
        break;
    }
  }
  return results;
}

/** The checks a job that did not succeed never reaches. */
export function skippedChecks(checks: readonly PlannedCheck[], jobStatus: string): CheckResult[] {
  return checks.map((check) => ({
    kind: check.kind,
    check: describeCheck(check),
    outcome: 'skipped' as const,
    detail: `not run: the job itself ended ${jobStatus}`,
    evidence_sha256: null,
  }));
}

export function describeCheck(check: PlannedCheck): string {
  switch (check.kind) {
    case 'verify':
      return shellJoin(check.argv);
    case 'expect-file':
      return check.sha256 === null ? check.path : `${check.path}=${check.sha256}`;
    case 'expect-output':
      return check.pattern;
  }
}

function expectOutput(ctx: CheckContext, pattern: string): CheckResult {
  const base = { kind: 'expect-output' as const, check: pattern };
  const kept = readHead(ctx.logPath, SEARCH_MAX_BYTES);
  const digest = `sha256:${createHash('sha256').update(kept).digest('hex')}`;
  const text = kept.toString('utf8');
  const matcher = compilePattern(pattern).matcher(text);
  if (matcher.find()) {
    const start = text.lastIndexOf('\n', matcher.start() - 1) + 1;
    const endAt = text.indexOf('\n', matcher.end());
    const line = text.slice(start, endAt < 0 ? text.length : endAt);
    return { ...base, outcome: 'passed', detail: 'found in the job output', evidence_sha256: digest, excerpt: line.slice(0, 400) };
  }
  const unsearched = ctx.outputBytes > ctx.storedBytes || ctx.storedBytes > kept.length;
  if (unsearched)
    return {
      ...base,
      outcome: 'fault',
      detail: `not found in the ${kept.length} bytes searched, but the job printed ${ctx.outputBytes}: the rest was not kept, so it was never searched`,
      evidence_sha256: digest,
    };
  return { ...base, outcome: 'failed', detail: `not found anywhere in the job output (${kept.length} bytes)`, evidence_sha256: digest };
}

function readHead(path: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(1 << 20, max - total));
      if (buffer.length === 0) break;
      const n = readSync(fd, buffer, 0, buffer.length, total);
      if (n === 0) break;
      chunks.push(buffer.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

async function expectFile(ctx: CheckContext, path: string, sha256: string | null, deadline: number): Promise<CheckResult> {
  const base = { kind: 'expect-file' as const, check: sha256 === null ? path : `${path}=${sha256}` };
  let stream;
  try {
    stream = await ctx.provider.read(ctx.workspaceId, path);
  } catch (error) {
    const engineError = toEngineError(error);
    if (engineError.code === 'FILE_NOT_FOUND') return { ...base, outcome: 'failed', detail: `${path} does not exist`, evidence_sha256: null };
    if (engineError.code === 'NOT_A_REGULAR_FILE' || engineError.code === 'BAD_PATH')
      return { ...base, outcome: 'failed', detail: `${path} is not a regular file (${engineError.message})`, evidence_sha256: null };
    return { ...base, outcome: 'fault', detail: `${path} could not be read: ${engineError.message}`, evidence_sha256: null };
  }
  const hash = createHash('sha256');
  let size = 0;
  const maxBytes = ctx.policy.budget.storageBytes;
  const unbounded = (why: string): CheckResult => ({ ...base, outcome: 'fault', detail: `${path} ${why}; its digest was not taken`, evidence_sha256: null });
  try {
    if (stream.size > maxBytes)
      return unbounded(`reads as ${stream.size} bytes, more than the workspace's storage budget of ${maxBytes} (a sparse file counts whole)`);
    for await (const chunk of stream.chunks) {
      size += chunk.length;
      if (size > maxBytes) return unbounded(`read past the workspace's storage budget of ${maxBytes} bytes (it grew while read)`);
      if (ctx.clock.now() > deadline) return unbounded(`was still being read when the checks' time allowance ran out (${size} bytes read)`);
      hash.update(chunk);
    }
  } catch (error) {
    return { ...base, outcome: 'fault', detail: `${path} could not be read whole: ${toEngineError(error).message}`, evidence_sha256: null };
  } finally {
    await stream.close();
  }
  const digest = `sha256:${hash.digest('hex')}`;
  if (sha256 !== null && digest !== sha256)
    return { ...base, outcome: 'failed', detail: `${path} has sha256 ${digest}, not the expected ${sha256}`, evidence_sha256: digest };
  return { ...base, outcome: 'passed', detail: `${path} exists (${size} bytes${sha256 === null ? '' : ', digest as expected'})`, evidence_sha256: digest };
}

async function verifyCommand(ctx: CheckContext, argv: string[], deadline: number): Promise<CheckResult> {
  const base = { kind: 'verify' as const, check: shellJoin(argv) };
  const remaining = deadline - ctx.clock.now();
  if (remaining <= 0)
    return {
      ...base,
      outcome: 'fault',
      detail: `not run: the checks' time allowance (${ctx.policy.budget.wallClockSeconds} s, the workspace's wall clock) was used up`,
      evidence_sha256: null,
    };
  const controller = new AbortController();
  let timedOut = false;
  const cancelTimer = ctx.clock.setTimer(remaining, () => {
    timedOut = true;
    controller.abort();
  });
  const onCaller = () => controller.abort();
  if (ctx.signal?.aborted) controller.abort();
  ctx.signal?.addEventListener('abort', onCaller, { once: true });
  const hash = createHash('sha256');
  let tail = Buffer.alloc(0);
  let outcome: JobOutcome;
  try {
    outcome = await ctx.provider.run({
      workspaceId: ctx.workspaceId,
      jobId: ctx.jobId,
      argv,
      env: ctx.env,
      ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
      policy: ctx.policy,
      onOutput: (_stream, chunk) => {
        hash.update(chunk);
        tail = Buffer.concat([tail, chunk]);
        if (tail.length > CHECK_TAIL_BYTES * 2) tail = tail.subarray(tail.length - CHECK_TAIL_BYTES);
      },
      signal: controller.signal,
    });
  } catch (error) {
    return { ...base, outcome: 'fault', detail: `the check could not be run: ${toEngineError(error).message}`, evidence_sha256: null };
  } finally {
    cancelTimer();
    ctx.signal?.removeEventListener('abort', onCaller);
  }
  const evidence = { evidence_sha256: `sha256:${hash.digest('hex')}`, excerpt: tail.subarray(Math.max(0, tail.length - CHECK_TAIL_BYTES)).toString('utf8') };
  if (outcome.stopped || (controller.signal.aborted && !timedOut)) return { ...base, outcome: 'cancelled', detail: 'cancelled while it ran', ...evidence };
  if (timedOut)
    return {
      ...base,
      outcome: 'fault',
      detail: `ran past the checks' time allowance (${ctx.policy.budget.wallClockSeconds} s, the workspace's wall clock) and was killed`,
      ...evidence,
    };
  if (outcome.oomKilled) return { ...base, outcome: 'fault', detail: 'killed by the kernel for exceeding the memory budget', ...evidence };
  if (outcome.exitCode === null) return { ...base, outcome: 'fault', detail: `killed by ${outcome.signal ?? 'a signal'}`, ...evidence };
  const code = outcome.exitCode;
  if (code === 0) return { ...base, outcome: 'passed', detail: 'exited 0', exit_code: 0, ...evidence };
  if (code === 127) return { ...base, outcome: 'fault', detail: 'the check command was not found (exit 127)', exit_code: code, ...evidence };
  if (code === 126) return { ...base, outcome: 'fault', detail: 'the check command is not executable (exit 126)', exit_code: code, ...evidence };
  return { ...base, outcome: 'failed', detail: `exited ${code}`, exit_code: code, ...evidence };
}
