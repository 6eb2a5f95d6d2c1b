/**
 * A batch's spec (#16): the jobs, as YAML or JSON text (`--spec FILE|-`) or
 * as data (the library's and MCP's `jobs`), validated with zod before
 * anything is recorded. zod and yaml load only here, lazily: a CLI call that
 * is not a batch never pays for them.
 *
 *   jobs:
 *     - workspace: ws-a            # run in this workspace
 *       command: ["sh", "-c", "make test"]
 *     - fork: ws-b                 # run in a fresh fork of ws-b (snapshots)
 *       command: make test         # a string: words as run --verify splits them (no shell)
 *       name: second               # optional; default job-1, job-2, …
 */
import { EngineError } from '../errors.js';
import { splitCommandWords } from '../verification/command-words.js';
import type { NewMember } from './batch-records.js';
import { MAX_BATCH_JOBS } from './join.js';

export interface BatchJobSpec {
  name?: string;
  workspace?: string;
  fork?: string;
  command: string | string[];
}

/** The spec's jobs, from text (YAML is a superset of JSON) or data; refused with BAD_ARGUMENT naming the job and key. */
export async function readBatchSpec(source: { spec?: string; jobs?: unknown }): Promise<NewMember[]> {
  if ((source.spec === undefined) === (source.jobs === undefined))
    throw new EngineError('BAD_ARGUMENT', 'a batch needs its jobs: a spec (YAML or JSON text) or jobs, exactly one', {
      hint: 'give a spec whose jobs: lists { workspace, command } entries',
    });
  let data: unknown = source.jobs === undefined ? undefined : { jobs: source.jobs };
  if (source.spec !== undefined) {
    const { parse } = await import('yaml');
    try {
      data = parse(String(source.spec));
    } catch (error) {
      throw new EngineError('BAD_ARGUMENT', `the batch spec is not YAML or JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, {
        hint: 'write jobs: as a list of { workspace, command } entries',
      });
    }
  }
  const { z } = await import('zod');
  const job = z.strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
      .optional(),
    workspace: z.string().optional(),
    fork: z.string().optional(),
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
  });
  const schema = z.strictObject({ jobs: z.array(job).max(MAX_BATCH_JOBS) });
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : 'the spec';
    throw new EngineError('BAD_ARGUMENT', `the batch spec is invalid at ${where}: ${issue.message}`, {
      hint: 'each job is { workspace: ID, command: [ARGV…] | "WORDS" } or { fork: ID, command: … }, with an optional name',
    });
  }
  const jobs = parsed.data.jobs;
  if (jobs.length === 0) throw new EngineError('BAD_ARGUMENT', 'the batch spec lists no jobs', { hint: 'list at least one job under jobs:' });
  const names = new Set<string>();
  return jobs.map((j, i) => {
    const at = `jobs.${i}`;
    if ((j.workspace === undefined) === (j.fork === undefined))
      throw new EngineError('BAD_ARGUMENT', `${at} needs exactly one of workspace and fork`, {
        hint: 'workspace: runs in that workspace; fork: runs in a fresh fork of it',
      });
    const argv = typeof j.command === 'string' ? splitCommandWords(j.command, `${at}.command`) : j.command;
    if (argv.some((a) => a.includes('\0')))
      throw new EngineError('BAD_ARGUMENT', `${at}.command holds a NUL byte`, { hint: 'pass binary data through a file' });
    const name = j.name ?? `job-${i + 1}`;
    if (names.has(name)) throw new EngineError('BAD_ARGUMENT', `two jobs are named ${name}`, { hint: 'give each job its own name, or none' });
    names.add(name);
    return { name, workspaceId: j.workspace ?? null, forkOf: j.fork ?? null, argv };
  });
}
