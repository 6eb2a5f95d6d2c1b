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
import { envFromFlags, splitAssignment } from './run-inputs.js';

export type Opts = Record<string, unknown>;

/** A flag whose spelling, words or parsing differ from what the input key and its schema give. */
export interface FlagOverride {
  flags?: string;
  description?: string;
  /** The flag's value (a list for a repeatable flag) → the input value. */
  parse?: (raw: never, flag: string) => unknown;
  repeatable?: boolean;
}

export interface CliAdapter {
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
}

const byteCount = (raw: never, flag: string) =>
  parseBudgetValue({ key: 'storageBytes', flag, kind: 'integer', min: 1, max: 2 ** 50, unit: 'bytes', description: '' }, String(raw));

/** create's budget: one flag per budget field, gathered into `budget`. */
const BUDGET_FLAGS: OptionSpec[] = BUDGET_FIELDS.map((f) => ({
  flags: `${f.flag} <${f.unit === 'bytes' ? 'bytes' : 'n'}>`,
  description: `${f.description} (${f.unit})`,
}));

function budgetFromOpts(opts: Opts): Record<string, number> {
  const budget: Record<string, number> = {};
  for (const field of BUDGET_FIELDS) {
    const key = field.flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[key] !== undefined) budget[field.key] = parseBudgetValue(field, String(opts[key]));
  }
  return budget;
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

/**
 * `run --secret NAME@HOST` (#18 item 3: the job holding only a placeholder the
 * egress proxy swaps for the value) is not built. Refused before anything
 * runs, so no caller believes a secret is hidden from the job when it is not.
 */
function secretsNotBuilt(): EngineError {
  return new EngineError(
    'POLICY_DENIED',
    'run --secret is not built: headspace cannot yet keep a secret from the job while letting it use the secret at egress',
    {
      hint: 'pass the value with --env NAME (the job then holds the real value; the name is recorded, the value never), or leave it out',
    },
  );
}

function parseRange(raw: never, flag: string): { from: number; to: number } {
  const match = /^(\d{1,9}):(\d{1,9})$/.exec(String(raw));
  if (!match) throw new EngineError('BAD_ARGUMENT', `${flag} takes A:B, not '${String(raw).slice(0, 40)}'`, { hint: `for example ${flag} 120:160` });
  return { from: Number(match[1]), to: Number(match[2]) };
}

/** plan and prepare: the manifest's path made absolute here (the engine never reads the process's directory), and the caller's environment for the manifest's env names. */
function manifestCall(input: Record<string, unknown>, _opts: Opts, io: CliIo): Record<string, unknown> {
  const env = Object.fromEntries(Object.entries(io.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return { ...input, file: resolve(String(input.file ?? 'headspace.yml')), env };
}

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
    },
    extra: BUDGET_FLAGS,
    complete: (input, opts) => ({ ...input, budget: budgetFromOpts(opts) }),
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
    },
    extra: [
      { flags: '--env-file <path>', description: 'pass NAME=VALUE lines from a file (strict: no quotes, no export; repeatable)', repeatable: true },
      {
        flags: '--secret <name@host>',
        description: 'not built yet: refused (exit 3); secrets substituted at egress are planned (#18 item 3)',
        repeatable: true,
      },
    ],
    // --env NAME takes the value from the caller's environment; the names and --env-file become the job's env.
    complete: (input, opts, io) => {
      if (opts.secret !== undefined) throw secretsNotBuilt();
      return { ...input, env: envFromFlags((input.env as string[] | undefined) ?? [], (opts.envFile as string[] | undefined) ?? [], io.env) };
    },
    explain:
      "Runs one command, with no shell, in the workspace, under its budgets. --cwd DIR runs it in /workspace/DIR (recorded in provenance; a DIR that is not a directory is refused, exit 1, before anything is recorded); --input and --declare paths stay relative to the workspace root whatever --cwd says, so an artifact has one name from run to export, and a declared artifact the job did not leave as a file is a warning naming where it was looked for. The wall clock and the output budget are enforced by headspace itself; memory, cpu and pids by the provider. The output budget caps capture, not the job: past it output is counted but not kept, the evidence is marked truncated, and the job runs on to its own exit status, which decides its status (the wall clock still bounds it). The result carries an excerpt of the output chosen for an agent (errors, failures, summaries, the final lines) and a command that returns the rest. The command line is recorded verbatim: never put a secret in it. Secrets go in with --env NAME (the value is read from your environment) or --env-file PATH: names are recorded, values never — in the result, the state store, the journal and the logs headspace writes. The edge: a job that prints its own environment (env, printenv, a traceback dumping os.environ) puts the value into its own captured output, which is kept and shown as evidence; that is the job's doing, and nothing here can unsee it. Values reach only this job; the next job does not see them. Exit codes: 0 success, 6 the command failed (126 not executable, 127 not found), 4 wall clock, 5 cancelled by stop, 8 killed for memory, 7 the engine broke.",
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
      "Without --apply, stop reports what is running and touches nothing. With --apply it sends the job's processes SIGTERM, waits a grace (--grace-seconds, default 5) so a TERM handler can run — what it prints is kept in the job's output — then kills whatever remains, from any process, and returns only when nothing of the job remains; the job is recorded as cancelled. A workspace created with --concurrency N can run several jobs at once: stop ends all of them, or with --job-id only that one, and the others run on to their own end.",
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
      'Lets an agent drill into a long log without loading it: choose one view; each line comes back with its number so the next call can ask for the lines around it. --grep matches in linear time (RE2 syntax, so job output cannot make it hang): backreferences and lookaround are refused (exit 1), and only the first 65,536 characters of each line are searched.',
  },
  ls: { args: [], explain: 'Lists workspaces from the state store (no provider calls), with state, provider, purpose, owner and expiry.' },
  destroy: {
    args: [['<workspace>', 'workspaceId']],
    flags: { force: { description: 'discard unexported declared artifacts, naming each' } },
    explain:
      'Removes the workspace along a fixed lifecycle path (e.g. ready -> cancelled -> destroyed) and reports what was removed, retained and unverified, and the exports that survive it. It refuses, removing nothing, while declared artifacts are unexported (--force discards them and names each). A running job must be stopped first (there is no running -> destroyed edge).',
  },
  gc: { args: [], explain: 'Marks every workspace past its expiry as expired and destroys it; a workspace with a running job is left alone and reported.' },
  doctor: {
    args: [],
    flags: {
      repair: { description: 'plan repairs and list each one with why it is safe or a judgement call (a dry run: changes nothing)' },
      apply: { description: 'with --repair: make only the mechanically safe repairs, report the judgement calls skipped' },
      verify: { description: 'with --repair --apply: diagnose again afterwards and report what remains' },
    },
    explain:
      "Checks the state store (path, schema version, integrity), reports leftovers (unsettled intents, jobs whose process is gone, workspaces a provider no longer knows, cgroups, processes, mounts and temporary files left by a killed operation, stray job logs) and each provider's probe; plain doctor changes nothing. --repair plans a repair for each leftover and lists it, marked safe or a judgement call, with the reason; it still changes nothing. --repair --apply makes only the safe ones: remove a leftover cgroup, process, mount or temporary file of a workspace with no live job or operation; settle an intent whose outcome the facts prove (the provider holds the workspace, the input is recorded, the published file has the artifact's digest); record a job whose process is gone as cancelled (a stop was requested) or infrastructure_failure, with a note. It never deletes a workspace's files or an unexported declared artifact: a destroy cut short is left to `headspace destroy`. --verify diagnoses again afterwards; exit 7 when a safe repair failed or remains, and whenever the default provider is not ready here (checks failing for one reason are one line, each remedy once, and the fake provider is named as the way to try headspace meanwhile).",
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
      'Copies a host file or directory in. Symlinks, devices, FIFOs and sockets in the source are refused by name; `..`, absolute and NUL destinations are refused; the storage budget is checked before anything is copied (exit 3 naming storage_bytes). A directory is recorded with a manifest digest and its file count.',
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
      "Creates a small dedicated workspace (128 MiB, 64 pids, 32 MiB /tmp, 20 s per job), runs one real escape attempt per scenario inside it — writing and reading outside the workspace, a host environment canary, the host loopback and an external address (a connect only), container-engine sockets, host paths in /proc, a planted symlink read back host-side, privilege (capabilities, user namespaces, mount, ptrace, the host uid), processes left after the job, file names built to spoof the host-side listing, a fork bomb, a memory hog, filling /tmp — judges each from facts gathered inside and on the host, then destroys the workspace and removes every canary. Each scenario reads contained, escaped (with evidence) or skipped (with the reason; never counted as contained). Status is success only when every scenario is contained; otherwise infrastructure_failure (exit 7), because isolation that does not hold is the engine's fault, never the command's. The fake provider isolates nothing and is refused (exit 3). `probe --list` names the scenarios.",
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
      "HANDLE is a workspace id (its running job, else its latest) or a job id. Every --every seconds, for at most --for seconds, watch takes a sample: state, cpu seconds so far, memory, pids, storage, output bytes kept and the last output time (cpu, memory and pids where the provider can read them: native reads its cgroup; the fake simulates memory and pids; docker reports none yet). Under --json each sample is one JSON line on stdout and the report is the last line; on a terminal each sample is a compact line on stderr. The first violation ends the watch: not_running (--require-running and no job runs), progress_stale (--require-progress and a running job printed nothing new and changed no workspace storage for --progress-timeout seconds), budget_near (memory, storage, output or the job's wall clock at 90% of its budget), runtime_unhealthy (the workspace is recorded live but the provider no longer knows it or cannot be asked, or a job is recorded running but its process is gone). Exit codes: 0 no violation until --for ran out, 6 a violation (its code is in the report's key findings), 5 interrupted (Ctrl-C ends the watch with the report so far). Every sample and the report are also written, one JSON line each, to watch/HANDLE-TRACE.jsonl under HEADSPACE_HOME; the report names the file.",
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
    complete: (input) => (input.workspaceId === undefined ? { ...input, manifestDir: resolve(String(input.manifestDir ?? '.')) } : input),
    explain:
      'Answers "where am I" in a few lines: the workspace\'s state and provider, how many jobs it has and how many run, its latest job (status, exit code, start) with the last lines of its output, and what needs attention. Without WORKSPACE it first looks for headspace.yml in the current directory (or --manifest-dir) and its parents: the nearest directory with a manifest, or with manifests workspaces were prepared from, decides; one live workspace there is the answer, several are refused listing them (exit 1), and a manifest not yet prepared says so. With no manifest anywhere up the tree it picks the live workspace used most recently (its latest job, else its creation) and says how many others are live; with none, it says so and suggests create. It reads the state store only (no provider call), so it is cheap to ask often; inspect gives the whole picture.',
  },
  plan: {
    args: [['[file]', 'file']],
    flags: { env: null },
    complete: manifestCall,
    explain:
      "Reads FILE (default ./headspace.yml, schema headspace.workspace/v1) and prints what prepare would do: the workspace it creates and its policy, each copy with its size and sha256, the artifacts it declares, the setup commands it runs. It also reports ready: true|false with each readiness check (the provider ready, the policy enforceable, each input readable and within the storage budget, each env name set, each env file readable): plan is the manifest's doctor. With a receipt from an earlier prepare it says whether prepare would do nothing or refuse, naming what changed. It changes nothing, and exits 0 whether ready or not; a manifest it refuses (unknown key, wrong type, a path with '..', absolute or through a symbolic link) exits 1 naming the key path and the line. The manifest's env values come from your environment and are never recorded.",
  },
  prepare: {
    args: [['[file]', 'file']],
    flags: {
      env: null,
      recreate: { description: 'destroy a workspace whose manifest or inputs changed (discarding unexported artifacts) and prepare it anew' },
    },
    complete: manifestCall,
    explain:
      "The only verb that materialises a manifest: it creates the workspace, copies each input in, declares the artifacts and runs the setup commands in order, then records a receipt (manifest digest, input digests) under HEADSPACE_HOME/receipts. Every refusal comes before anything is made: a bad manifest (exit 1, naming the key path and line), a readiness check that fails (the check's own exit code: a missing input 1, a policy the provider cannot enforce 3, a provider not ready 2 or 7). Again with nothing changed it does nothing and says so by digest; a changed manifest or input is refused (exit 1) naming what changed, unless --recreate. A setup command that fails ends prepare with its status and exit code, leaving the workspace for inspection and no receipt: prepare --recreate starts over. Env values come from your environment (the manifest's env names) and env files; they reach the setup jobs and are never recorded.",
  },
};
