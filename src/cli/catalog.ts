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
      { flags: '--network <mode>', description: 'disabled (the default and, today, the only mode given): enabled is refused (exit 3), as no provider offers open network; an allow-list is planned as allow=HOST' },
      { flags: '--allow-host-path <path>', description: 'expose a host path read-only (refused unless the provider can)', repeatable: true },
      { flags: '--purpose <text>', description: 'why the workspace exists (shown by ls and inspect)' },
      { flags: '--owner <name>', description: 'who owns it' },
      { flags: '--ttl <seconds>', description: 'expire after this many seconds: then run is refused (exit 2) and gc removes it' },
      ...BUDGET_FIELDS.map((f) => ({ flags: `${f.flag} <${f.unit === 'bytes' ? 'bytes' : 'n'}>`, description: `${f.description} (${f.unit})` })),
    ],
    explain:
      'Creates a workspace. The provider is probed and every limit that guards the isolation boundary (network, filesystem, memory, cpu, pids) must be enforceable, or create refuses with exit 3 before anything exists. Every limit is labelled enforced, measured or (on the fake) simulated in the result. Byte budgets accept K, M, G suffixes (powers of 1024).',
  },
  {
    name: 'run',
    args: ['<workspace>', '<command...>'],
    group: 'lifecycle',
    summary: 'run one command in a workspace; flags go before the workspace id, everything after it is the command',
    options: [
      { flags: '--job-id <id>', description: 'choose the job id' },
      { flags: '--cwd <path>', description: 'working directory, relative to the workspace root; must exist (--input and --declare paths stay relative to the workspace root)' },
      { flags: '--input <name=host-path>', description: 'copy a host file or directory in before the job (never overwrites; repeatable)', repeatable: true },
      { flags: '--env <name>', description: "pass a variable's value from YOUR environment (the name is recorded, the value never; repeatable)", repeatable: true },
      { flags: '--env-file <path>', description: 'pass NAME=VALUE lines from a file (strict: no quotes, no export; repeatable)', repeatable: true },
      { flags: '--declare <name=purpose>', description: 'declare an artifact the job will produce; only declared artifacts can be exported (repeatable)', repeatable: true },
    ],
    explain:
      'Runs one command, with no shell, in the workspace, under its budgets. --cwd DIR runs it in /workspace/DIR (recorded in provenance; a DIR that is not a directory is refused, exit 1, before anything is recorded); --input and --declare paths stay relative to the workspace root whatever --cwd says, so an artifact has one name from run to export, and a declared artifact the job did not leave as a file is a warning naming where it was looked for. The wall clock and the output budget are enforced by headspace itself; memory, cpu and pids by the provider. The output budget caps capture, not the job: past it output is counted but not kept, the evidence is marked truncated, and the job runs on to its own exit status, which decides its status (the wall clock still bounds it). The result carries an excerpt of the output chosen for an agent (errors, failures, summaries, the final lines) and a command that returns the rest. The command line is recorded verbatim: never put a secret in it. Secrets go in with --env NAME (the value is read from your environment) or --env-file PATH: names are recorded, values never — in the result, the state store, the journal and the logs headspace writes. The edge: a job that prints its own environment (env, printenv, a traceback dumping os.environ) puts the value into its own captured output, which is kept and shown as evidence; that is the job\'s doing, and nothing here can unsee it. Values reach only this job; the next job does not see them. Exit codes: 0 success, 6 the command failed (126 not executable, 127 not found), 4 wall clock, 5 cancelled by stop, 8 killed for memory, 7 the engine broke.',
  },
  {
    name: 'put',
    args: ['<workspace>', '<host-path>', '<destination>'],
    group: 'lifecycle',
    summary: 'copy a host file or directory into a workspace, recording destination, size and sha256 — never the bytes',
    options: [{ flags: '--overwrite', description: 'replace an existing destination: afterwards it holds exactly the source (files gone from a host directory go from the workspace too)' }],
    explain:
      'Copies a host file or directory in. Symlinks, devices, FIFOs and sockets in the source are refused by name; `..`, absolute and NUL destinations are refused; the storage budget is checked before anything is copied (exit 3 naming storage_bytes). A directory is recorded with a manifest digest and its file count.',
  },
  {
    name: 'declare',
    args: ['<workspace>', '<name=purpose>'],
    group: 'lifecycle',
    summary: 'declare an artifact after the fact (e.g. a file found with ls-files), so it can be exported; --remove withdraws one',
    options: [{ flags: '--remove', description: 'withdraw the declaration of NAME (give NAME alone): a typo, or a file the job never made' }],
    explain:
      'Only declared artifacts can leave a workspace. NAME is the workspace path as ls-files shows it (its text form, see `explain names`). A declared artifact that is not exported appears in attention on every verb, and makes destroy refuse until it is exported or discarded with --force. `declare W NAME --remove` withdraws a declaration that was never exported (the files are not touched); an exported artifact keeps its record.',
  },
  {
    name: 'export',
    args: ['<workspace>', '<name>'],
    group: 'lifecycle',
    summary: 'publish a declared artifact to a host path, digest-verified, by atomic rename',
    options: [
      { flags: '--to <host-path>', description: 'where to publish it (required)' },
      { flags: '--expect-sha256 <hex>', description: 'refuse unless the bytes have this digest' },
      { flags: '--overwrite', description: 'replace an existing host file (never a symbolic link)' },
      { flags: '--max-bytes <n>', description: "refuse an artifact whose apparent size exceeds n bytes (K, M, G suffixes; default the workspace's storage budget)" },
    ],
    explain:
      "NAME is the declared name as ls-files shows it (its text form, see `explain names`), resolved to the exact bytes of the file. Copies through a temporary file beside the destination, computing the digest during the copy, verifies it, and publishes by atomic rename: the destination holds the whole file or nothing. Zero blocks stay holes, so a sparse file takes only its data on the host. An undeclared name, a symlink or special file in the workspace, a digest mismatch, or an existing destination without --overwrite is refused (exit 1) and leaves nothing behind; so is a --to that is a symbolic link (even with --overwrite) or lies under /proc, /sys or /dev. An artifact whose apparent size exceeds the cap (the workspace's storage budget, or --max-bytes) is refused with exit 3; a destination filesystem without room for it, with exit 2.",
  },
  {
    name: 'ls-files',
    args: ['<workspace>', '[path]'],
    group: 'lifecycle',
    summary: "a bounded listing of a workspace's files (names, types, sizes)",
    options: [{ flags: '--limit <n>', description: 'at most N entries (default 200)' }],
    explain: "Lists files recursively under a path so an agent can find intermediate files it never declared, then declare and export them. Symlinks are listed, never followed. Each name is printed in its text form (see `explain names`): a byte that is not UTF-8 as \\xff, a backslash as \\\\, controls and invisible characters as escapes, so every entry is distinct and none reads as another; --json carries the same text as `path`, with `name_encoding: escaped` when it holds an escape. Pass a name exactly as shown to declare, export, put or ls-files PATH.",
  },
  {
    name: 'stop',
    args: ['<workspace>'],
    group: 'lifecycle',
    summary: 'end the running jobs of a workspace (or one, with --job-id); previews by default and changes nothing, --apply ends them',
    options: [
      { flags: '--apply', description: 'really end the jobs (both this result and each stopped job read cancelled, exit 5)' },
      { flags: '--job-id <id>', description: 'end only this job (its id is in every result\'s provenance.job_id); the workspace\'s other jobs run on' },
      { flags: '--grace-seconds <n>', description: 'with --apply: seconds between SIGTERM and the kill of what remains (default 5; 0 kills at once)' },
    ],
    explain:
      "Without --apply, stop reports what is running and touches nothing. With --apply it sends the job's processes SIGTERM, waits a grace (--grace-seconds, default 5) so a TERM handler can run — what it prints is kept in the job's output — then kills whatever remains, from any process, and returns only when nothing of the job remains; the job is recorded as cancelled. A workspace created with --concurrency N can run several jobs at once: stop ends all of them, or with --job-id only that one, and the others run on to their own end.",
  },
  {
    name: 'inspect',
    args: ['<handle>'],
    group: 'lifecycle',
    summary: "report a workspace's or a job's state, history, policy and evidence",
    options: [
      { flags: '--logs', description: 'print the full captured output, unbounded (exact bytes when piped; on a terminal, control bytes shown as escapes; under --json, as text)' },
      { flags: '--raw', description: 'with --logs on a terminal, write control bytes as they are (they can act on the terminal)' },
    ],
    explain:
      'HANDLE is a workspace id or a job id. inspect exits 0 whenever the inspection worked: a job\'s own status (failure, timeout, …) is the result\'s status, not inspect\'s exit code. A workspace shows its lifecycle state and path, the provider\'s view, its jobs and the policy summary; a job shows its status, exit, usage and an excerpt. --logs prints everything the job(s) printed, as it was kept: byte for byte when stdout is a file or pipe; on a terminal, escape sequences and control bytes other than newline and tab (and bidi characters) are shown as escapes such as \\x1b, so job output cannot write the clipboard, retitle the window or plant links; --raw writes them as they are.',
  },
  {
    name: 'logs',
    args: ['<job>'],
    group: 'lifecycle',
    summary: "a bounded, selective view of a job's output, with line numbers",
    options: [
      { flags: '--head <n>', description: 'the first N lines' },
      { flags: '--tail <n>', description: 'the last N lines' },
      { flags: '--grep <regex>', description: 'lines matching a regular expression (RE2 syntax: no backreferences or lookaround)' },
      { flags: '--lines <a:b>', description: 'lines A to B (1-based, inclusive)' },
      { flags: '--max-lines <n>', description: 'at most N lines (default 200)' },
    ],
    explain: 'Lets an agent drill into a long log without loading it: choose one view; each line comes back with its number so the next call can ask for the lines around it. --grep matches in linear time (RE2 syntax, so job output cannot make it hang): backreferences and lookaround are refused (exit 1), and only the first 65,536 characters of each line are searched.',
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
    summary: 'remove a workspace; refuses while a job runs or while declared artifacts are unexported',
    options: [{ flags: '--force', description: 'discard unexported declared artifacts, naming each' }],
    explain: 'Removes the workspace along a fixed lifecycle path (e.g. ready -> cancelled -> destroyed) and reports what was removed, retained and unverified, and the exports that survive it. It refuses, removing nothing, while declared artifacts are unexported (--force discards them and names each). A running job must be stopped first (there is no running -> destroyed edge).',
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
    summary: 'health report: store, schema, leftovers, provider readiness; --repair plans repairs, --apply makes the safe ones',
    options: [
      { flags: '--repair', description: 'plan repairs and list each one with why it is safe or a judgement call (a dry run: changes nothing)' },
      { flags: '--apply', description: 'with --repair: make only the mechanically safe repairs, report the judgement calls skipped' },
      { flags: '--verify', description: 'with --repair --apply: diagnose again afterwards and report what remains' },
    ],
    explain:
      'Checks the state store (path, schema version, integrity), reports leftovers (unsettled intents, jobs whose process is gone, workspaces a provider no longer knows, cgroups, processes, mounts and temporary files left by a killed operation, stray job logs) and each provider\'s probe; plain doctor changes nothing. --repair plans a repair for each leftover and lists it, marked safe or a judgement call, with the reason; it still changes nothing. --repair --apply makes only the safe ones: remove a leftover cgroup, process, mount or temporary file of a workspace with no live job or operation; settle an intent whose outcome the facts prove (the provider holds the workspace, the input is recorded, the published file has the artifact\'s digest); record a job whose process is gone as cancelled (a stop was requested) or infrastructure_failure, with a note. It never deletes a workspace\'s files or an unexported declared artifact: a destroy cut short is left to `headspace destroy`. --verify diagnoses again afterwards; exit 7 when a safe repair failed or remains, and whenever the default provider is not ready here (checks failing for one reason are one line, each remedy once, and the fake provider is named as the way to try headspace meanwhile).',
  },
  {
    name: 'probe',
    args: ['[scenario]'],
    group: 'operator',
    summary: 'run real escape attempts in a dedicated workspace and report each scenario contained or escaped; exit 0 only when all are contained',
    options: [
      { flags: '--all', description: 'run every scenario' },
      { flags: '--list', description: 'describe the scenarios and run nothing' },
    ],
    explain:
      'Creates a small dedicated workspace (128 MiB, 64 pids, 32 MiB /tmp, 20 s per job), runs one real escape attempt per scenario inside it — writing and reading outside the workspace, a host environment canary, the host loopback and an external address (a connect only), container-engine sockets, host paths in /proc, a planted symlink read back host-side, privilege (capabilities, user namespaces, mount, ptrace, the host uid), processes left after the job, file names built to spoof the host-side listing, a fork bomb, a memory hog, filling /tmp — judges each from facts gathered inside and on the host, then destroys the workspace and removes every canary. Each scenario reads contained, escaped (with evidence) or skipped (with the reason; never counted as contained). Status is success only when every scenario is contained; otherwise infrastructure_failure (exit 7), because isolation that does not hold is the engine\'s fault, never the command\'s. The fake provider isolates nothing and is refused (exit 3). `probe --list` names the scenarios.',
  },
  {
    name: 'mcp',
    args: [],
    group: 'operator',
    summary: 'serve headspace as MCP tools for agents: over stdio (default) or Streamable HTTP (--http, loopback, bearer token)',
    options: [
      { flags: '--http', description: 'serve Streamable HTTP at /mcp instead of stdio' },
      { flags: '--port <n>', description: 'HTTP port (default 7340; 0 picks a free one)' },
      { flags: '--host <h>', description: 'HTTP address to bind (default 127.0.0.1; an address beyond loopback is refused without --allow-remote)' },
      { flags: '--allow-remote', description: 'accept a --host reachable beyond this machine (the bearer token, in clear text, is then the only guard)' },
      { flags: '--max-sessions <n>', description: 'HTTP sessions at once (default 16; past it an initialize is refused with 503)' },
      { flags: '--session-idle-seconds <n>', description: 'close an HTTP session with nothing in flight for this long (default 1800)' },
      { flags: '--root <dir>', description: 'a host folder tools may read and write under when the client offers no roots (repeatable; default the current directory, none when that is /)', repeatable: true },
      { flags: '--max-structured-bytes <n>', description: 'bound of each result\'s structuredContent as JSON (default 65536, floor 4096); past it the longest fields are shrunk with a marker' },
    ],
    explain:
      'Runs an MCP server until stdin closes (stdio) or SIGINT/SIGTERM (HTTP). Every verb is a tool taking the library\'s arguments (run: {workspaceId, argv, env?, …}); each result is the result package as structuredContent plus its bounded markdown. A refused verb is a tool error naming its category and exit code; malformed arguments are JSON-RPC -32602. The learn text is a prompt; workspace files are resources headspace://workspace/{id}/file/{path} (at most 256 KiB). Host paths (put, export, run inputs, create hostPaths) must lie under the server\'s roots, checked on real paths so `..` and links cannot leave them: the client\'s roots when it offers them (narrowed to --root, which is a ceiling a client cannot widen), otherwise --root DIR (repeatable), otherwise the directory the server started in — and none when that is /, so every host-path call is refused until --root is given. Over HTTP every request needs `Authorization: Bearer <token>`: the token comes from HEADSPACE_MCP_TOKEN or is generated and printed on stderr; a foreign Origin is refused (403), sessions are capped and expire when idle, and each keeps a bounded event store so a dropped stream resumes with Last-Event-ID. A call carrying a progress token gets progress every 5 s (the SDK client needs onprogress and resetTimeoutOnProgress: true past its 60 s default); structuredContent is bounded by --max-structured-bytes. stdout carries only protocol messages.',
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
    explain: 'Prints the documentation of a verb or topic (exit-codes, result, policy, state, names, fake).',
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
    summary: 'print the versions of headspace, the result schema and the state schema (also `headspace --version`)',
    options: [],
    explain: 'Prints the version, the result schema version and the state schema version.',
  },
];

export const TOPICS: Record<string, string> = {
  'exit-codes':
    'Exit codes are stable and only ever added to: 0 success, 1 user_error (bad flag, argument, id or illegal move), 2 environment_error (set-up problem, or the workspace is busy: the running job is named), 3 policy_denied (refused before anything ran: a policy the host cannot back, such as a memory budget without a cgroup), 4 timeout (wall clock), 5 cancelled (stop --apply), 6 computation_failed (the command failed; 126 not executable, 127 not found), 7 infrastructure_failure (the engine broke: bubblewrap missing, a mount failing; the error names no host path and carries a remediation), 8 resource_exhausted (killed by the kernel for memory).',
  result:
    'Every verb returns a result package with nine sections in a fixed order: outcome_summary, status, key_findings, evidence, artifacts, warnings, resource_usage, provenance, attention. Markdown (default) is bounded to 8 KiB (--max-result-bytes) and keeps all nine headings; --json is the same structure, never clipped. Output enters only as evidence excerpts; a cut ends with a marker giving the true size and a command that returns everything (no command is printed when nothing was cut). Markdown prints what a reader can use: an empty section is one (none) line, ids and the command are not repeated once the summary names them, and the policy is listed limit by limit at create and inspect, elsewhere as one line of what differs from the closed defaults with the policy digest (provenance.policy_digest). Under a tight bound, provenance and usage detail go first, then warnings and attention, then excerpt lines, then key findings. In JSON a field that is absent means unknown (null fields are left out); every other field is always there.',
  policy:
    'Closed by default: network disabled, no host paths, 512 MiB memory, 1 CPU, 128 pids, 1 GiB storage, 300 s wall clock per job, 10 MiB captured output per job, 1 job at once. --concurrency N lets N jobs run at once in one workspace: they share its memory, cpu and pids budgets (on the fake, resource_usage.max_memory_scope then reads workspace; on native each job\'s peak is its own), each has its own record, result and stop (stop --job-id), and one more is refused busy (exit 2); the native provider runs each job in a child cgroup of its own under the workspace\'s, so a stop or a wall clock ends that job alone. Every limit carries one of three labels: enforced (the host applies it), measured (only reported), or simulated (the fake provider applies it inside its simulation only: nothing runs for real and nothing is isolated, so a fake workspace never reads enforced except for the limits headspace itself applies: wall clock, output, concurrency). A boundary limit (network, filesystem, memory, cpu, pids) a real provider cannot enforce makes create refuse with exit 3; the fake is not refused, its create warns instead. resource_usage.max_memory_scope says whose peak max_memory_bytes is: the job\'s own, or the workspace\'s (its cgroup is shared by every job running in it).',
  names:
    "A file name is bytes; wherever a workspace name becomes text (results, --json, arguments of declare, export, put, ls-files and run --declare, MCP arguments and resource paths) it is written in one text form. Valid UTF-8 stands for itself, except: a byte that is not UTF-8 is \\xHH (\\x always means one raw byte), a backslash is \\\\, newline, CR and tab are \\n \\r \\t, other controls \\xHH, C1 controls, invisible characters (bidi controls, zero-width and format characters, separators, non-ASCII spaces, U+2800), combining marks (so an unnormalized accent shows as one), private-use and unassigned code points and U+FFFD are \\uHHHH or \\u{HHHHH}, and a space at the start or end of a component is \\x20. So distinct names never print alike, r\\xff.txt (the byte 0xff) is not r\\ufffd.txt (a real U+FFFD), and any name can be addressed. An argument may spell a character either way (\\x41 or A); it is resolved to bytes and compared in the one canonical form. Any other backslash sequence is refused (exit 1) rather than guessed: write a literal backslash as \\\\. Look-alike letters from different scripts (Latin a and Cyrillic а) are not escaped.",
  fake:
    "The fake provider (--provider fake, or HEADSPACE_PROVIDER=fake) runs no programs and isolates nothing: it keeps each workspace's files in HEADSPACE_HOME/fake/state.json and runs a small scripted command language, deterministically, so the CLI, the library and the MCP server can be tried and tested anywhere. Commands (the words after the workspace id; `A && B` runs B only when A succeeded): echo WORDS… prints WORDS to stdout; stderr WORDS… prints them to stderr; true and false exit 0 and 1; fail N prints an error line and exits N, exit N exits N; sleep SECONDS sleeps; block waits until stopped (stop --apply) or the wall clock ends it; alloc BYTES allocates, and past the memory budget the simulated kernel kills the job (resource_exhausted); flood BYTES prints BYTES of output in lines; trace N [K] prints an N-step trace ending with answer=…, with an ERROR line at step K when given; write PATH TEXT… writes TEXT to a workspace file (relative to --cwd); cat PATH prints a workspace file; env NAME prints NAME from the job's environment; ls lists the workspace's files. Anything else exits 127 (command not found), or 126 when it names a workspace file (fake files are never executable).",
  state:
    'State lives under $HEADSPACE_HOME (default ~/.headspace): state.db (SQLite, WAL; workspaces, jobs and the intent journal), jobs/<job>.log (captured output, at most the output budget), and one folder per provider (native/, fake/). A store written by a newer headspace is refused and left untouched.',
};
