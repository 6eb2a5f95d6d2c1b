/**
 * The CLI's shape of each engine verb, where argv needs one (#11): which
 * input keys are positional arguments, flags spelt other than `--kebab-key`
 * or parsed from text (`--input NAME=HOST_PATH`), CLI-only flags that steer
 * the call (`--env-file`, `--logs`), and the explanation `explain VERB`
 * prints. Every other input key becomes a flag by itself (cli/verb-commands.ts),
 * with the verb table's description; names, types and ranges come from the
 * table, never from here.
 */
import { resolve } from 'node:path';
import { BUDGET_FIELDS, parseBudgetValue } from '../core/policy/budget-fields.js';
import { EngineError } from '../core/errors.js';
import type { OptionSpec } from './catalog.js';
import type { CliIo } from './io.js';
import { envFromFlags, secretFromFlag, splitAssignment } from './run-inputs.js';
import { EVENTS_CLI_ADAPTERS } from './verb-adapters-events.js';
import { BATCH_CLI_ADAPTERS } from './verb-adapters-batch.js';
import { splitCommandWords } from '../core/verification/command-words.js';

export type Opts = Record<string, unknown>;

/** A flag whose spelling, words or parsing differ from what the input key and its schema give. */
export interface FlagOverride {
  flags?: string;
  description?: string;
  /** The flag's value (a list for a repeatable flag) → the input value. */
  /** `io` gives the caller's directory and stdin (a spec read from `-`). */
  parse?: (raw: never, flag: string, io: CliIo) => unknown;
  repeatable?: boolean;
}

export interface CliAdapter {
  /** The words the CLI spells the verb with, when not its name (`events claim` for events-claim, #15). */
  words?: readonly [group: string, verb: string];
  /** Positional arguments in order: commander's spelling and the input key each fills (`...` collects the rest). */
  args: ReadonlyArray<readonly [spec: string, key: string]>;
  /** Per input key: a different flag, or null when the key is not a flag (filled by `complete`, or over MCP only). */
  flags?: Readonly<Record<string, FlagOverride | null>>;
  /** Flags that are not input keys: they steer how the CLI calls or renders. */
  extra?: readonly OptionSpec[];
  /** What `explain VERB` and `VERB --help` print after the summary. */
  explain: string;
  /** Fills what needs the caller's environment or several flags (run's --env, create's budget flags). */
  complete?: (input: Record<string, unknown>, opts: Opts, io: CliIo) => Record<string, unknown>;
  /**
   * How an error names an input no flag of its own fills (render-action.ts cliInputSpelling): fork's
   * `budget.memoryBytes` is what --memory-bytes fills, receipt's verifyFile is `verify FILE`. Without it the CLI
   * would print the field's name, and a user typing it back would be refused again.
   */
  inputWords?: Readonly<Record<string, string>>;
}

const byteCount = (raw: never, flag: string) =>
  parseBudgetValue({ key: 'storageBytes', flag, kind: 'integer', min: 1, max: 2 ** 50, unit: 'bytes', description: '' }, String(raw));

/** create's budget: one flag per budget field, gathered into `budget`. */
const BUDGET_FLAGS: OptionSpec[] = BUDGET_FIELDS.map((f) => ({
  flags: `${f.flag} <${f.unit === 'bytes' ? 'bytes' : 'n'}>`,
  description: `${f.description} (${f.unit})`,
}));

/** The budget flag that fills each field of `budget` (create's and fork's). */
const BUDGET_WORDS: Readonly<Record<string, string>> = Object.fromEntries(BUDGET_FIELDS.map((f) => [`budget.${f.key}`, f.flag]));

function budgetFromOpts(opts: Opts): Record<string, number> {
  const budget: Record<string, number> = {};
  for (const field of BUDGET_FIELDS) {
    const key = field.flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[key] !== undefined) budget[field.key] = parseBudgetValue(field, String(opts[key]));
  }
  return budget;
}

/** create's merge gate (#14): the same settings review-policy takes, gathered into `reviewPolicy`. */
const REVIEW_FLAGS: OptionSpec[] = [
  {
    flags: '--deny-path <glob>',
    description: "merge gate: a glob no fork's settled output may touch, e.g. *.pem, .git/**, .env (repeatable)",
    repeatable: true,
  },
  { flags: '--max-change-files <n>', description: "merge gate: at most this many changed paths per fork's output" },
  { flags: '--max-change-bytes <bytes>', description: "merge gate: at most this many changed bytes per fork's output" },
];

/** The REVIEW_FLAGS flag that fills each field of create's `reviewPolicy`. */
const REVIEW_WORDS: Readonly<Record<string, string>> = {
  'reviewPolicy.denyPaths': '--deny-path',
  'reviewPolicy.maxFiles': '--max-change-files',
  'reviewPolicy.maxBytes': '--max-change-bytes',
};

function reviewPolicyFromOpts(opts: Opts): { reviewPolicy?: Record<string, unknown> } {
  const policy: Record<string, unknown> = {};
  if (opts.denyPath !== undefined) policy.denyPaths = ([] as string[]).concat(opts.denyPath as string | string[]);
  if (opts.maxChangeFiles !== undefined) policy.maxFiles = Number(opts.maxChangeFiles);
  if (opts.maxChangeBytes !== undefined) policy.maxBytes = byteCount(opts.maxChangeBytes as never, '--max-change-bytes');
  return Object.keys(policy).length ? { reviewPolicy: policy } : {};
}

function parseTtl(raw: never, flag: string): number {
  const text = String(raw);
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(value) || value <= 0) {
    throw new EngineError('BAD_ARGUMENT', `${flag} takes a positive number, not '${text.slice(0, 40)}'`, {
      hint: `for example ${flag} 3600 (seconds until the workspace expires and gc may remove it)`,
    });
  }
  return value;
}

/** A range of lines, A:B with 1 ≤ A ≤ B, refused here in the flag's own syntax: the engine's refusal can only say "from A to B". */
function parseRange(raw: never, flag: string): { from: number; to: number } {
  const match = /^(\d{1,9}):(\d{1,9})$/.exec(String(raw));
  const range = match ? { from: Number(match[1]), to: Number(match[2]) } : null;
  if (range === null || range.from < 1 || range.to < range.from)
    throw new EngineError('BAD_ARGUMENT', `${flag} takes A:B with 1 ≤ A ≤ B, not '${String(raw).slice(0, 40)}'`, { hint: `for example ${flag} 120:160` });
  return range;
}

/** plan and prepare: the manifest's path made absolute here (the engine never reads the process's directory), and the caller's environment for the manifest's env names. */
function manifestCall(input: Record<string, unknown>, _opts: Opts, io: CliIo): Record<string, unknown> {
  const env = Object.fromEntries(Object.entries(io.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return { ...input, file: resolve(io.cwd, String(input.file ?? 'headspace.yml')), env };
}

/** run's verification contract (#16): a --verify command is split into words here (no shell: see command-words.ts). */
const VERIFICATION_FLAGS: Readonly<Record<string, FlagOverride>> = {
  verify: {
    flags: '--verify <command>',
    description: 'a check run after the job, split into words without a shell (quote; for a shell: --verify "sh -c \'…\'"); must exit 0 (repeatable)',
    repeatable: true,
    parse: (raw: never) => (raw as string[]).map((text) => splitCommandWords(text, '--verify')),
  },
  expectFiles: {
    flags: '--expect-file <path[=sha256:hex]>',
    description: 'a workspace file the job must leave, with this sha256 when given (repeatable)',
    repeatable: true,
    parse: (raw: never) =>
      (raw as string[]).map((text) => {
        const eq = text.lastIndexOf('=sha256:');
        const hex = /=([0-9a-fA-F]{64})$/.exec(text);
        if (eq > 0) return { path: text.slice(0, eq), sha256: text.slice(eq + 1) };
        if (hex) return { path: text.slice(0, hex.index), sha256: hex[1]! };
        return { path: text };
      }),
  },
  expectOutput: {
    flags: '--expect-output <regex>',
    description: "an RE2 pattern that must match the job's kept output (linear time; repeatable)",
    repeatable: true,
    parse: (raw: never) => raw,
  },
};

const RECEIPT_PATHS = ['out', 'verifyFile', 'artifactsDir'] as const;

export const CLI_ADAPTERS: Readonly<Record<string, CliAdapter>> = {
  create: {
    args: [],
    flags: {
      profile: { flags: '--profile <name>', description: 'runtime profile (host: the host toolchains read-only)' },
      network: {
        flags: '--network <mode>',
        description:
          'disabled (the default), or allow=HOST[,HOST…] (repeatable; *.domain wildcards, :port, no port = 80 and 443): jobs reach only those hosts through the egress proxy; enabled is refused (exit 3)',
        repeatable: true,
        parse: (raw: never) => {
          const list = raw as string[];
          return list.length === 1 ? list[0] : list;
        },
      },
      hostPaths: { flags: '--allow-host-path <path>', description: 'expose a host path read-only (refused unless the provider can)', repeatable: true },
      ttlSeconds: { flags: '--ttl <seconds>', description: 'expire after this many seconds: then run is refused (exit 2) and gc removes it', parse: parseTtl },
      budget: null,
      reviewPolicy: null,
      rules: {
        flags: '--rule <rule>',
        description: "a supervision rule (repeatable): 'deny-command:WORDS', stuck:K[:block], error-rate:X/N[:block] (explain rules)",
        repeatable: true,
        parse: (raw: never) => raw,
      },
    },
    extra: [...BUDGET_FLAGS, ...REVIEW_FLAGS],
    complete: (input, opts) => ({ ...input, budget: budgetFromOpts(opts), ...reviewPolicyFromOpts(opts) }),
    inputWords: { ...BUDGET_WORDS, ...REVIEW_WORDS },
    explain:
      "Creates a workspace. The provider is probed and every limit that guards the isolation boundary (network, filesystem, memory, cpu, pids) must be enforceable, or create refuses with exit 3 before anything exists. Every limit is labelled enforced, measured or (on the fake) simulated in the result. Byte budgets accept K, M, G suffixes (powers of 1024). --network allow=HOST[,HOST…] (repeatable; *.domain, IP literals, :PORT, no port = 80 and 443) lets jobs reach only those hosts through the engine's egress proxy (HTTP_PROXY/HTTPS_PROXY/ALL_PROXY are set; no DNS or route otherwise); each job's result summarises every allowed and denied connection (network: …). Native enforces it, the fake simulates it (its fetch URL command), docker refuses it (exit 3).",
  },
  run: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['<command...>', 'argv'],
    ],
    flags: {
      cwd: { description: 'working directory, relative to the workspace root; must exist (--input and --declare paths stay relative to the workspace root)' },
      env: {
        flags: '--env <name>',
        description: "pass a variable's value from YOUR environment (the name is recorded, the value never; repeatable)",
        repeatable: true,
        parse: (raw: never) => raw,
      },
      // Filled by complete from --secret NAME@HOST: the value comes from the caller's environment, never a flag.
      secrets: null,
      inputs: {
        flags: '--input <name=host-path>',
        description: 'copy a host file or directory in before the job (never overwrites; repeatable)',
        repeatable: true,
        parse: (raw: never) =>
          (raw as string[]).map((text) => {
            const [destination, hostPath] = splitAssignment('--input', text, ['NAME', 'HOST_PATH']);
            return { destination, hostPath };
          }),
      },
      declares: {
        flags: '--declare <name=purpose>',
        description: 'declare an artifact the job will produce; only declared artifacts can be exported (repeatable)',
        repeatable: true,
        parse: (raw: never) =>
          (raw as string[]).map((text) => {
            const [name, purpose] = splitAssignment('--declare', text, ['NAME', 'PURPOSE']);
            return { name, purpose };
          }),
      },
      ...VERIFICATION_FLAGS,
    },
    extra: [
      { flags: '--env-file <path>', description: 'pass NAME=VALUE lines from a file (strict: no quotes, no export; repeatable)', repeatable: true },
      {
        flags: '--secret <name@host>',
        description:
          'NAME@HOST[:body]: the job gets a placeholder in NAME; the egress proxy puts the value (read from your environment) in its place only in HTTPS requests to HOST (repeatable; needs an allow-list)',
        repeatable: true,
      },
    ],
    // --env NAME takes the value from the caller's environment; the names and --env-file become the job's env.
    complete: (input, opts, io) => {
      const env = envFromFlags((input.env as string[] | undefined) ?? [], (opts.envFile as string[] | undefined) ?? [], io.env, io.cwd);
      // --secret NAME@HOST (#18 item 3): the value is read here, from the caller's environment, as --env NAME's is.
      const secrets = ((opts.secret as string[] | undefined) ?? []).map((spec) => secretFromFlag(spec, io.env));
      return { ...input, env, ...(secrets.length > 0 ? { secrets } : {}) };
    },
    explain:
      "Runs one command, with no shell, in the workspace, under its budgets. --cwd DIR runs it in /workspace/DIR (recorded in provenance; a DIR that is not a directory is refused, exit 1, before anything is recorded); --input and --declare paths stay relative to the workspace root whatever --cwd says, so an artifact has one name from run to export, and a declared artifact the job did not leave as a file is a warning naming where it was looked for. The wall clock and the output budget are enforced by headspace itself; memory, cpu and pids by the provider. The output budget caps capture, not the job: past it the log keeps the first bytes and the last lines around a marked gap, the rest is counted, the evidence is marked truncated, and the job runs on to its own exit status, which decides its status (the wall clock still bounds it). The result carries an excerpt of the output chosen for an agent (errors, failures, summaries, the final lines) and a command that returns the rest. The command line is recorded verbatim: never put a secret in it. Secrets go in with --env NAME (the value is read from your environment) or --env-file PATH: names are recorded, values never — in the result, the state store, the journal and the logs headspace writes. The edge: a job that prints its own environment (env, printenv, a traceback dumping os.environ) puts the value into its own captured output, which is kept and shown as evidence; that is the job's doing, and nothing here can unsee it. Values reach only this job; the next job does not see them. --secret NAME@HOST (repeatable) keeps a value from the job altogether: NAME is read from your environment as --env NAME is, the job gets a placeholder hs-secret-NAME-<random> instead, and the workspace's egress proxy puts the value in its place only in the header values of HTTPS requests to HOST (an allow-list pattern; NAME@HOST:body also in Content-Length request bodies up to 1 MiB). For that the proxy terminates the job's TLS to every allowed host with the workspace's own CA (its key never leaves HEADSPACE_HOME; the job trusts its certificate through SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE) and verifies each upstream's certificate normally; the placeholder sent to any other host, or over plain http, is blocked and reported by NAME in the result's network line, as are the substitutions. Refused with exit 3 before anything runs when the workspace has no allow-list, the allow-list does not cover HOST, or NAME is unset. The value is never recorded, and a detached run hands it over like an env value. A value HOST sends back (an echoed header, a CORS Origin reflected) is redacted before the job sees it: the placeholder in a response head, an equal-length mask in a body; every request of a job with secrets asks for no compression, and a compressed response is refused (502) on any of its tunnels. Verification (exit 0 is not task success): --verify 'CMD' (repeatable) runs CMD after the job in the same workspace, cwd, env and policy — split into words WITHOUT a shell (quotes only; an unquoted | & ; < > ( ) ` or $ is refused: write --verify \"sh -c '…'\" for a shell, which the profile must have) — and it must exit 0; --expect-file PATH[=sha256:HEX] needs a regular file there (with that digest); --expect-output REGEX needs a match in the job's kept output (RE2, linear time). Checks run only after a job that exited 0, and all of them share one time allowance equal to the workspace's wall clock, apart from the job's own. The job is success only when every check passes; a check that fails makes it failure (exit 6) with that check's evidence first; a check that cannot answer — its command not found (127) or not executable (126), killed by its time allowance, the memory budget or a signal, a pattern not found in output that was only partly kept, or an --expect-file reading as more than the storage budget (a sparse file counts whole) — is a verifier fault: status inconclusive, exit 9. Verdicts come from exit statuses, file bytes and the caller's patterns, never from what the job printed about itself. Checks are numbered as judged (--expect-output, then --expect-file, then --verify, each kind in the order given; mixed kinds also name a check's place among its kind, e.g. verify 2 of 2), and a verdict that did not pass suggests its next actions. The result carries provenance.verification (each check, its outcome, its evidence digest) and provenance.receipt_sha256 (see explain receipt). --detach returns at once with status running (exit 0) once the job is recorded: the home's shared supervisor (one background process per HEADSPACE_HOME, started by the first detached run, gone after HEADSPACE_SUPERVISOR_IDLE_MS, default 30000, with no job) runs it under the same budgets and writes its one terminal record, whatever happens to the caller (kill -9 included); the result names the job and the calls that follow it (wait, logs, stop), and env values travel to the supervisor over a private unix socket, never in a record. Exit codes: 0 success, 6 the command or a check failed (126 not executable, 127 not found), 9 inconclusive (a verifier fault), 4 wall clock, 5 cancelled by stop, 8 killed for memory, 3 refused by a supervision rule (explain rules), 7 the engine broke.",
  },
  stop: {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      apply: { description: 'really end the jobs (both this result and each stopped job read cancelled, exit 5)' },
      jobId: { description: "end only this job (its id is in every result's provenance.job_id); the workspace's other jobs run on" },
      graceSeconds: {
        flags: '--grace-seconds <n>',
        description: 'with --apply: seconds between SIGTERM and the kill of what remains (default 5; 0 kills at once)',
      },
    },
    explain:
      "Without --apply, stop reports what is running and touches nothing. With --apply it sends the job's processes SIGTERM, waits a grace (--grace-seconds, default 5) so a TERM handler can run — what it prints is kept in the job's output — then kills whatever remains, from any process, and returns only when nothing of the job remains; the job is recorded as cancelled, with its own end: the exit code of a TERM handler that exits within the grace, else the signal that ended it (SIGTERM, or SIGKILL after the grace). A workspace created with --concurrency N can run several jobs at once: stop ends all of them, or with --job-id only that one, and the others run on to their own end.",
  },
  inspect: {
    args: [['<handle>', 'handle']],
    extra: [
      {
        flags: '--logs',
        description: 'print the full captured output, unbounded (exact bytes when piped; on a terminal, control bytes shown as escapes; under --json, as text)',
      },
      { flags: '--raw', description: 'with --logs on a terminal, write control bytes as they are (they can act on the terminal)' },
    ],
    explain:
      "HANDLE is a workspace id or a job id. inspect exits 0 whenever the inspection worked: a job's own status (failure, timeout, …) is the result's status, not inspect's exit code. A workspace shows its lifecycle state and path, the provider's view, its jobs and the policy summary; a job shows its status, exit, usage and an excerpt. --logs prints everything the job(s) printed, as it was kept: byte for byte when stdout is a file or pipe; on a terminal, escape sequences and control bytes other than newline and tab (and bidi characters) are shown as escapes such as \\x1b, so job output cannot write the clipboard, retitle the window or plant links; --raw writes them as they are.",
  },
  logs: {
    args: [['<job>', 'jobId']],
    flags: {
      grep: { flags: '--grep <regex>', description: 'lines matching a regular expression (RE2 syntax: no backreferences or lookaround)' },
      lines: { flags: '--lines <a:b>', description: 'lines A to B (1-based, inclusive)', parse: parseRange },
    },
    explain:
      "Lets an agent drill into a long log without loading it: choose one view (--grep may be given --lines A:B to search only that range, which is how the matches of a long log are paged); each line of a view comes back with its number so the next call can ask for the lines around it. Without a view, logs JOB returns the excerpt a run's result carries (errors, failures, summaries, the final lines), unnumbered. --grep matches in linear time (RE2 syntax, so job output cannot make it hang): backreferences and lookaround are refused (exit 1), and only the first 65,536 characters of each line are searched.",
  },
  ls: { args: [], explain: 'Lists workspaces from the state store (no provider calls), with state, provider, purpose, owner and expiry.' },
  destroy: {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      force: { description: 'discard unexported declared artifacts and release sealed, unsettled outputs, naming each' },
      abandon: { description: 'when the provider fails the removal (exit 7), record the workspace destroyed anyway and leave what the provider holds' },
    },
    explain:
      'Removes the workspace along a fixed lifecycle path (e.g. ready -> cancelled -> destroyed) and reports what was removed, retained and unverified (on native, storage still being deleted in the background is listed as reclaiming; doctor finishes an interrupted reclaim), and the exports that survive it. It refuses (exit 1, WOULD_DISCARD), removing nothing, while declared artifacts are unexported or while sealed outputs it is the parent or the fork of are unsettled (--force discards those artifacts and releases those outputs, naming each). A running job must be stopped first (there is no running -> destroyed edge). A removal the provider fails (exit 7: its engine stopped, unreachable or silent) leaves the workspace recorded as it was, to destroy again once the provider answers; when it never will (that engine gone for good), --abandon records the workspace destroyed anyway, says what the provider failed, and lists its runtime and storage as unverified: whatever the provider holds of it is left where it is, and doctor names it, and removes it with --repair --apply, if that provider answers again. --abandon changes nothing when the removal succeeds or is refused for another reason, and is not offered over MCP.',
  },
  gc: {
    args: [],
    explain:
      "Marks every workspace past its expiry as expired and destroys it; a workspace with a running job is left alone and reported. A destroy its provider fails (exit 7) leaves that provider's other expired workspaces untried in this pass; all stay recorded for the next.",
  },
  doctor: {
    args: [['[file]', 'file']],
    flags: {
      repair: { description: 'plan repairs and list each one with why it is safe or a judgement call (a dry run: changes nothing)' },
      apply: { description: 'with --repair: make only the mechanically safe repairs, report the judgement calls skipped' },
      verify: { description: 'with --repair --apply: diagnose again afterwards and report what remains' },
      env: null,
    },
    complete: (input, opts, io) => (input.file === undefined ? input : manifestCall(input, opts, io)),
    explain:
      "Checks the state store (path, schema version, integrity), reports leftovers (unsettled intents, jobs whose process is gone, workspaces a provider no longer knows or still holds after their destroy, cgroups, processes, mounts and temporary files left by a killed operation, stray job logs) and each provider's probe; plain doctor changes nothing. --repair plans a repair for each leftover and lists it, marked safe or a judgement call, with the reason; it still changes nothing. --repair --apply makes only the safe ones: remove a leftover cgroup, process, mount or temporary file of a workspace with no live job or operation; settle an intent whose outcome the facts prove (the provider holds the workspace, the input is recorded, the published file has the artifact's digest); record a job whose process is gone as cancelled (a stop was requested) or infrastructure_failure, with a note; record a ready workspace its provider says is lost (a swarm node gone, its files with it) failed with the provider's reason, as a run meeting it would; remove at its provider a workspace the provider still holds though its record says destroyed (a destroy whose removal the provider could not verify), or though the store now records that id on another provider. A workspace a provider holds that the store has no record of is a judgement call, never removed. It never deletes the files of a workspace its record keeps live on that provider, or an unexported declared artifact: a destroy cut short is left to `headspace destroy`. --verify diagnoses again afterwards; exit 7 when a safe repair failed or remains, and whenever the default provider is not ready here (checks failing for one reason are one line, each remedy once, and the fake provider is named as the way to try headspace meanwhile). With FILE (a headspace.yml) it also reports that manifest's readiness, each of plan's checks (provider, policy, inputs, git refs, setup programs, env), read-only; a manifest that is not ready does not change the exit code (plan FILE shows the steps).",
  },
  put: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['<host-path>', 'hostPath'],
      ['<destination>', 'destination'],
    ],
    flags: {
      overwrite: {
        description: 'replace an existing destination: afterwards it holds exactly the source (files gone from a host directory go from the workspace too)',
      },
    },
    explain:
      'Copies a host file or directory in. Symlinks, devices, FIFOs and sockets in the source are refused by name; `..`, absolute and NUL destinations are refused; the storage budget is checked before anything is copied (exit 3 naming storage_bytes): the whole source must fit beside what the workspace holds, and with --overwrite the old destination still counts (its files are replaced one by one, so both take room until the copy ends; remove it first when they do not fit together). A directory is recorded with a manifest digest and its file count.',
  },
  declare: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['<name=purpose>', 'name'],
    ],
    flags: {
      remove: { description: 'withdraw the declaration of NAME (give NAME alone): a typo, or a file the job never made' },
      purpose: null,
    },
    // NAME=PURPOSE is one argument; with --remove a stray =PURPOSE is handed on, so the verb refuses it with the fix.
    complete: (input, opts) => {
      const raw = String(input.name);
      if (opts.remove !== true) {
        const [name, purpose] = splitAssignment('declare', raw, ['NAME', 'PURPOSE']);
        return { ...input, name, purpose };
      }
      const at = raw.indexOf('=');
      return at < 0 ? input : { ...input, name: raw.slice(0, at), purpose: raw.slice(at + 1) };
    },
    explain:
      'Only declared artifacts can leave a workspace. NAME is the workspace path as ls-files shows it (its text form, see `explain names`). A declared artifact that is not exported appears in attention on every verb, and makes destroy refuse until it is exported or discarded with --force. `declare W NAME --remove` withdraws a declaration that was never exported (the files are not touched); an exported artifact keeps its record.',
  },
  export: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['<name>', 'name'],
    ],
    flags: {
      to: { flags: '--to <host-path>', description: 'where to publish it (required)' },
      expectSha256: { flags: '--expect-sha256 <hex>', description: 'refuse unless the bytes have this digest' },
      overwrite: { description: 'replace an existing host file (never a symbolic link)' },
      maxBytes: {
        flags: '--max-bytes <n>',
        description: "refuse an artifact whose apparent size exceeds n bytes (K, M, G suffixes; default the workspace's storage budget)",
        parse: byteCount,
      },
    },
    explain:
      "NAME is the declared name as ls-files shows it (its text form, see `explain names`), resolved to the exact bytes of the file. Copies through a temporary file beside the destination, computing the digest during the copy, verifies it, and publishes by atomic rename: the destination holds the whole file or nothing. Zero blocks stay holes, so a sparse file takes only its data on the host. An undeclared name, a symlink or special file in the workspace, a digest mismatch, or an existing destination without --overwrite is refused (exit 1) and leaves nothing behind; so is a --to that is a symbolic link (even with --overwrite) or lies under /proc, /sys or /dev. An artifact whose apparent size exceeds the cap (the workspace's storage budget, or --max-bytes) is refused with exit 3; a destination filesystem without room for it, with exit 2.",
  },
  'ls-files': {
    args: [
      ['<workspace>', 'workspaceId'],
      ['[path]', 'path'],
    ],
    explain:
      'Lists files recursively under a path so an agent can find intermediate files it never declared, then declare and export them. Symlinks are listed, never followed. Each name is printed in its text form (see `explain names`): a byte that is not UTF-8 as \\xff, a backslash as \\\\, controls and invisible characters as escapes, so every entry is distinct and none reads as another; --json carries the same text as `path`, with `name_encoding: escaped` when it holds an escape. Pass a name exactly as shown to declare, export, put or ls-files PATH.',
  },
  probe: {
    args: [['[scenario]', 'scenario']],
    explain:
      "Creates a small dedicated workspace (128 MiB, 64 pids, 32 MiB /tmp, 20 s per job), runs one real escape attempt per scenario inside it — writing and reading outside the workspace, a host environment canary, the host loopback and an external address (a connect only), container-engine sockets, host paths in /proc, a planted symlink read back host-side, privilege (capabilities, user namespaces, mount, ptrace, the host uid), processes left after the job, file names built to spoof the host-side listing, a fork bomb, a memory hog, filling /tmp — judges each from facts gathered inside and on the host, then destroys the workspace and removes every canary. Each scenario reads contained, escaped (with evidence) or skipped (with the reason; never counted as contained). Status is success only when every scenario is contained; otherwise infrastructure_failure (exit 7), because isolation that does not hold is the engine's fault, never the command's. The fake provider isolates nothing and is refused (exit 3). `probe --list` names the scenarios and runs nothing: beside a scenario or --all it is refused (exit 1), as --last is. Every `probe --all` is recorded in the home (the newest ten per provider); `probe --last` (with --provider, that provider's) returns the newest as it was, with its status and exit code, led by when and by which build it was recorded, warns when that build is not this one, and runs nothing (exit 1 when none is recorded).",
  },
  watch: {
    args: [['<handle>', 'handle']],
    flags: {
      forSeconds: { flags: '--for <seconds>', description: 'watch for at most this many seconds (required)' },
      everySeconds: { flags: '--every <seconds>', description: 'seconds between samples (default 5)' },
      requireRunning: { description: 'a violation (not_running) when no job runs' },
      requireProgress: { description: 'a violation (progress_stale) when a running job makes no progress for --progress-timeout' },
      progressTimeoutSeconds: {
        flags: '--progress-timeout <seconds>',
        description: 'with --require-progress: seconds without new output or storage change (default 60)',
      },
    },
    explain:
      "HANDLE is a workspace id (its running job, else its latest) or a job id. Every --every seconds, for at most --for seconds, watch takes a sample: state, cpu seconds so far, memory, pids, storage, output bytes kept and the last output time (cpu, memory and pids where the provider can read them: native and docker read the workspace's cgroup, so they are the workspace's, every job it ran counted, shown as 'workspace cpu'; a job's own cpu is in its result; the fake simulates memory and pids). Under --json each sample is one JSON line on stdout and the report is the last line; on a terminal each sample is a compact line on stderr. The first violation ends the watch: not_running (--require-running and no job runs), progress_stale (--require-progress and a running job printed nothing new and changed no workspace storage for --progress-timeout seconds), budget_near (memory, storage, output or the job's wall clock at 90% of its budget), runtime_unhealthy (the workspace is recorded live but the provider no longer knows it or cannot be asked, or a job is recorded running but its process is gone). Exit codes: 0 no violation until --for ran out, 6 a violation (its code is in the report's key findings), 5 interrupted (Ctrl-C ends the watch with the report so far). Every sample and the report are also written, one JSON line each, to watch/HANDLE-TRACE.jsonl under HEADSPACE_HOME; the report names the file.",
  },
  status: {
    args: [['[workspace]', 'workspaceId']],
    flags: {
      manifestDir: {
        flags: '--manifest-dir <dir>',
        description: 'without WORKSPACE: look for headspace.yml here and in its parents (default: the current directory)',
      },
    },
    // The engine never reads the process's directory: the CLI passes its own.
    complete: (input, _opts, io) => (input.workspaceId === undefined ? { ...input, manifestDir: resolve(io.cwd, String(input.manifestDir ?? '.')) } : input),
    explain:
      'Answers "where am I" in a few lines: the workspace\'s state and provider, how many jobs it has and how many run, its latest job (status, exit code, start) with the last lines of its output, and what needs attention. Without WORKSPACE it first looks for headspace.yml in the current directory (or --manifest-dir) and its parents: the nearest directory with a manifest, or with manifests workspaces were prepared from, decides; one live workspace there is the answer, several are refused listing them (exit 1), and a manifest not yet prepared says so. With no manifest anywhere up the tree it picks the live workspace used most recently (its latest job, else its creation) and says how many others are live; with none, it says so and suggests create. It reads the state store only (no provider call), so it is cheap to ask often; inspect gives the whole picture.',
  },
  plan: {
    args: [['[file]', 'file']],
    flags: { env: null },
    complete: manifestCall,
    explain:
      "Reads FILE (default ./headspace.yml, schema headspace.workspace/v1) and prints what prepare would do: the workspace it creates and its policy, each copy with its size and sha256, the artifacts it declares, the setup commands it runs. It also reports ready: true|false with each readiness check (the provider ready, the policy enforceable, each input readable and within the storage budget, each git ref resolvable, each setup and verify command's program (argv[0]) on the profile's PATH, each env name set, each env file readable): plan is the manifest's doctor. The verify section's checks are listed as steps, each naming the job it is judged after. A program named by a path is not looked up, nor what a shell runs in turn. With a receipt from an earlier prepare it says whether prepare would do nothing or refuse, naming what changed. It changes nothing, and exits 0 whether ready or not; a manifest it refuses (unknown key, wrong type, a path with '..', absolute or through a symbolic link) exits 1 naming the key path and the line. The manifest's env values come from your environment and are never recorded.",
  },
  wait: {
    args: [['<jobs...>', 'jobIds']],
    flags: {
      any: { description: 'end when the first job ends (default: when all have)' },
      timeoutSeconds: { flags: '--timeout <seconds>', description: 'give up after this many seconds: exit 4, the jobs run on' },
    },
    extra: [{ flags: '--all', description: 'end when every job has ended (the default)' }],
    complete: (input, opts) => {
      if (opts.all === true && input.any === true)
        throw new EngineError('BAD_ARGUMENT', 'choose --any or --all, not both', { hint: 'omit both to wait for all' });
      return input;
    },
    explain:
      "JOBS are job ids that run --detach returned. wait reads their records until every one has ended (--all, the default) or the first has (--any), and returns the result a foreground run returns for that job: the same status, exit code and output excerpt; for several jobs, one result listing each job's status, whose status is the first job's that did not succeed. --timeout S gives up after S seconds with what is known (status timeout, exit 4) and leaves the jobs running; Ctrl-C ends the wait the same way (exit 5). A job whose supervisor died without recording its end will not end by itself: wait says so within a second (exit 7) and names doctor --repair, which settles it. Waiting changes nothing. Exit codes: those of the job's status (0 success, 6 failed, 4 wall clock, 5 cancelled, 8 memory, 7 the engine broke), 4 when the wait timed out, 7 when a job's supervisor is gone.",
  },
  checkpoint: {
    args: [['<workspace>', 'workspaceId']],
    flags: { label: { flags: '--label <text>', description: 'one line saying what state this is' } },
    explain:
      "Freezes the workspace's files as a checkpoint and prints its id (cp-…), recorded with its label, time, file count, bytes and content digest; inspect lists a workspace's checkpoints. Refused while a job runs (exit 2 naming it). Needs a provider whose capabilities list snapshots (native, fake); on any other it is refused with exit 3 naming the capability, before anything is done. A checkpoint digests every byte a changed file reads as: on native, one that would read more than the storage budget (a sparse file counts whole; hard links to one file count once), or handle more than 64 MiB of path text (a tree built deep with long names) or more entries than twice the files its images hold (hard links take no inode), is refused with exit 3 naming the path, before anything changes. On native, rename(2) of a directory that came from a checkpoint answers EXDEV (Invalid cross-device link): mv falls back to copying it, and diff then lists the move as the old paths deleted and the new ones created.",
  },
  restore: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['<checkpoint>', 'checkpointId'],
    ],
    flags: { consume: { description: 'make the checkpoint single-use: a second restore of it is refused (exit 2)' } },
    explain:
      "Makes the workspace's files exactly the checkpoint's: modified files back, new files gone, deleted files back, modes and symbolic links (as links) included. Checkpoints are reusable; --consume makes this one single-use. Refused while a job runs (exit 2 naming the job), and for a checkpoint whose data is gone or does not verify (it reads invalid in inspect and is never restored; exit 2).",
  },
  diff: {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      from: { flags: '--from <checkpoint>', description: 'compare with this checkpoint' },
      sinceFork: { description: 'compare with the fork baseline (the default for a fork)' },
      patch: { description: 'add unified diffs of changed text files (binary files are named, not shown)' },
      limit: { flags: '--limit <n>', description: 'at most this many changes (default 50, at most 1000)' },
      offset: { flags: '--offset <n>', description: 'skip this many changes first (the marker of a longer diff gives it)' },
    },
    explain:
      'Lists each created, modified and deleted path since --from CHECKPOINT (default: the fork baseline of a fork, else the latest checkpoint) with its size, sha256 and mode, in path order. The list is bounded (--limit); when more follow, a marker says so and suggests the call for the next page. --patch adds a unified diff of each changed text file, at most 16,000 characters in all (a file over 256 KiB or a binary file is named, not shown). The summary and a diff-totals finding count the whole diff (changes by kind, bytes of new content) on every page, and say which changes the page shows.',
  },
  fork: {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      count: { flags: '--count <n>', description: 'how many forks (default 1, at most 16)' },
      workspaceIds: { flags: '--workspace-id <id>', description: "choose a fork's id (repeatable)", repeatable: true, parse: (raw: never) => raw },
      at: { flags: '--at <checkpoint>', description: 'fork from this checkpoint (the only way while a job runs)' },
      budget: null,
    },
    extra: BUDGET_FLAGS,
    inputWords: BUDGET_WORDS,
    complete: (input, opts) => {
      const budget = budgetFromOpts(opts);
      return Object.keys(budget).length === 0 ? input : { ...input, budget };
    },
    explain:
      "Makes N new workspaces whose files are exactly the parent's at that instant (the engine checkpoints the parent first) or at --at CHECKPOINT, each with the parent's policy and its own job identity. Budget flags may narrow a fork's budget, never widen it (exit 3). inspect shows the link both ways and the fork baseline (the parent's checkpoint and its digest). A fork of a workspace with a running job is refused (exit 2) unless --at; a fork of a workspace past its expiry (--ttl) is refused (exit 2, WORKSPACE_EXPIRED) before anything is made, since a fork inherits its parent's expiry.",
  },
  seal: {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      exclude: {
        flags: '--exclude <glob>',
        description: "leave out paths matching a glob, or under a directory matching it (a run's byproducts: __pycache__, *.pyc, report.xml); repeatable",
        repeatable: true,
        parse: (raw: never) => raw,
      },
    },
    explain:
      "Freezes a fork's changes against its fork baseline into an output (out-…): each path, its kind (create, modify, delete), digest and mode, and a checkpoint of the fork that holds the bytes, so what settles is what was sealed whatever the fork does next. --exclude GLOB (repeatable; `*` within a name, `**` across names, a glob without / matches a name at any depth) leaves out each change whose path, or a directory above it, matches: a run's byproducts (__pycache__, *.pyc, test reports) that would otherwise conflict on apply; the result counts and names what was left out, which stays in the fork (a deleted directory still goes whole). A fork holds one unsettled output: sealing again unchanged returns it, changed since is refused (exit 2) until that output is settled or released. A fork settles back at most once: after a select or apply of its output, seal is refused (exit 2, ALREADY_SETTLED) and points at a fresh fork of the parent; after a release it may seal again. Refused while a job runs in the fork.",
  },
  settle: {
    args: [
      ['<output>', 'outputId'],
      ['<decision>', 'decision'],
    ],
    explain:
      "Consumes a sealed output exactly once. select: only while the parent has not changed since the fork baseline (else exit 2 pointing at apply). apply: three-way onto a parent that moved; paths both sides changed are refused by name (exit 2) and the output stays unconsumed, unless both left a path exactly alike (the same bytes and mode, or both deleted it). A file reading as more than 256 MiB (read whole by the engine), or files together reading as more than the parent's storage budget (a sparse file lands whole), are refused with exit 3 before anything is consumed. release: consumed without touching the parent. discard: consumed and the fork destroyed; refused (exit 1, WOULD_DISCARD, nothing settled) while the fork holds declared artifacts never exported, named (export them, release instead, or destroy the fork with --force). Before select or apply the parent's merge gate runs (review-policy): each reviewer's decision (proposal digest, paths, kinds, verdict, reason — never file bodies) is journalled and shown; a denial (exit 3) names the paths and the rule and consumes nothing. A second settle is refused (exit 2) naming the first decision. The settle is journalled: after a crash doctor --repair rolls a select or apply back (the output stays unconsumed) and finishes a release or discard.",
  },
  'review-policy': {
    args: [['<workspace>', 'workspaceId']],
    flags: {
      denyPaths: {
        flags: '--deny-path <glob>',
        description: 'a glob no settled output may touch, e.g. *.pem, .git/**, .env (repeatable; replaces the list)',
        repeatable: true,
        parse: (raw: never) => raw,
      },
      maxFiles: { flags: '--max-files <n>', description: 'at most this many changed paths per output' },
      maxBytes: { flags: '--max-bytes <n>', description: 'at most this many changed bytes per output (K, M, G suffixes)', parse: byteCount },
    },
    explain:
      'Sets the merge gate an output passes before select or apply changes this workspace: the deny-paths reviewer refuses an output touching a path matching a glob (`*` within a name, `**` across names; a glob without / matches a name at any depth), the max-changes reviewer one changing more paths or bytes than allowed. Forks inherit it. Without settings it shows the gate; --clear removes it. Not offered over MCP: the gate guards a workspace against what its forks propose.',
  },
  prepare: {
    args: [['[file]', 'file']],
    flags: {
      env: null,
      recreate: { description: 'destroy a workspace whose manifest or inputs changed (discarding unexported artifacts) and prepare it anew' },
    },
    complete: manifestCall,
    explain:
      "The only verb that materialises a manifest: it creates the workspace, copies each input in, declares the artifacts and runs the setup commands in order, then records a receipt (manifest digest, input digests) under HEADSPACE_HOME/receipts. Every refusal comes before anything is made: a bad manifest (exit 1, naming the key path and line), a readiness check that fails (the check's own exit code: a missing input 1, a policy the provider cannot enforce 3, a provider not ready 2 or 7). Again with nothing changed it does nothing and says so by digest. A repository whose ref moved forward (a fast-forward) is updated in place, untracked files kept and setup not run again; a clone a job left dirty (a tracked file changed or gone, HEAD moved) is refused (exit 1) naming the files. Any other change is refused (exit 1) naming what changed, unless --recreate. A remote URL's password is never shown or recorded (***). A setup command that fails ends prepare with its status and exit code, leaving the workspace for inspection and no receipt: prepare --recreate starts over. The verify section (command:, file: with an optional sha256:, output:, as run's --verify, --expect-file, --expect-output) is the verification contract of the last setup command's job (of a no-op job, true, when there is none; an output check then is refused): prepare succeeds only when every check passes, exits 6 (failure) when one fails and 9 (inconclusive) when one reaches no verdict; either way setup is done, the receipt records each check's outcome and evidence digest, and the workspace stays. A second prepare with nothing changed does not judge the checks again; when only the verify section changed, or the recorded verdict did not pass, it judges them again after a no-op job, recreating nothing and not running setup (a section with an output check needs --recreate then, since only setup makes that output). Env values come from your environment (the manifest's env names) and env files; they reach the setup jobs and are never recorded.",
  },
  ...EVENTS_CLI_ADAPTERS,
  ...BATCH_CLI_ADAPTERS,
  receipt: {
    args: [
      ['[job]', 'jobId'],
      ['[file]', 'verifyFile'],
    ],
    flags: {
      verifyFile: null,
      out: { flags: '--out <file>', description: 'also write the receipt file (canonical JSON) for offline verification; an existing file is refused' },
      overwrite: { description: 'with --out: replace a file already there' },
      artifactsDir: { flags: '--artifacts <dir>', description: "with verify: a directory holding the receipt's exported artifacts, each re-hashed" },
      expectSha256: { flags: '--expect-sha256 <hex>', description: "with verify: the receipt's sha256 pinned earlier (provenance.receipt_sha256 of the run)" },
      version: { flags: '--version-number <n>', description: 'an earlier version of the receipt (each export issues the next)' },
    },
    // The file to verify is the argument after the word verify (complete below), not a flag.
    inputWords: { verifyFile: 'verify FILE', jobId: 'JOB' },
    // `receipt verify FILE` is the offline check; `receipt JOB` the job's receipt. Host paths are made absolute here: the engine never reads the process's directory.
    complete: (input, _opts, io) => {
      const out: Record<string, unknown> = { ...input };
      if (out.jobId === 'verify' && out.verifyFile === undefined)
        throw new EngineError('BAD_ARGUMENT', 'receipt verify needs the receipt FILE', { hint: 'receipt verify FILE [--artifacts DIR] [--expect-sha256 HEX]' });
      if (out.jobId === 'verify') delete out.jobId;
      else if (out.verifyFile !== undefined)
        throw new EngineError('BAD_ARGUMENT', 'receipt takes one job id, or verify FILE', {
          hint: 'receipt JOB [--out FILE], or receipt verify FILE [--artifacts DIR]',
        });
      for (const key of RECEIPT_PATHS) if (typeof out[key] === 'string') out[key] = resolve(io.cwd, out[key]);
      return out;
    },
    explain:
      "Every job that ends gets a receipt: a canonical JSON document (keys sorted at every level, no whitespace, UTF-8) binding the workspace and job ids, the command's digest (argv and cwd), the policy digest, the runtime environment digest, the NAMES of the env variables given (never a value, nor a digest of one: a digest of a short secret could be guessed back), the inputs' digests, the verification verdict of each check with its evidence digest, the digest of the kept output with its byte counts, the exported artifacts' digests, the times and the status — and the sha256 of that document. No field is taken from the job's output, so a job cannot forge its receipt by printing one. `receipt JOB` shows it (latest version; --version-number N for an earlier one) and --out FILE writes the file form, {receipt, sha256}, itself canonical. An export of one of the job's artifacts (declared by its run --declare; one declared by the declare verb belongs to the workspace's latest finished job) issues the next version, with the artifact added and previous_sha256 naming the version before; none is ever rewritten. `receipt verify FILE` checks a file offline (no state needed): the receipt's canonical bytes must hash to the sha256 it carries, and with --artifacts DIR each exported artifact, looked for as DIR/NAME then DIR/<base name of where it was exported>, must have the bound size and sha256. A self-consistent rewrite of both receipt and digest is caught only against a digest you pinned: pass --expect-sha256 with the run's provenance.receipt_sha256. Exit 0 when everything verifies, 6 when anything does not.",
  },
  rules: {
    args: [
      ['<workspace>', 'workspaceId'],
      ['[action]', 'action'],
      ['[rule]', 'rule'],
    ],
    explain:
      "A workspace's supervision rules: `rules WS` lists them with the latest decisions, `rules WS add RULE`, `rules WS remove RULE`, `rules WS clear` (create --rule RULE adds them at create). deny-command:WORDS refuses, with exit 3 before anything is recorded or started (no job, no process, no cgroup), a job whose program is WORDS[0] — compared with argv[0] and with its base name, so /usr/bin/rm is rm — and whose arguments include each further word in any position; words are globs (* and ?). It does not look inside a shell's script (sh -c '…' is the program sh with one string argument: deny sh to keep scripts out; a job run through a shell in a workspace with deny rules carries a warning that its script was not inspected), and not through wrappers (env, nice, timeout, busybox, an interpreter): deny those too when it matters. stuck:K fires when the same command (argv and cwd) failed the same way (status, exit code, signal) K times in a row; error-rate:X/N when X or more of the last N jobs failed; failed means any end but success and cancelled, counted among jobs started since the rule was added or last cleared. A rule that fires is an attention item of the job's result; with :block it also trips, and every further run is refused (exit 3, naming the rule) until `rules WS clear`, which untrips and restarts counting. Every decision (denied, fired, tripped, blocked, added, removed, cleared) is journalled in the state store with the engine call's trace id. Rules are not offered over MCP: an agent must not lift its own supervision (it may add rules at create).",
  },
};
