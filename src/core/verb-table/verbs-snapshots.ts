/**
 * The snapshot verbs (#14): checkpoint, restore, diff, fork, seal, settle
 * and review-policy. Each refuses, before doing anything, on a provider
 * whose capabilities do not list `snapshots` (exit 3, naming it).
 */
import { defineVerb, type Zod } from './define-verb.js';
import { budgetField, workspaceIdField } from './input-fields.js';

const checkpointIdField = (z: Zod) => z.string().describe('a checkpoint id (cp-…), as checkpoint returned it or inspect lists it');

export const checkpointVerb = defineVerb({
  name: 'checkpoint',
  method: 'checkpoint',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Checkpoint a workspace',
  summary: "freeze a workspace's files as a checkpoint (id, label, file count, bytes, digest) to restore, diff or fork from",
  description:
    "Freeze a workspace's files as a checkpoint, cheaply, before trying something; restore goes back to it, diff compares with it. Refused while a job runs.",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      label: z.string().optional().describe('one line saying what state this is'),
    }),
  handler: async () => (await import('../verbs/checkpoint.js')).checkpointWorkspace,
});

export const restoreVerb = defineVerb({
  name: 'restore',
  method: 'restore',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: true,
  title: 'Restore a checkpoint',
  summary: "make a workspace's files exactly a checkpoint's again (modified back, new gone, deleted back); consume makes it single-use",
  description:
    "Make a workspace's files exactly a checkpoint's again: modified files back, new files gone, deleted files back. Refused while a job runs, and for an invalid or consumed checkpoint.",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      checkpointId: checkpointIdField(z),
      consume: z.boolean().optional().describe('true to make the checkpoint single-use: a second restore of it is refused'),
    }),
  handler: async () => (await import('../verbs/checkpoint.js')).restoreCheckpoint,
});

export const diffVerb = defineVerb({
  name: 'diff',
  method: 'diff',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Diff a workspace',
  summary: 'created, modified and deleted paths since a checkpoint or the fork, with sizes and digests; patch adds text diffs',
  description:
    'List created, modified and deleted paths (sizes, digests) since a checkpoint (from), else the fork baseline, else the latest checkpoint; patch adds unified diffs of text files. Bounded: a marker gives the call for the rest.',
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      from: checkpointIdField(z).optional().describe('the checkpoint to compare with'),
      sinceFork: z.boolean().optional().describe('compare with the fork baseline'),
      patch: z.boolean().optional().describe('true to add unified diffs of changed text files (binary files are named)'),
      limit: z.int().min(1).max(1000).optional().describe('at most this many changes (default 50)'),
      offset: z.int().min(0).max(1_000_000).optional().describe('skip this many changes first'),
    }),
  handler: async () => (await import('../verbs/diff.js')).diffWorkspace,
});

export const forkVerb = defineVerb<'fork', 'fork', ReturnType<typeof forkInput>, { signal: AbortSignal }>({
  name: 'fork',
  method: 'fork',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Fork a workspace',
  summary: "make N workspaces holding exactly a workspace's files now (or at a checkpoint), each with its policy and a link to it",
  description:
    "Make count new workspaces holding exactly this one's files (or a checkpoint's: at), each with its policy, to try approaches side by side; seal and settle bring the best back. Refused while a job runs unless at.",
  input: (z: Zod) => forkInput(z),
  runtimeKeys: ['signal'],
  // Over MCP the forks keep the parent's budget: the narrowing fields would double the tool's size for a rare need.
  mcpOmits: ['budget'],
  handler: async () => (await import('../verbs/fork.js')).forkWorkspace,
});

function forkInput(z: Zod) {
  return z.strictObject({
    workspaceId: workspaceIdField(z),
    count: z.int().min(1).max(16).optional().describe('how many forks (default 1)'),
    workspaceIds: z.array(z.string().describe('a new workspace id')).optional().describe("choose the forks' ids"),
    at: checkpointIdField(z).optional().describe('fork from this checkpoint instead of the files now'),
    budget: budgetField(z).optional().describe("narrow the forks' budgets: each field at most the parent's, never more"),
  });
}

export const sealVerb = defineVerb({
  name: 'seal',
  method: 'seal',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Seal a fork',
  summary: "freeze a fork's changes against its fork baseline into an output (out-…) to settle once",
  description: "Freeze a fork's changes since it was forked (paths, kinds, digests) into an output (out-…) that settle takes into its parent exactly once.",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z).describe('the fork to seal'),
      exclude: z
        .array(z.string().describe('a glob, e.g. __pycache__, *.pyc, build/**'))
        .max(100)
        .optional()
        .describe("paths the output leaves out (a run's byproducts): a path is left out when it or a directory above it matches"),
    }),
  handler: async () => (await import('../verbs/seal.js')).sealWorkspace,
});

export const settleVerb = defineVerb({
  name: 'settle',
  method: 'settle',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: false,
  title: 'Settle an output',
  summary: 'consume a sealed output exactly once: select (unchanged parent), apply (three-way), release, or discard (destroys the fork)',
  description:
    "Consume a sealed output exactly once. select: into a parent unchanged since the fork; apply: onto a moved parent, refused where both changed a path; release: let it go; discard: also destroy the fork. The parent's reviewers run first.",
  input: (z: Zod) =>
    z.strictObject({
      outputId: z.string().describe('the output id (out-…) seal returned'),
      decision: z.enum(['select', 'apply', 'release', 'discard']).describe('what to do with it'),
    }),
  handler: async () => (await import('../verbs/settle.js')).settleOutput,
});

export const reviewPolicyVerb = defineVerb({
  name: 'review-policy',
  method: 'reviewPolicy',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: 'Set the merge gate',
  summary: 'set the reviewers an output passes before settling into a workspace: deny-paths globs and max-changes; without settings, show them',
  description: 'Set the merge gate of a workspace: globs no settled output may touch, and the most paths and bytes one may change.',
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      denyPaths: z.array(z.string().describe('a glob, e.g. *.pem, .git/**, .env')).optional().describe('replace the denied globs'),
      maxFiles: z.int().min(0).optional().describe('at most this many changed paths per output'),
      maxBytes: z.int().min(0).optional().describe('at most this many changed bytes per output'),
      clear: z.boolean().optional().describe('true to remove the review policy'),
    }),
  // The gate guards a workspace against what its forks propose: a model whose work it reviews does not set it.
  onMcp: false,
  handler: async () => (await import('../verbs/review-policy.js')).setReviewPolicy,
});
