import type { EngineContext } from '../context.js';
import { withBytesSoFar } from '../run/job-result.js';
import { fullOutputOf, nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor, usageOfJob } from '../result/package-parts.js';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { compileGrepPattern } from './grep-pattern.js';
import { jobOutputEvidence } from '../output/job-evidence.js';

export interface LogsInput {
  jobId: string;
  head?: number;
  tail?: number;
  /** A regular expression in RE2 syntax (no backreferences or lookaround), matched against the first GREP_LINE_MAX_CHARS characters of each line in linear time. */
  grep?: string;
  /** 1-based inclusive line range. */
  lines?: { from: number; to: number };
  /** At most this many lines are returned (default 200). */
  maxLines?: number;
}

/**
 * A bounded, selective view of one job's output, so an agent can drill into
 * a log without loading it: each line a selector returns carries its 1-based
 * number. Without a selector it returns the agent-oriented excerpt, unnumbered
 * (the one a run's result carries; the docs say so).
 */
export async function readLogs(ctx: EngineContext, input: LogsInput): Promise<ResultPackage> {
  validateId('job', input.jobId);
  const store = ctx.store();
  const recorded = store.getJob(input.jobId);
  if (!recorded)
    throw new EngineError('JOB_NOT_FOUND', `no job ${input.jobId}`, {
      hint: "inspect the job's workspace for its jobs, or list the workspaces",
      action: nextAction('ls'),
    });
  // A running job's record counts its bytes only when it ends: read what its log holds so far (#12 item 16).
  const running = recorded.state === 'running';
  const job = withBytesSoFar(recorded, ctx.logPath(recorded.id));
  const ws = store.getWorkspace(job.workspaceId)!;
  if (ws.state === 'destroyed')
    throw new EngineError('WORKSPACE_DESTROYED', `job ${job.id} belonged to destroyed workspace ${ws.id}; its output is gone`, {
      hint: 'a destroyed workspace keeps only its record (ls with all lists it); export what you need before destroy next time',
    });
  // grep may narrow to a range of lines: that is how a reader pages through the matches of a long log (#21).
  const selectors = [input.head, input.tail, input.grep === undefined ? input.lines : input.grep].filter((s) => s !== undefined).length;
  if (selectors > 1)
    throw new EngineError(
      'BAD_ARGUMENT',
      `choose one of ${inputRef('head')}, ${inputRef('tail')}, ${inputRef('grep')} or ${inputRef('lines')} (${inputRef('grep')} may be given a range of ${inputRef('lines')} to search)`,
      { hint: 'run logs once per view', inputsOf: 'logs' },
    );
  const maxLines = input.maxLines ?? 200;
  for (const [name, value] of [
    ['head', input.head],
    ['tail', input.tail],
    ['maxLines', maxLines],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > 1_000_000))
      throw new EngineError('BAD_ARGUMENT', `${inputRef(name)} takes a whole number from 1 to 1000000`, {
        hint: `for example ${inputRef(name, 50)}`,
        inputsOf: 'logs',
      });
  }
  if (input.lines && (!Number.isInteger(input.lines.from) || !Number.isInteger(input.lines.to) || input.lines.from < 1 || input.lines.to < input.lines.from)) {
    // The CLI refuses such a --lines A:B in its own syntax before this (verb-adapters.ts parseRange).
    throw new EngineError('BAD_ARGUMENT', `${inputRef('lines')} takes a range from A to B with 1 ≤ A ≤ B`, {
      hint: `for example ${inputRef('lines')} from 120 to 160`,
      inputsOf: 'logs',
    });
  }
  const pattern = input.grep === undefined ? undefined : compileGrepPattern(input.grep);
  // No policy summary here: reading a log should not cost a provider probe.
  const provenance = provenanceFor(ctx, 'logs', { workspace: ws, job });
  const base = {
    warnings:
      job.storedBytes < job.outputBytes
        ? [`only ${job.storedBytes} of ${job.outputBytes} bytes were kept (output budget): the first, and past a line marking the gap, the last`]
        : [],
    resource_usage: usageOfJob(job),
    provenance,
  };
  if (selectors === 0) {
    return buildResult({
      ...base,
      outcome_summary: `job ${job.id}${running ? ' (still running)' : ''}: selected lines of ${job.outputBytes} bytes of output${running ? ' so far' : ''}`,
      status: 'success',
      evidence: [jobOutputEvidence(ctx, job)],
    });
  }
  // Streamed line by line: a log may be far larger than what fits in one string.
  const { picked, total, matched, view } = await selectLines(ctx.logPath(job.id), input, pattern, maxLines);
  const shown = picked.slice(0, maxLines);
  // A tail longer than maxLines shows its end; the page before it is one call away.
  const first = shown[0]?.[0];
  const windowStart = input.tail === undefined ? undefined : Math.max(1, total - input.tail + 1);
  const earlier =
    windowStart !== undefined && first !== undefined && first > windowStart
      ? [
          attentionItem(
            'next-step',
            `${first - windowStart} earlier line(s) of the last ${input.tail} were not shown: the page before is lines ${Math.max(windowStart, first - maxLines)} to ${first - 1}`,
            { job_id: job.id },
          ),
        ]
      : [];
  const width = String(shown[shown.length - 1]?.[0] ?? 1).length;
  const excerpt = shown.map(([n, l]) => `${String(n).padStart(width)}: ${l.length > 1000 ? `${l.slice(0, 1000)}…[+${l.length - 1000} chars]` : l}`).join('\n');
  return buildResult({
    ...base,
    outcome_summary: `job ${job.id}${running ? ' (still running)' : ''}: ${view}, ${shown.length} of ${matched} line(s) shown (log has ${total} lines${running ? ` and ${job.outputBytes} bytes so far` : ''})`,
    status: 'success',
    key_findings: [`${matched} line(s) selected of ${total}`],
    evidence: [
      {
        label: view,
        kind: 'excerpt',
        source: job.id,
        truncated: shown.length < matched,
        excerpt: excerpt === '' ? '(no lines)' : excerpt,
        total_bytes: job.outputBytes,
        total_lines: total,
        omitted_lines: total - shown.length,
        retrieval_action: fullOutputOf(job.id),
      },
    ],
    attention: earlier,
  });
}

/**
 * One pass over the log, keeping only what the view needs: the first lines
 * for --head and --lines, a ring of the last N for --tail, matches (at most
 * maxLines kept, all counted) for --grep.
 */
async function selectLines(
  path: string,
  input: LogsInput,
  pattern: ((line: string) => boolean) | undefined,
  maxLines: number,
): Promise<{ picked: Array<[number, string]>; total: number; matched: number; view: string }> {
  const picked: Array<[number, string]> = [];
  let total = 0;
  let matched = 0;
  const ringSize = Math.min(input.tail ?? 1, maxLines);
  const ring: Array<[number, string]> = [];
  const lines = createInterface({ input: createReadStream(path).on('error', () => undefined), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      total++;
      if (input.head !== undefined) {
        if (total <= input.head) picked.push([total, line]);
      } else if (input.tail !== undefined) {
        // A ring of the lines that can be shown (the window's last maxLines), one slot written per line: an array
        // shifted per line was quadratic (a 100,000-line tail of a 150,000-line log took 10 s).
        ring[(total - 1) % ringSize] = [total, line];
      } else if (input.lines && !pattern) {
        if (total >= input.lines.from && total <= input.lines.to) picked.push([total, line]);
      } else if ((!input.lines || (total >= input.lines.from && total <= input.lines.to)) && pattern?.(line)) {
        matched++;
        if (picked.length < maxLines) picked.push([total, line]);
      }
    }
  } catch {
    // A missing log reads as empty.
  }
  if (input.head !== undefined) return { picked, total, matched: picked.length, view: `first ${input.head} line(s)` };
  if (input.tail !== undefined) {
    // The end of the log, in order: the ring's oldest slot is the one after the last written.
    const start = total % ringSize;
    const last = total < ringSize ? ring : [...ring.slice(start), ...ring.slice(0, start)];
    return { picked: last, total, matched: Math.min(input.tail, total), view: `last ${input.tail} line(s)` };
  }
  if (input.lines && !pattern) return { picked, total, matched: picked.length, view: describeLineRange(input.lines, total) };
  const range = input.lines ? describeLineRange(input.lines, total) : 'the whole log';
  return { picked, total, matched, view: `lines matching /${input.grep}/ in ${range}` };
}

/**
 * A range in words, bounded by the log's real length: callers (the dashboard
 * pages searches with `to` = the largest line number taken) pass an open end as
 * a huge number, and that internal sentinel must never reach the reader as
 * "lines 1:2147483647".
 */
export function describeLineRange(lines: { from: number; to: number }, total: number): string {
  if (lines.to < total) return `lines ${lines.from}:${lines.to}`;
  return lines.from <= 1 ? 'the whole log' : `lines ${lines.from} to the end`;
}
