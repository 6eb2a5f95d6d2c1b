/**
 * The CLI surface as data: every verb, its arguments and options, and its
 * explanation. commander is configured from this table, and `cli overview`,
 * `explain` and `learn` print it, so help text and behaviour cannot drift.
 */
import { BUDGET_FIELDS } from '../core/policy/budget-fields.js';

export interface OptionSpec {
  flags: string;
  description: string;
  /** Repeatable options collect into an array. */
  repeatable?: boolean;
}

export interface VerbSpec {
  name: string;
  args: string[];
  summary: string;
  options: OptionSpec[];
  explain: string;
  /** Lifecycle verbs act on workspaces and return result packages. */
  group: 'lifecycle' | 'operator' | 'introspection';
}

export const COMMON_OPTIONS: OptionSpec[] = [
  { flags: '--json', description: 'print the result as one JSON document (errors as JSON on stderr)' },
  { flags: '--provider <name>', description: 'backend: native (Linux default) or fake (in memory, no isolation)' },
  { flags: '--max-result-bytes <n>', description: 'bound of the markdown result (default 8192, floor 512)' },
];

export const VERBS: VerbSpec[] = [
  {
    name: 'create',
    args: [],
    group: 'lifecycle',
    summary: 'provision a workspace under a closed-by-default policy; the only verb that mints a workspace id',
    options: [
      { flags: '--workspace-id <id>', description: 'choose the id (1–64 of A-Z a-z 0-9 . _ -)' },
      { flags: '--profile <name>', description: 'runtime profile (host: the host toolchains read-only)' },
      { flags: '--network <mode>', description: 'disabled (default) or enabled; refused where it cannot be given safely' },
      { flags: '--allow-host-path <path>', description: 'expose a host path read-only (refused unless the provider can)', repeatable: true },
      { flags: '--purpose <text>', description: 'why the workspace exists (shown by ls and inspect)' },
      { flags: '--owner <name>', description: 'who owns it' },
      { flags: '--ttl <seconds>', description: 'expire after this many seconds; gc then removes it' },
      ...BUDGET_FIELDS.map((f) => ({ flags: `${f.flag} <${f.unit === 'bytes' ? 'bytes' : 'n'}>`, description: `${f.description} (${f.unit})` })),
    ],
    explain:
      'Creates a workspace. The provider is probed and every limit that guards the isolation boundary (network, filesystem, memory, cpu, pids) must be enforceable, or create refuses with exit 3 before anything exists. Every limit is labelled enforced or measured in the result. Byte budgets accept K, M, G suffixes (powers of 1024).',
  },
  {
    name: 'run',
    args: ['<workspace>', '<command...>'],
    group: 'lifecycle',
    summary: 'run one command in a workspace; flags go before the workspace id, everything after it is the command',
    options: [
      { flags: '--job-id <id>', description: 'choose the job id' },
      { flags: '--cwd <path>', description: 'working directory, relative to the workspace root' },
    ],
    explain:
      'Runs one command, with no shell, in the workspace, under its budgets. The wall clock and the output budget are enforced by headspace itself; memory, cpu and pids by the provider. The result carries an excerpt of the output chosen for an agent (errors, failures, summaries, the final lines) and a command that returns the rest. The command line is recorded verbatim: never put a secret in it. Exit codes: 0 success, 6 the command failed (126 not executable, 127 not found), 4 wall clock, 5 cancelled by stop, 8 killed for memory, 7 the engine broke.',
  },
  {
    name: 'stop',
    args: ['<workspace>'],
    group: 'lifecycle',
    summary: 'end the running job of a workspace; previews by default and changes nothing, --apply ends it',
    options: [{ flags: '--apply', description: 'really end the job (both this result and the job read cancelled, exit 5)' }],
    explain:
      'Without --apply, stop reports what is running and touches nothing. With --apply it ends every process of the job, from any process, and returns only when nothing of the job remains; the job is recorded as cancelled.',
  },
  {
    name: 'inspect',
    args: ['<handle>'],
    group: 'lifecycle',
    summary: "report a workspace's or a job's state, history, policy and evidence",
    options: [{ flags: '--logs', description: 'print the full captured output, unbounded (raw bytes; under --json, as text)' }],
    explain:
      'HANDLE is a workspace id or a job id. A workspace shows its lifecycle state and path, the provider\'s view, its jobs and the policy summary; a job shows its status, exit, usage and an excerpt. --logs prints everything the job(s) printed, as it was kept.',
  },
  {
    name: 'logs',
    args: ['<job>'],
    group: 'lifecycle',
    summary: "a bounded, selective view of a job's output, with line numbers",
    options: [
      { flags: '--head <n>', description: 'the first N lines' },
      { flags: '--tail <n>', description: 'the last N lines' },
      { flags: '--grep <regex>', description: 'lines matching a regular expression' },
      { flags: '--lines <a:b>', description: 'lines A to B (1-based, inclusive)' },
      { flags: '--max-lines <n>', description: 'at most N lines (default 200)' },
    ],
    explain: 'Lets an agent drill into a long log without loading it: choose one view; each line comes back with its number so the next call can ask for the lines around it.',
  },
  {
    name: 'ls',
    args: [],
    group: 'lifecycle',
    summary: 'list workspaces',
    options: [{ flags: '--all', description: 'include destroyed workspaces' }],
    explain: 'Lists workspaces from the state store (no provider calls), with state, provider, purpose, owner and expiry.',
  },
  {
    name: 'destroy',
    args: ['<workspace>'],
    group: 'lifecycle',
    summary: 'remove a workspace; refuses while a job runs',
    options: [{ flags: '--force', description: 'discard what would otherwise make destroy refuse' }],
    explain: 'Removes the workspace along a fixed lifecycle path (e.g. ready -> cancelled -> destroyed) and reports what was removed, retained and unverified. A running job must be stopped first (there is no running -> destroyed edge).',
  },
  {
    name: 'gc',
    args: [],
    group: 'operator',
    summary: 'expire workspaces past their --ttl and destroy them, reporting each',
    options: [],
    explain: 'Marks every workspace past its expiry as expired and destroys it; a workspace with a running job is left alone and reported.',
  },
  {
    name: 'doctor',
    args: [],
    group: 'operator',
    summary: 'read-only health report: store, schema, leftovers, provider readiness',
    options: [],
    explain: 'Checks the state store (path, schema version, integrity), reports leftovers (unsettled intents, jobs whose process is gone, workspaces a provider no longer knows) and each provider\'s probe. It changes nothing.',
  },
  {
    name: 'learn',
    args: [],
    group: 'introspection',
    summary: 'a self-teaching prompt for an agent (--json includes the exit-code map)',
    options: [],
    explain: 'Prints what headspace is, the verbs, the exit codes and the workflow, for an agent that has never used it.',
  },
  {
    name: 'explain',
    args: ['<path...>'],
    group: 'introspection',
    summary: 'documentation for a verb, e.g. `explain run` or `explain exit-codes`',
    options: [],
    explain: 'Prints the documentation of a verb or topic (exit-codes, result, policy, state).',
  },
  {
    name: 'cli',
    args: ['<overview>'],
    group: 'introspection',
    summary: '`cli overview`: the whole CLI surface as data',
    options: [],
    explain: 'Describes every verb with its arguments and options; with --json, as a document a program can read.',
  },
  {
    name: 'version',
    args: [],
    group: 'introspection',
    summary: 'print the headspace version',
    options: [],
    explain: 'Prints the version, the result schema version and the state schema version.',
  },
];

export const TOPICS: Record<string, string> = {
  'exit-codes':
    'Exit codes are stable and only ever added to: 0 success, 1 user_error (bad flag, argument, id or illegal move), 2 environment_error (set-up problem, or the workspace is busy: the running job is named), 3 policy_denied (refused before anything ran), 4 timeout (wall clock), 5 cancelled (stop --apply), 6 computation_failed (the command failed; 126 not executable, 127 not found), 7 infrastructure_failure (the engine broke), 8 resource_exhausted (killed by the kernel for memory).',
  result:
    'Every verb returns a result package with nine sections in a fixed order: outcome_summary, status, key_findings, evidence, artifacts, warnings, resource_usage, provenance, attention. Markdown (default) is bounded to 8 KiB (--max-result-bytes) and keeps all nine headings; --json is the same structure, never clipped. Output enters only as evidence excerpts; a cut ends with a marker giving the true size and a command that returns everything.',
  policy:
    'Closed by default: network disabled, no host paths, 512 MiB memory, 1 CPU, 128 pids, 1 GiB storage, 300 s wall clock per job, 10 MiB captured output per job, 1 job at once. Every limit is labelled enforced (the host applies it) or measured (only reported). A boundary limit (network, filesystem, memory, cpu, pids) a provider cannot enforce makes create refuse with exit 3.',
  state:
    'State lives under $HEADSPACE_HOME (default ~/.headspace): state.db (SQLite, WAL; workspaces, jobs and the intent journal), jobs/<job>.log (captured output, at most the output budget), and one folder per provider (native/, fake/). A store written by a newer headspace is refused and left untouched.',
};
