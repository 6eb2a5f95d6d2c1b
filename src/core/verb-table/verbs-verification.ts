/**
 * Verification contracts, receipts and supervision rules (#16): the run
 * fields of a verification contract, create's rules, and the receipt and
 * rules verbs.
 */
import { defineVerb, type Zod } from './define-verb.js';
import { jobIdField, workspaceIdField } from './input-fields.js';

/** run's verification contract: checks the engine judges after the job; success needs every one to pass. */
export const verificationFields = (z: Zod) => ({
  verify: z
    .array(z.array(z.string()).describe('one command as argv (no shell), e.g. ["python3", "-m", "pytest", "-q"]'))
    .optional()
    .describe(
      "commands run after the job in the same workspace, cwd, env and policy; each must exit 0. A check that cannot run (127, 126, its time: the workspace's wall clock for all checks) makes the job inconclusive",
    ),
  expectFiles: z
    .array(
      z.strictObject({
        path: z.string().describe('relative to the workspace root'),
        sha256: z.string().optional().describe('the sha256 it must have (64 hex digits, sha256: prefix optional)'),
      }),
    )
    .optional()
    .describe('workspace files that must exist after the job (regular files; a link fails)'),
  expectOutput: z
    .array(z.string().describe('an RE2 pattern (linear time; ^ and $ match at line ends)'))
    .optional()
    .describe("patterns that must each match somewhere in the job's kept output"),
});

/** create's supervision rules, in their text form (core/rules/rule-text.ts). */
export const rulesField = (z: Zod) =>
  z
    .array(z.string().describe("deny-command:WORDS (e.g. 'deny-command:rm -rf'), stuck:K[:block] or error-rate:X/N[:block]"))
    .optional()
    .describe(
      'supervision rules: deny-command refuses a matching job before it runs (policy_denied); stuck and error-rate raise attention, and with :block refuse jobs until cleared',
    );

export const receiptVerb = defineVerb({
  name: 'receipt',
  method: 'receipt',
  group: 'lifecycle',
  // `out` writes a host file: not read-only to an MCP client (new-user review).
  effect: 'writes',
  idempotent: true,
  title: "A job's receipt",
  summary: "a finished job's receipt (canonical JSON with its sha256), or verify a receipt file offline",
  description:
    "Get a finished job's receipt: canonical JSON binding its command, policy, env names, inputs, verification, output digest, exported artifacts and status, with its sha256; none of it is taken from the job's output. verifyFile checks a receipt file offline instead.",
  input: (z: Zod) =>
    z.strictObject({
      jobId: jobIdField(z).optional().describe('the job whose receipt to get (its latest version)'),
      version: z.int().min(1).max(1_000_000).optional().describe('an earlier version (each export issues the next)'),
      out: z.string().optional().describe('also write the receipt file (the host path) for later offline verification; an existing file is refused'),
      overwrite: z.boolean().optional().describe('with out: replace a file already there'),
      verifyFile: z.string().optional().describe('instead: a receipt file (host path) to verify offline'),
      artifactsDir: z.string().optional().describe("with verifyFile: a host directory holding the receipt's exported artifacts, each re-hashed"),
      expectSha256: z.string().optional().describe("with verifyFile: the receipt's sha256 as pinned earlier (provenance.receipt_sha256)"),
    }),
  handler: async () => (await import('../verbs/receipt.js')).receiptOfJob,
});

export const rulesVerb = defineVerb({
  name: 'rules',
  method: 'rules',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: "A workspace's supervision rules",
  summary: "list, add, remove or clear a workspace's supervision rules (deny-command, stuck, error-rate)",
  description: "List, add or remove a workspace's supervision rules, or clear them (a tripped blocking rule lets jobs run again; counting restarts).",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      action: z.enum(['list', 'add', 'remove', 'clear']).optional().describe('list (default), add, remove or clear'),
      rule: z.string().optional().describe("with add or remove: the rule, e.g. 'deny-command:rm -rf', stuck:3:block, error-rate:5/10"),
    }),
  // The agent a workspace supervises must not be able to lift its own supervision: rules are a person's or a supervisor's (CLI, library); a model may set them at create.
  onMcp: false,
  handler: async () => (await import('../verbs/rules.js')).manageRules,
});
