/**
 * Every engine verb, declared once (see define-verb.ts). The order is the
 * order faces list them in (the MCP tool list is pinned in that order).
 *
 * Adding a verb: its handler file in core/verbs/, an entry here, its CLI
 * shape where argv needs one (cli/verb-adapters.ts), and its tests.
 */
import { PROFILES } from '../policy/profiles.js';
import type { WatchSample } from '../verbs/watch.js';
import { defineVerb, type Zod } from './define-verb.js';
import { waitVerb } from './verbs-detach.js';
import { batchCancelVerb, batchLsVerb, batchStatusVerb, batchVerb, batchWaitVerb } from './verbs-batch.js';
import { budgetField, jobIdField, lineCountField, lineNumberField, workspaceIdField } from './input-fields.js';
import {
  eventsAckVerb,
  eventsClaimVerb,
  eventsDeliverVerb,
  eventsFollowVerb,
  eventsLsVerb,
  eventsPruneVerb,
  eventsRequeueVerb,
  eventsSubscribeVerb,
  eventsUnsubscribeVerb,
} from './verbs-events.js';
import { checkpointVerb, diffVerb, forkVerb, restoreVerb, reviewPolicyVerb, sealVerb, settleVerb } from './verbs-snapshots.js';
import { receiptVerb, rulesField, rulesVerb, verificationFields } from './verbs-verification.js';

export const createVerb = defineVerb<'create', 'create', ReturnType<typeof createInput>, { privateTargetsRefused: boolean }>({
  name: 'create',
  method: 'create',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Create a workspace',
  summary: 'provision a workspace under a closed-by-default policy; the only verb that mints a workspace id',
  description:
    'Create an isolated workspace before running anything; it is closed by default (no network, no host paths, 512 MiB, 1 CPU, 300 s per job) and keeps its files until destroyed. The new id is in provenance.workspace_id.',
  input: (z: Zod) => createInput(z),
  // Set by the MCP face: an agent may not open the host's own services to a job (core/network/private-targets.ts).
  runtimeKeys: ['privateTargetsRefused'],
  // The merge gate guards a workspace against what its forks propose: set by a person (CLI, library), like review-policy.
  mcpOmits: ['reviewPolicy'],
  handler: async () => (await import('../verbs/create.js')).createWorkspace,
});

function createInput(z: Zod) {
  return z.strictObject({
    workspaceId: z.string().optional().describe('choose the id (1–64 of A-Z a-z 0-9 . _ -); omit it to get a fresh one'),
    provider: z
      .string()
      .optional()
      .describe(
        'backend: "native" (Linux: namespaces, seccomp, cgroups), "docker" (a container on a Docker Engine) or "fake" (in memory, no isolation, for trying things out); default: the server\'s default',
      ),
    profile: z.enum(PROFILES).optional().describe('runtime profile; "host" exposes the host toolchains read-only (python3, sh, …)'),
    network: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe(
        '"disabled" (default); "allow=HOST[,HOST…]" (*.domain wildcards, :port; no port means 80 and 443): jobs reach only those hosts, through the engine\'s egress proxy, each decision in the result; "enabled" is refused (policy_denied)',
      ),
    hostPaths: z.array(z.string().describe('an absolute host path')).optional().describe('host paths to expose read-only; refused unless the provider can'),
    purpose: z.string().optional().describe('why the workspace exists (shown by ls and inspect)'),
    owner: z.string().optional().describe('who owns it'),
    ttlSeconds: z.number().positive().optional().describe('expire after this many seconds (gc then removes it)'),
    budget: budgetField(z).optional(),
    reviewPolicy: z
      .strictObject({
        denyPaths: z.array(z.string()).optional().describe('globs no settled output may touch, e.g. *.pem, .git/**, .env'),
        maxFiles: z.int().min(0).optional().describe('at most this many changed paths per output'),
        maxBytes: z.int().min(0).optional().describe('at most this many changed bytes per output'),
      })
      .optional()
      .describe("the merge gate outputs of this workspace's forks pass before settling into it (#14; review-policy changes it)"),
    rules: rulesField(z),
  });
}

export const runVerb = defineVerb<'run', 'run', ReturnType<typeof runInput>, { signal: AbortSignal; canceller: string; withoutGitMetadata: boolean }>({
  name: 'run',
  method: 'run',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Run a command in a workspace',
  summary: 'run one command in a workspace; flags go before the workspace id, everything after it is the command',
  description:
    'Run one command (argv, no shell: use ["sh", "-c", "…"] for one) in a workspace and wait; the result gives the status and an excerpt of the output chosen for you (logs for more). argv is recorded verbatim, so pass secrets in env: env values are given to the job but never recorded.',
  input: (z: Zod) => runInput(z),
  // withoutGitMetadata: set by the MCP face, an agent's copy of its inputs (files/host-source.ts).
  runtimeKeys: ['signal', 'canceller', 'withoutGitMetadata'],
  // A secret's value would pass through the agent that calls the tool, the party it is kept from (#18 item 3): CLI and library only.
  mcpOmits: ['secrets'],
  handler: async () => (await import('../verbs/run.js')).runJob,
});

function runInput(z: Zod) {
  return z.strictObject({
    workspaceId: workspaceIdField(z),
    argv: z
      .array(z.string().describe('one argument, verbatim'))
      .describe('the command and its arguments, e.g. ["python3", "-c", "print(1)"]; recorded verbatim, so never a secret'),
    jobId: z.string().optional().describe('choose the job id; omit it to get a fresh one (returned in provenance.job_id)'),
    cwd: z.string().optional().describe('working directory, relative to the workspace root (default: the root, /workspace)'),
    env: z
      .record(z.string(), z.string().describe('the value; never recorded'))
      .optional()
      .describe('environment variables for the job; names are recorded, values never: the place for secrets'),
    secrets: z
      .array(
        z.strictObject({
          name: z.string().describe('the variable name; the job gets hs-secret-NAME-<random> in it'),
          value: z.string().describe('the real value; never given to the job, never recorded'),
          host: z.string().describe('the allow-listed host (or *.domain, :port) whose HTTPS requests get the value in place of the placeholder'),
          body: z.boolean().optional().describe('also substitute in request bodies (Content-Length, up to 1 MiB)'),
        }),
      )
      .optional()
      .describe('secrets used at egress, never seen by the job (needs a network allow-list covering each host)'),
    inputs: z
      .array(
        z.strictObject({
          destination: z.string().describe('where it lands, relative to the workspace root'),
          hostPath: z.string().describe("the HOST file or directory to copy (read as the server's user)"),
        }),
      )
      .optional()
      .describe('host files or directories copied in before the job starts (never overwriting; recorded with size and sha256, never the bytes)'),
    declares: z
      .array(
        z.strictObject({
          name: z.string().describe('the file the job will write, relative to the workspace root'),
          purpose: z.string().describe('why it matters (required)'),
        }),
      )
      .optional()
      .describe('artifacts the job will produce; only declared artifacts can be exported afterwards'),
    detach: z.boolean().optional().describe('return at once (status running) and leave the job to a supervisor; wait, logs and stop take it from there'),
    ...verificationFields(z),
  });
}

export const stopVerb = defineVerb<'stop', 'stop', ReturnType<typeof stopInput>, { settleTimeoutMs: number }>({
  name: 'stop',
  method: 'stop',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: true,
  title: 'Stop running jobs',
  summary: 'end the running jobs of a workspace (or one, with its job id); previews by default and changes nothing, apply ends them',
  description:
    'End the running jobs of a workspace (all, or jobId): without apply only a preview; with apply each gets SIGTERM, a grace (graceSeconds, default 5) for its handler, then a kill, and reads cancelled.',
  input: (z: Zod) => stopInput(z),
  runtimeKeys: ['settleTimeoutMs'],
  handler: async () => (await import('../verbs/stop.js')).stopJob,
});

function stopInput(z: Zod) {
  return z.strictObject({
    workspaceId: workspaceIdField(z),
    jobId: z
      .string()
      .optional()
      .describe(
        "end only this job (run returns it in provenance.job_id); the workspace's other jobs run on. Omit it to end every running job of the workspace",
      ),
    apply: z.boolean().optional().describe('true to really end the job; false or absent only previews'),
    graceSeconds: z
      .number()
      .min(0)
      .max(3600)
      .optional()
      .describe("with apply: seconds between SIGTERM and the kill of what remains, so the job's TERM handler can run (default 5; 0 kills at once)"),
  });
}

export const inspectVerb = defineVerb({
  name: 'inspect',
  method: 'inspect',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Inspect a workspace or a job',
  summary: "report a workspace's or a job's state, history, policy and evidence",
  description:
    'Report a workspace (state, policy with each limit labelled, its jobs) or a job (status, usage, output excerpt); read-only, for finding ids and re-reading results.',
  input: (z: Zod) => z.strictObject({ handle: z.string().describe('a workspace id or a job id') }),
  handler: async () => (await import('../verbs/inspect.js')).inspectHandle,
});

export const logsVerb = defineVerb({
  name: 'logs',
  method: 'logs',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: "Read part of a job's output",
  summary: "a bounded, selective view of a job's output; a selected view numbers its lines",
  description:
    "Read part of one job's output to drill into a long log without loading it: head, tail, grep or lines (at most one; grep may be given lines) returns numbered lines; with none, the excerpt a run's result carries, unnumbered; read-only.",
  input: (z: Zod) =>
    z.strictObject({
      jobId: jobIdField(z),
      head: lineCountField(z).optional().describe('the first N lines'),
      tail: lineCountField(z).optional().describe('the last N lines'),
      grep: z
        .string()
        .optional()
        .describe(
          'lines matching this regular expression (RE2 syntax: no backreferences or lookaround; the first 65,536 characters of each line are searched)',
        ),
      lines: z
        .strictObject({ from: lineNumberField(z).describe('first line, 1-based'), to: lineNumberField(z).describe('last line, inclusive') })
        .optional()
        .describe('lines from..to'),
      maxLines: lineCountField(z).optional().describe('at most this many lines (default 200)'),
    }),
  handler: async () => (await import('../verbs/logs.js')).readLogs,
});

export const lsVerb = defineVerb({
  name: 'ls',
  method: 'ls',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'List workspaces',
  summary: 'list workspaces',
  description: 'List workspaces with their state, provider, purpose and expiry; read-only and cheap, for finding a workspace created earlier.',
  input: (z: Zod) => z.strictObject({ all: z.boolean().optional().describe('true to include destroyed workspaces') }),
  handler: async () => (await import('../verbs/ls.js')).listWorkspaces,
});

export const destroyVerb = defineVerb({
  name: 'destroy',
  method: 'destroy',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: false,
  title: 'Destroy a workspace',
  summary: 'remove a workspace; refuses while a job runs, while declared artifacts are unexported or while sealed outputs of it are unsettled',
  description: 'Remove a workspace and everything in it when the task is done; irreversible, and refused while a job runs (stop it first).',
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      force: z.boolean().optional().describe('true to discard unexported artifacts and release unsettled outputs, which otherwise make destroy refuse'),
      abandon: z
        .boolean()
        .optional()
        .describe(
          'true to record the workspace destroyed even when its provider fails the removal (exit 7: its engine gone for good); what the provider holds of it is left, and doctor names it if that provider answers again',
        ),
    }),
  // Leaving a container or folder behind on purpose is a person's call, as applying doctor's repairs is.
  mcpOmits: ['abandon'],
  handler: async () => (await import('../verbs/destroy.js')).destroyWorkspace,
});

export const gcVerb = defineVerb({
  name: 'gc',
  method: 'gc',
  group: 'operator',
  effect: 'destroys',
  idempotent: true,
  title: 'Collect expired workspaces',
  summary: 'expire workspaces past their time to live and destroy them, reporting each',
  description: 'Mark every workspace past its expiry as expired and destroy it; a workspace with a running job is left alone and reported.',
  input: (z: Zod) => z.strictObject({}),
  // An operator's sweep across every owner's workspaces: not a tool for a model.
  onMcp: false,
  handler: async () => (await import('../verbs/gc.js')).collectGarbage,
});

export const doctorVerb = defineVerb({
  name: 'doctor',
  method: 'doctor',
  group: 'operator',
  effect: 'reads',
  idempotent: true,
  title: "Check headspace's health",
  summary: 'health report: store, schema, leftovers, provider readiness; repair plans repairs, apply makes the safe ones',
  description: "Read-only health report (state store, leftovers, each provider's readiness); use it when create is refused or something looks wrong.",
  input: (z: Zod) =>
    z.strictObject({
      provider: z.string().optional().describe('check only this provider (native, docker or fake)'),
      repair: z
        .boolean()
        .optional()
        .describe(
          'also list each repair doctor would make when told to apply them, marked safe or a judgement call with its reason (a dry run: over MCP repairs are never applied; a person does that)',
        ),
      apply: z.boolean().optional().describe('with repair: make only the mechanically safe repairs, report the judgement calls skipped'),
      verify: z.boolean().optional().describe('with repair and apply: diagnose again afterwards and report what remains'),
      file: z.string().optional().describe("also a headspace.yml's readiness, each check as plan reports it (read-only)"),
      env: z.record(z.string(), z.string()).optional().describe("values for the manifest's env names; never recorded"),
    }),
  // A model over MCP may plan repairs but never apply them: a person or the CLI does. Env: as for plan.
  mcpOmits: ['apply', 'verify', 'env'],
  handler: async () => (await import('../verbs/doctor.js')).diagnose,
});

export const putVerb = defineVerb<'put', 'put', ReturnType<typeof putInput>, { withoutGitMetadata: boolean }>({
  name: 'put',
  method: 'put',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Copy a host file into a workspace',
  summary: 'copy a host file or directory into a workspace, recording destination, size and sha256 — never the bytes',
  description:
    "Copy a HOST file or directory (read as the server's user) into a workspace; the result records destination, size and sha256, never the bytes. Refused: links, devices, FIFOs and sockets in the source; `..`, absolute or NUL destinations; anything past the storage budget (policy_denied); an existing destination unless overwrite. run's inputs copy and run in one call.",
  input: (z: Zod) => putInput(z),
  // Set by the MCP face: an agent's copy leaves nested .git metadata out (files/host-source.ts).
  runtimeKeys: ['withoutGitMetadata'],
  handler: async () => (await import('../verbs/put.js')).putFiles,
});

function putInput(z: Zod) {
  return z.strictObject({
    workspaceId: workspaceIdField(z),
    hostPath: z.string().describe("the host file or directory to copy (absolute, or relative to the server's working directory)"),
    destination: z.string().describe('where it lands, relative to the workspace root, e.g. data/input.csv'),
    overwrite: z.boolean().optional().describe('true to replace an existing destination'),
  });
}

export const declareVerb = defineVerb({
  name: 'declare',
  method: 'declare',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: 'Declare an artifact',
  summary: 'declare an artifact after the fact (e.g. a file found with ls-files), so it can be exported; remove withdraws one',
  description:
    'Declare a workspace file as an artifact (e.g. one found with ls-files) so it can be exported: only declared artifacts leave a workspace. An unexported one is listed in attention and makes destroy refuse until exported or discarded with force; remove: true withdraws a declaration never exported.',
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      name: z.string().describe("the artifact's path relative to the workspace root, as ls-files shows it, e.g. out/report.json"),
      purpose: z.string().optional().describe('why it matters (required to declare, one line; omitted with remove)'),
      remove: z.boolean().optional().describe('true to withdraw the declaration of name instead (only one never exported)'),
    }),
  handler: async () => (await import('../verbs/declare.js')).declareArtifact,
});

export const exportVerb = defineVerb<'export', 'export', ReturnType<typeof exportInput>, { onProgress: (done: number, total: number) => void }>({
  name: 'export',
  method: 'export',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: false,
  title: 'Export an artifact to the host',
  summary: 'publish a declared artifact to a host path, digest-verified, by atomic rename',
  description:
    "Publish a declared artifact to a HOST path (written as the server's user) through a temporary file, digest-verified, then renamed: the destination holds the whole file or nothing. Refused, leaving nothing: an undeclared name, a link or special file, a digest mismatch with expectSha256, an existing destination unless overwrite.",
  input: (z: Zod) => exportInput(z),
  runtimeKeys: ['onProgress'],
  handler: async () => (await import('../verbs/export.js')).exportArtifact,
});

function exportInput(z: Zod) {
  return z.strictObject({
    workspaceId: workspaceIdField(z),
    name: z.string().describe("the declared artifact's name (its workspace path, as ls-files shows it)"),
    to: z.string().describe('the host path to publish it at'),
    expectSha256: z.string().optional().describe('refuse unless the bytes have this sha256: 64 hex digits, with or without the sha256: prefix results print'),
    overwrite: z.boolean().optional().describe('true to replace an existing host file'),
    maxBytes: z
      .int()
      .min(1)
      .max(2 ** 50)
      .optional()
      .describe("refuse (policy_denied) an artifact whose apparent size exceeds this many bytes; default the workspace's storage budget"),
  });
}

export const lsFilesVerb = defineVerb({
  name: 'ls-files',
  method: 'listFiles',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: "List a workspace's files",
  summary: "a bounded listing of a workspace's files (names, types, sizes)",
  description:
    "A bounded, recursive listing (names, types, sizes) of a workspace's files, to find what a job wrote; then declare and export them, or read one as the resource headspace://workspace/{workspaceId}/file/{path}. Links are listed, never followed. Names are in one escaped text form (name_encoding says so): pass them back exactly as shown.",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z),
      path: z.string().optional().describe('directory relative to the workspace root; default the root'),
      limit: z.int().min(1).max(10_000).optional().describe('at most this many entries (default 200)'),
    }),
  handler: async () => (await import('../verbs/ls-files.js')).listFiles,
});

export const probeVerb = defineVerb({
  name: 'probe',
  method: 'probe',
  group: 'operator',
  effect: 'writes',
  idempotent: true,
  title: 'Probe the isolation boundary',
  summary: 'run real escape attempts in a dedicated workspace and report each scenario contained or escaped; success only when all are contained',
  description:
    'Run real escape attempts (writing outside, the host network, privilege, fork bomb, memory hog, …) in a dedicated workspace; each scenario reads contained, escaped (with evidence) or skipped. Success only when all are contained, else infrastructure_failure. Tens of seconds; list: true only describes them, last: true returns the newest recorded report of all of them. The fake provider is refused.',
  input: (z: Zod) =>
    z.strictObject({
      scenario: z.string().optional().describe('run only this scenario id (see list: true)'),
      all: z.boolean().optional().describe('true to run every scenario'),
      provider: z.string().optional().describe("the provider to probe; default the server's default"),
      list: z.boolean().optional().describe('true to describe the scenarios and run nothing'),
      last: z
        .boolean()
        .optional()
        .describe('true to return the newest recorded report of all scenarios (with when and which build), on provider when given, and run nothing'),
    }),
  handler: async () => (await import('../verbs/probe.js')).probeContainment,
});

export const statusVerb = defineVerb({
  name: 'status',
  method: 'status',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Status of a workspace',
  summary: 'a workspace and its latest job in one short result (without an id: the one prepared from headspace.yml here, else the most recently used)',
  description:
    "A workspace's state and its latest job (status, exit code, last lines of output) in one short result; without workspaceId, the live workspace used most recently. Read-only, cheap.",
  input: (z: Zod) =>
    z.strictObject({
      workspaceId: workspaceIdField(z).optional().describe('omit for the most recently used'),
      manifestDir: z
        .string()
        .optional()
        .describe('without workspaceId: find the workspace from headspace.yml in this directory or its parents (the CLI passes its working directory)'),
    }),
  // A directory on the server's host whose parents are searched: not a model's to name.
  mcpOmits: ['manifestDir'],
  handler: async () => (await import('../verbs/status.js')).reportStatus,
});

export const watchVerb = defineVerb<'watch', 'watch', ReturnType<typeof watchInput>, { signal: AbortSignal; onSample: (sample: WatchSample) => void }>({
  name: 'watch',
  method: 'watch',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Watch a workspace or job',
  summary: 'sample a workspace or job (state, cpu, memory, pids, storage, output) every few seconds; end at the first violation of what you require',
  description:
    'Sample a workspace or job every everySeconds for up to forSeconds; a violation ends it, status failure: not_running, progress_stale, budget_near (90% of a budget), runtime_unhealthy (provider vs store).',
  input: (z: Zod) => watchInput(z),
  runtimeKeys: ['signal', 'onSample'],
  mcpMaximum: { forSeconds: 300 },
  handler: async () => (await import('../verbs/watch.js')).watchTarget,
});

function watchInput(z: Zod) {
  return z.strictObject({
    handle: z.string().describe('workspace or job id'),
    forSeconds: z.number().positive().max(86_400).describe('at most this long'),
    everySeconds: z.number().min(0.1).max(3600).optional().describe('between samples (default 5)'),
    requireRunning: z.boolean().optional().describe('not_running when no job runs'),
    requireProgress: z.boolean().optional().describe('progress_stale when a running job stalls'),
    progressTimeoutSeconds: z.number().positive().max(86_400).optional().describe('seconds (default 60)'),
  });
}

const manifestFile = (z: Zod) => z.string().optional().describe('the headspace.yml; default ./headspace.yml');
const callerEnv = (z: Zod) => z.record(z.string(), z.string()).optional().describe("values for the manifest's env names; never recorded");

export const planVerb = defineVerb({
  name: 'plan',
  method: 'plan',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Plan from a manifest',
  summary: 'what prepare would do for a headspace.yml (create, copies with sizes and digests, commands) and whether it is ready; changes nothing',
  description: 'What prepare would do for a headspace.yml, and ready: true|false per check. Changes nothing.',
  input: (z: Zod) => z.strictObject({ file: manifestFile(z), env: callerEnv(z) }),
  // Over MCP the manifest's env names stay unset (prepare refuses them): a model passes values to run's env instead; env files under the roots still work.
  mcpOmits: ['env'],
  handler: async () => (await import('../verbs/plan.js')).planWorkspace,
});

export const prepareVerb = defineVerb({
  name: 'prepare',
  method: 'prepare',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: 'Prepare from a manifest',
  summary:
    'materialise a headspace.yml: create, copy inputs, declare artifacts, run setup, judge its verify checks; a second prepare with nothing changed does nothing',
  description: 'Materialise a headspace.yml: create, copy, declare, run setup, record a receipt. Unchanged: does nothing; changed: refused unless recreate.',
  input: (z: Zod) => prepareInput(z),
  mcpOmits: ['env'],
  handler: async () => (await import('../verbs/prepare.js')).prepareWorkspace,
});

function prepareInput(z: Zod) {
  return z.strictObject({
    file: manifestFile(z),
    env: callerEnv(z),
    recreate: z.boolean().optional().describe('destroy a changed workspace, prepare it anew'),
  });
}

/** Every engine verb, in the order faces list them. */
export const VERB_TABLE = [
  createVerb,
  runVerb,
  stopVerb,
  inspectVerb,
  logsVerb,
  lsVerb,
  destroyVerb,
  gcVerb,
  doctorVerb,
  putVerb,
  declareVerb,
  exportVerb,
  lsFilesVerb,
  probeVerb,
  statusVerb,
  watchVerb,

  planVerb,
  prepareVerb,
  eventsSubscribeVerb,
  eventsClaimVerb,
  eventsAckVerb,
  eventsRequeueVerb,
  eventsPruneVerb,
  eventsLsVerb,
  eventsUnsubscribeVerb,
  eventsFollowVerb,
  eventsDeliverVerb,
  waitVerb,
  checkpointVerb,
  restoreVerb,
  diffVerb,
  forkVerb,
  sealVerb,
  settleVerb,
  reviewPolicyVerb,
  receiptVerb,
  rulesVerb,
  batchVerb,
  batchStatusVerb,
  batchLsVerb,
  batchWaitVerb,
  batchCancelVerb,
] as const;

export type VerbTable = typeof VERB_TABLE;
export type AnyVerb = VerbTable[number];
export type VerbName = AnyVerb['name'];
