/**
 * The batch verbs (#16): batch, batch-status, batch-wait, batch-cancel. The
 * CLI spells the last three `headspace batch status|wait|cancel GROUP`
 * (cli/verb-adapters-batch.ts). MCP offers batch (non-blocking: it returns
 * the group id at once) and batch-wait; status and cancel stay on the CLI
 * and the library.
 */
import { MAX_BATCH_JOBS, STRATEGIES } from '../batch/join.js';
import { defineVerb, type Zod } from './define-verb.js';

const groupIdField = (z: Zod) => z.string().describe('the batch group id (bg-…) batch returned');

export const batchVerb = defineVerb<'batch', 'batch', ReturnType<typeof batchInput>, { signal: AbortSignal }>({
  name: 'batch',
  method: 'batch',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Run a batch of jobs and join them',
  summary: 'run N jobs (in workspaces or fresh forks) with a join strategy — all, allSettled, race, any, quorum — cancelling the losers',
  description:
    'Run several jobs (workspace + argv, or fork + argv for a fresh fork each) with a join: all (fail fast), allSettled, race (first to end), any (first success), quorum (K successes). Losers are stopped, queued ones never start. Returns the group id at once; batch-wait gives the result.',
  input: (z: Zod) => batchInput(z),
  runtimeKeys: ['signal'],
  // A tool call returns at once: the batch is always driven by a detached process over MCP.
  mcpOmits: ['detach', 'spec'],
  mcpRequires: ['jobs'],
  handler: async () => (await import('../verbs/batch.js')).startBatch,
});

function batchInput(z: Zod) {
  return z.strictObject({
    strategy: z
      .enum(STRATEGIES)
      .describe(
        'all: every job must succeed (the first failure cancels the rest); allSettled: wait for all; race: the first to end decides; any: the first success; quorum: K successes',
      ),
    quorum: z.int().min(1).max(MAX_BATCH_JOBS).optional().describe('quorum: how many successes decide'),
    concurrency: z.int().min(1).max(64).optional().describe('jobs at once (default 1); a slot frees when its job ends'),
    timeoutSeconds: z.number().positive().max(86_400).optional().describe('the whole batch: past it, status timeout and the unfinished jobs cancelled'),
    cleanupTimeoutSeconds: z
      .number()
      .positive()
      .max(3600)
      .optional()
      .describe('how long stopping the losers may take before it is a cleanup error (default 10)'),
    jobs: z
      .array(
        z.strictObject({
          name: z.string().optional().describe('a name for the job (default job-1, job-2, …)'),
          workspace: z.string().optional().describe('run in this workspace'),
          fork: z.string().optional().describe('run in a fresh fork of this workspace (needs snapshots)'),
          command: z.union([z.array(z.string()), z.string()]).describe('argv, or words split without a shell'),
        }),
      )
      .max(MAX_BATCH_JOBS)
      .optional()
      .describe('the jobs; each has workspace or fork, and command'),
    spec: z.string().optional().describe('the jobs as YAML or JSON text ({jobs: [...]}), instead of jobs'),
    detach: z.boolean().optional().describe('return the group id at once; a detached process drives the batch'),
    keepForks: z
      .boolean()
      .optional()
      .describe("keep every fork the batch made; by default only forks holding a winner's work, or a failed batch's failures, are kept"),
  });
}

export const batchStatusVerb = defineVerb({
  name: 'batch-status',
  method: 'batchStatus',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Show a batch',
  summary: "a batch's state: each job's status in one line, the winners, the cleanup; never drives it",
  description: "Show a batch: each job's status in one line, its winners and cleanup; read-only.",
  input: (z: Zod) => z.strictObject({ groupId: groupIdField(z) }),
  onMcp: false,
  handler: async () => (await import('../verbs/batch.js')).batchStatus,
});

export const batchLsVerb = defineVerb({
  name: 'batch-ls',
  method: 'batchList',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'List batches',
  summary: "list the batches of this home, newest first: each one's state, status, join and job count",
  description: 'List the batches, newest first, one line each (group id, running or its status, strategy, job count, when); read-only, from the store alone.',
  input: (z: Zod) =>
    z.strictObject({
      limit: z.int().min(1).max(1000).optional().describe('at most this many, the newest (default 100)'),
    }),
  onMcp: false,
  handler: async () => (await import('../verbs/batch-ls.js')).batchList,
});

export const batchWaitVerb = defineVerb<'batch-wait', 'batchWait', ReturnType<typeof batchWaitInput>, { signal: AbortSignal }>({
  name: 'batch-wait',
  method: 'batchWait',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Wait for a batch',
  summary: "block until a batch's join decides and its losers are cleaned up; a timeout (exit 4) leaves it running",
  description:
    "Wait until a batch's join decides and its losers are cleaned up, and get its result: each job's status, the winners' evidence. timeoutSeconds ends the wait (status timeout); the batch runs on.",
  input: (z: Zod) => batchWaitInput(z),
  runtimeKeys: ['signal'],
  mcpMaximum: { timeoutSeconds: 300 },
  handler: async () => (await import('../verbs/batch.js')).waitForBatch,
});

function batchWaitInput(z: Zod) {
  return z.strictObject({
    groupId: groupIdField(z),
    timeoutSeconds: z.number().min(0).max(86_400).optional().describe('give up after this many seconds: status timeout, the batch runs on'),
  });
}

export const batchCancelVerb = defineVerb({
  name: 'batch-cancel',
  method: 'batchCancel',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: true,
  title: 'Cancel a batch',
  summary: 'cancel a batch: running jobs are stopped, queued ones never start; status cancelled',
  description: 'Cancel a batch: its running jobs are stopped, its queued jobs never start.',
  input: (z: Zod) => z.strictObject({ groupId: groupIdField(z) }),
  onMcp: false,
  handler: async () => (await import('../verbs/batch.js')).cancelBatch,
});
