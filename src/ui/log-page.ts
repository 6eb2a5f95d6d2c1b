/**
 * One page of a job's log for the dashboard, read through the `logs` verb:
 * a range of lines, or the matches of a search (RE2, linear time, in the
 * engine) from a line on. A page is bounded, so the browser never holds the
 * whole log; `next` is where the following page starts, or null at the end.
 */
import type { Engine } from '../api/index.js';

/** Lines per page unless the page asks for fewer; the ceiling a page may ask for. */
export const LOG_PAGE_LINES = 200;
export const LOG_PAGE_MAX = 1000;
/** The last line number the logs verb takes (lineNumberField). */
const LAST_LINE = 2 ** 31 - 1;

export interface LogPageRequest {
  jobId: string;
  /** First line to read or search from, 1-based. */
  from: number;
  count: number;
  /** A search (RE2 syntax); absent or empty: plain lines. */
  grep?: string;
}

export interface LogPage {
  lines: Array<{ n: number; text: string }>;
  /** Lines the log has (so far, for a running job). */
  total: number;
  /** Where the next page starts, or null when this one reaches the end. */
  next: number | null;
  summary: string;
}

export async function readLogPage(engine: Engine, request: LogPageRequest): Promise<LogPage> {
  const count = Math.min(Math.max(1, Math.trunc(request.count)), LOG_PAGE_MAX);
  const from = Math.min(Math.max(1, Math.trunc(request.from)), LAST_LINE);
  const grep = request.grep === '' ? undefined : request.grep;
  const pkg =
    grep === undefined
      ? await engine.logs({ jobId: request.jobId, lines: { from, to: Math.min(LAST_LINE, from + count - 1) }, maxLines: count })
      : await engine.logs({ jobId: request.jobId, grep, lines: { from, to: LAST_LINE }, maxLines: count });
  const evidence = pkg.evidence[0];
  const lines = parseNumberedExcerpt(evidence?.excerpt ?? '');
  const total = evidence?.total_lines ?? 0;
  const last = lines[lines.length - 1]?.n;
  // A search is cut when more lines matched than the page holds; a range, when the log goes on past it.
  const more = grep !== undefined ? evidence?.truncated === true : from + count - 1 < total;
  return { lines, total, next: more ? (grep !== undefined ? (last ?? from) + 1 : from + count) : null, summary: pkg.outcome_summary };
}

/** The excerpt is `N: text` per line (numbers right-aligned); '(no lines)' when empty. */
export function parseNumberedExcerpt(excerpt: string): Array<{ n: number; text: string }> {
  const out: Array<{ n: number; text: string }> = [];
  for (const line of excerpt.split('\n')) {
    const match = /^\s*(\d+): ?(.*)$/s.exec(line);
    if (match) out.push({ n: Number(match[1]), text: match[2] ?? '' });
  }
  return out;
}
