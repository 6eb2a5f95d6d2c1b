/**
 * A job's or a workspace's `watch` samples, read back (#21): watch appends
 * every sample, one JSON line each, to HEADSPACE_HOME/watch/<handle>-<trace
 * id>.jsonl, where the handle is the workspace or the job watched. The
 * dashboard draws its small charts from these; this reads them for it, so it
 * never learns where the home keeps them. Bounded: at most the newest
 * `limit` samples, and at most the last MAX_RECORD_BYTES of each record file.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { ID_PATTERN } from '../ids.js';
import { nextAction } from '../next-action.js';
import type { WatchSample } from '../verbs/watch.js';

export const DEFAULT_SAMPLES = 240;
export const MAX_SAMPLES = 2000;
/** A record file is read from its end at most this far: a watch of a day at 0.1 s would otherwise be read whole. */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;
const FIGURES = ['cpu_seconds', 'memory_bytes', 'pids', 'storage_bytes', 'output_bytes'] as const;

export interface WatchSamplesInput {
  /** A job id (its samples) or a workspace id (every sample of it, whichever of its jobs ran). */
  handle: string;
  /** The newest this many (default 240, at most 2000). */
  limit?: number;
}

export interface WatchSamples {
  handle: string;
  kind: 'job' | 'workspace';
  /** Oldest first. */
  samples: WatchSample[];
  /** Samples found in all (before the limit). */
  total: number;
  /** Watches (record files) they came from. */
  watches: number;
}

export async function readWatchSamples(ctx: EngineContext, input: WatchSamplesInput): Promise<WatchSamples> {
  const limit = input.limit ?? DEFAULT_SAMPLES;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SAMPLES)
    throw new EngineError('BAD_ARGUMENT', `limit takes a whole number from 1 to ${MAX_SAMPLES}`, { hint: `e.g. ${DEFAULT_SAMPLES}` });
  if (typeof input.handle !== 'string' || !ID_PATTERN.test(input.handle) || input.handle.includes('..'))
    throw new EngineError('BAD_ID', `${JSON.stringify(String(input.handle).slice(0, 70))} is not a valid workspace or job id`, {
      hint: 'list the workspaces',
      action: nextAction('ls'),
    });
  const store = ctx.store();
  const job = store.getJob(input.handle);
  const ws = job ? store.getWorkspace(job.workspaceId) : store.getWorkspace(input.handle);
  if (!ws) throw new EngineError('WORKSPACE_NOT_FOUND', `no workspace or job ${input.handle}`, { hint: 'list the workspaces', action: nextAction('ls') });
  // A job's samples may sit in a watch of its workspace too; a workspace's, in a watch of any of its jobs.
  // A file name only narrows the search (<handle>-<trace id>.jsonl); each sample's own ids decide.
  const prefixes = (job ? [job.id, ws.id] : [ws.id, ...store.listJobs(ws.id).map((j) => j.id)]).map((h) => `${h}-`);
  const keep = (s: WatchSample) => (job ? s.job_id === job.id : s.workspace_id === ws.id);
  const dir = join(ctx.home, 'watch');
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.jsonl') && prefixes.some((p) => e.name.startsWith(p)))
      .map((e) => e.name);
  } catch {
    names = [];
  }
  const samples: WatchSample[] = [];
  let watches = 0;
  for (const name of names) {
    const found = readRecord(join(dir, name)).filter(keep);
    if (found.length > 0) watches += 1;
    samples.push(...found);
  }
  samples.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { handle: input.handle, kind: job ? 'job' : 'workspace', samples: samples.slice(-limit), total: samples.length, watches };
}

/** The samples of one record file (its last MAX_RECORD_BYTES): lines that are not a well-formed sample are passed over. */
function readRecord(path: string): WatchSample[] {
  let text: string;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, MAX_RECORD_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    text = buffer.toString('utf8');
    // Read from the middle of a line: that first part is not a whole line.
    if (length < size) text = text.slice(text.indexOf('\n') + 1);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const out: WatchSample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{"type":"sample"')) continue;
    try {
      const s = JSON.parse(line) as WatchSample;
      if (typeof s.at === 'string' && FIGURES.every((f) => s[f] === null || typeof s[f] === 'number')) out.push(s);
    } catch {
      // A line cut by a crash mid-write: passed over.
    }
  }
  return out;
}
