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
import { inputRef } from '../verb-table/command-words.js';
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
    throw new EngineError(
      'BAD_ARGUMENT',
      source.spec === undefined
        ? 'a batch needs its jobs, and none were given'
        : `a batch takes its jobs from ${inputRef('spec')} or ${inputRef('jobs')}, not both`,
      { hint: `give ${inputRef('spec')}: a YAML or JSON spec whose jobs: lists { workspace, command } entries`, inputsOf: 'batch' },
    );
  let data: unknown = source.jobs === undefined ? undefined : { jobs: source.jobs };
  if (source.spec !== undefined) {
    const { parse } = await import('yaml');
    try {
      data = parse(String(source.spec));
    } catch (error) {
      throw specTextError(error instanceof Error ? error.message : String(error));
    }
  }
  if (data === null || data === undefined || (typeof data === 'string' && data.trim() === ''))
    throw new EngineError('BAD_ARGUMENT', 'the batch spec is empty', { hint: SPEC_SHAPE });
  if (typeof data !== 'object' || Array.isArray(data))
    throw new EngineError('BAD_ARGUMENT', `the batch spec is ${Array.isArray(data) ? 'a bare list' : `a ${typeof data}`}, not a mapping with jobs:`, {
      hint: `put the list under jobs: (${SPEC_SHAPE})`,
    });
  const { z } = await import('zod');
  const job = z.strictObject({
    name: z.string().regex(JOB_NAME).optional(),
    workspace: z.string().optional(),
    fork: z.string().optional(),
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
  });
  const listed = (data as { jobs?: unknown }).jobs;
  if (Array.isArray(listed) && listed.length > MAX_BATCH_JOBS)
    throw new EngineError('BAD_ARGUMENT', `the batch lists ${listed.length} jobs; one batch runs at most ${MAX_BATCH_JOBS}`, {
      hint: `split the jobs into batches of ${MAX_BATCH_JOBS} or fewer`,
    });
  const schema = z.strictObject({ jobs: z.array(job) });
  const parsed = schema.safeParse(data);
  // A misspelt key first: it also makes its intended key look missing, and the misspelling is what to fix.
  if (!parsed.success) throw specIssueError(parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!, data);
  const jobs = parsed.data.jobs;
  if (jobs.length === 0) throw new EngineError('BAD_ARGUMENT', 'the batch spec lists no jobs', { hint: 'list at least one job under jobs:' });
  // A job without a name gets job-N (its place), or job-N-2, … when a job was explicitly given that name.
  const explicit = new Map<string, number>();
  for (const [i, j] of jobs.entries()) {
    if (j.name === undefined) continue;
    const first = explicit.get(j.name);
    if (first !== undefined)
      throw new EngineError('BAD_ARGUMENT', `jobs ${first + 1} and ${i + 1} are both named ${j.name}`, { hint: 'give each job its own name, or none' });
    explicit.set(j.name, i);
  }
  const taken = new Set(explicit.keys());
  return jobs.map((j, i) => {
    const at = `job ${i + 1}`;
    if ((j.workspace === undefined) === (j.fork === undefined))
      throw new EngineError(
        'BAD_ARGUMENT',
        `${at} ${j.workspace === undefined ? 'names no workspace' : 'names both a workspace and a fork'}: it needs exactly one`,
        {
          hint: 'workspace: ID runs in that workspace; fork: ID runs in a fresh fork of it',
        },
      );
    const argv = typeof j.command === 'string' ? splitCommandWords(j.command, `${at}'s command`) : j.command;
    if (argv.some((a) => a.includes('\0')))
      throw new EngineError('BAD_ARGUMENT', `${at}'s command holds a NUL byte`, { hint: 'pass binary data through a file' });
    let name = j.name;
    if (name === undefined) {
      name = `job-${i + 1}`;
      for (let k = 2; taken.has(name); k++) name = `job-${i + 1}-${k}`;
      taken.add(name);
    }
    return { name, workspaceId: j.workspace ?? null, forkOf: j.fork ?? null, argv };
  });
}

const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SPEC_SHAPE = 'jobs: a list of { workspace: ID, command: [ARGV…] or "WORDS" } or { fork: ID, command }, each with an optional name';

/** The YAML parser's refusal, in the spec's words (its own names a library call the reader never makes). */
function specTextError(message: string): EngineError {
  if (/parseAllDocuments|multiple documents/i.test(message))
    return new EngineError('BAD_ARGUMENT', 'the batch spec holds more than one YAML document (a --- line between them)', {
      hint: 'list every job under one jobs: in a single document',
    });
  const where = /at line (\d+), column (\d+)/.exec(message);
  return new EngineError('BAD_ARGUMENT', `the batch spec is not valid YAML or JSON${where ? ` (line ${where[1]}, column ${where[2]})` : ''}`, {
    hint: `check the indentation and quoting there; the shape is ${SPEC_SHAPE}`,
  });
}

/** A schema issue as the reader of the spec would say it: which job, which key, what is wrong, how to fix it. */
function specIssueError(issue: { code: string; path: PropertyKey[]; message: string; keys?: string[]; expected?: string }, data: unknown): EngineError {
  const [top, index, key] = issue.path;
  const job = typeof index === 'number' ? `job ${index + 1}` : null;
  const where = top !== 'jobs' ? 'the batch spec' : job === null ? 'jobs:' : key === undefined ? job : `${job}'s ${String(key)}`;
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue.keys ?? []).join(', ');
    return new EngineError('BAD_ARGUMENT', `${where} has a key it does not know: ${keys}`, {
      hint: job ? 'a job has workspace or fork, command, and an optional name' : 'the spec has one key, jobs:',
    });
  }
  if (key === 'name') {
    const given = (data as { jobs: Record<string, unknown>[] }).jobs[index as number]?.name;
    return new EngineError('BAD_ARGUMENT', `${where} ${JSON.stringify(given)?.slice(0, 80) ?? ''} is not a valid job name`, {
      hint: "a job name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
    });
  }
  if (key === 'command')
    return new EngineError('BAD_ARGUMENT', `${where} is missing or empty`, { hint: 'command is a list of words (argv) or one string of words' });
  if (top === 'jobs' && job === null) return new EngineError('BAD_ARGUMENT', 'jobs: is missing or not a list', { hint: `the shape is ${SPEC_SHAPE}` });
  if (job !== null && key === undefined) return new EngineError('BAD_ARGUMENT', `${job} is not a mapping`, { hint: `each job is ${SPEC_SHAPE.slice(17)}` });
  return new EngineError('BAD_ARGUMENT', `${where} is not a ${issue.expected ?? 'valid value'}`, { hint: `the shape is ${SPEC_SHAPE}` });
}
