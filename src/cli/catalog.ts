/**
 * The CLI surface as data: every verb, its arguments and options, and its
 * explanation. The engine's verbs come from the verb table (through
 * verb-commands.ts); the CLI's own (mcp, ui, learn, explain, cli, version) are
 * written here. commander is configured from this list, and `cli overview`,
 * `explain` and `learn` print it, so help text and behaviour cannot drift.
 */
import { loadVerbManifest } from '../core/verb-table/verb-manifest.js';
import { engineVerbSpecs } from './verb-commands.js';

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
  {
    flags: '--provider <name>',
    description:
      'backend: native (Linux default), docker (a container on a Docker Engine), swarm (a Swarm service on HEADSPACE_SWARM_HOST) or fake (in memory, no isolation)',
  },
  { flags: '--max-result-bytes <n>', description: 'bound of the markdown result (default 8192, floor 512)' },
];

/** Verbs of the CLI itself: they need no engine. */
const CLI_VERBS: VerbSpec[] = [
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
      {
        flags: '--root <dir>',
        description:
          'a host folder tools may read and write under when the client offers no roots (repeatable; default the current directory, none when that is /)',
        repeatable: true,
      },
      {
        flags: '--max-structured-bytes <n>',
        description: "bound of each result's structuredContent as JSON (default 65536, floor 4096); past it the longest fields are shrunk with a marker",
      },
      {
        flags: '--tools <list>',
        description:
          'serve only these tools: comma-separated tool names and sets (core, detach, snapshots, batch, events, manifests, operator, all; `headspace explain mcp` lists them); default all',
      },
    ],
    explain:
      "Runs an MCP server until stdin closes (stdio) or SIGINT/SIGTERM (HTTP). Every verb is a tool taking the library's arguments (run: {workspaceId, argv, env?, …}); each result is the result package as structuredContent plus its bounded markdown. A refused verb is a tool error naming its category and exit code; malformed arguments are JSON-RPC -32602. The learn text is a prompt; workspace files are resources headspace://workspace/{id}/file/{path} (at most 256 KiB). Host paths (put, export, run inputs, create hostPaths) must lie under the server's roots, checked on real paths so `..` and links cannot leave them: the client's roots when it offers them (narrowed to --root, which is a ceiling a client cannot widen), otherwise --root DIR (repeatable), otherwise the directory the server started in — and none when that is /, so every host-path call is refused until --root is given. Over HTTP every request needs `Authorization: Bearer <token>`: the token comes from HEADSPACE_MCP_TOKEN or is generated and printed on stderr; a foreign Origin is refused (403), sessions are capped and expire when idle, and each keeps a bounded event store so a dropped stream resumes with Last-Event-ID. A call carrying a progress token gets progress every 5 s (the SDK client needs onprogress and resetTimeoutOnProgress: true past its 60 s default); structuredContent is bounded by --max-structured-bytes. Every agent pays for tools/list in its context (about 47 KB with every tool); --tools serves only the named tools and sets, comma-separated: core (create, run, status, logs, inspect, ls, ls-files, put, declare, export, receipt, wait, stop, destroy; about 25 KB), detach (wait, watch, stop), snapshots (checkpoint, restore, diff, fork, seal, settle), batch (batch, batch-wait), events (events-subscribe, events-claim, events-ack), manifests (plan, prepare), operator (doctor, probe, receipt, declare), all; a tool not served is an unknown tool. stdout carries only protocol messages.",
  },
  {
    name: 'ui',
    args: [],
    group: 'operator',
    summary: 'serve a local dashboard (127.0.0.1, token in the printed URL) to watch workspaces, jobs, logs and artifacts; read-only unless --allow-actions',
    options: [
      { flags: '--port <n>', description: 'port on 127.0.0.1 (default 7341; 0 picks a free one)' },
      { flags: '--open', description: 'open the page in the default browser' },
      { flags: '--allow-actions', description: 'offer stop, destroy and export in the page, each confirmed and journalled as done by the ui' },
    ],
    explain:
      "Serves a page on 127.0.0.1 only and prints its URL, which carries a fresh token (in the fragment, so it never reaches a log or a Referer); runs until Ctrl-C. Every view comes from the engine's verbs: the workspaces (ls, paged), a workspace (inspect: jobs, artifacts with digests, inputs, attention, the policy with each limit's enforced/measured/simulated label), a job (inspect: its result package, all nine sections) and its log (logs: paged, searched with RE2 in linear time, never sent whole), doctor, the probe scenarios and event subscriptions. A running job's state and output follow live (the page polls). The same guards as `mcp --http`: a Host or Origin that is not loopback is refused (403), a request without the token is 401. With --allow-actions the page offers stop, destroy and export, each asking for confirmation first and each journalled with actor ui; without it they are refused (403). Everything from a workspace (output, file names, purposes) is shown as text, never as markup, and the page forbids inline script. Not an MCP tool.",
  },
  {
    name: 'serve',
    args: [],
    group: 'operator',
    summary: 'keep an engine resident for this user and home, so CLI calls with HEADSPACE_SERVE=auto cost little more than a node start',
    options: [
      { flags: '--idle <seconds>', description: 'exit after this many seconds with no request (default 300)' },
      { flags: '--stop', description: "stop the home's server: it stops accepting, finishes what it is answering and exits" },
    ],
    explain:
      "Runs in the foreground, answering CLI calls made with HEADSPACE_SERVE=auto (the CLI connects, and starts a detached server when none listens; if that fails it runs the call itself) or HEADSPACE_SERVE=require (no fallback: exit 2 naming the remedy); unset or off, the CLI runs every call in its own process, as always. A call through the server has the same result, exit code, stdout and stderr as in-process: the server runs it with the caller's argv, working directory, environment, stdin and terminal facts, and Ctrl-C (SIGINT/SIGTERM) reaches the call (a foreground run ends as cancelled). The engine stays open across calls; all state stays in the home's SQLite store, shared with every other process. The socket is HEADSPACE_HOME/serve/sock, mode 0600 in a 0700 directory of this user's: only this user (and root) can connect; a directory or socket of another user, or a link, is refused (exit 2), and a socket left by a killed server is replaced. A client of another build or umask, or whose HEADSPACE_*, PATH, HOME, TMPDIR, DOCKER_* or locale variables differ from the server's, is not answered: the server exits and the client starts one of its own. A home another user could change (it, or a directory above it, owned by another user or writable by others) is refused by the server and by every call (exit 2). Not through the server: serve, mcp and ui themselves, and probe (one of its scenarios sets the process's umask for a moment). --idle S exits after S seconds with no request (default 300); Ctrl-C or SIGTERM stops accepting and lets the calls in hand finish, a second one interrupts them; --stop stops the home's server; --json prints the listening status (socket, pid, idle_seconds, build) as one JSON line.",
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
    args: ['[path...]'],
    group: 'introspection',
    summary: 'documentation for a verb, e.g. `explain run` or `explain exit-codes`; alone, lists what it can explain',
    options: [],
    explain:
      'Prints the documentation of a verb or topic (exit-codes, result, policy, state, names, fake, events). Without a path it lists every verb and topic it can explain.',
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

/** Every verb: the engine's (from the verb table, core/verb-table/), then the CLI's own. */
export const VERBS: VerbSpec[] = [...engineVerbSpecs(loadVerbManifest()), ...CLI_VERBS];

export const TOPICS: Record<string, string> = {
  manifest:
    "A headspace.yml describes a workspace for plan (what would be done, and whether it is ready) and prepare (do it; a second prepare with nothing changed does nothing): its id, policy budgets, host inputs copied in, git repositories cloned, artifacts declared, setup commands and env names, and a verify section judged after setup. Paths are relative to the manifest's directory; absolute paths, .. and symbolic links on the way are refused. Byte budgets take a number or a K, M, G or T suffix (512M). A refusal names the key path and line, up to five at once.",
  'exit-codes':
    'Exit codes are stable and only ever added to: 0 success, 1 user_error (bad flag, argument, id or illegal move; destroy refusing to discard unexported artifacts or unsettled outputs, code WOULD_DISCARD), 2 environment_error (set-up problem, or the workspace is busy: the running job is named; ui or mcp --http on a port another process holds, code PORT_IN_USE; headspace serve or HEADSPACE_SERVE=require with no usable server, code SERVE_UNAVAILABLE), 3 policy_denied (refused before anything ran: a policy the host cannot back, such as a memory budget without a cgroup), 4 timeout (wall clock), 5 cancelled (stop --apply), 6 computation_failed (the command failed; 126 not executable, 127 not found; or a failed batch join: any_exhausted, a quorum out of reach), 7 infrastructure_failure (the engine broke: bubblewrap missing, a mount failing; the error names no host path and carries a remediation), 8 resource_exhausted (killed by the kernel for memory), 9 inconclusive (added for verification contracts: the job exited 0 but a verification check could not reach a verdict — its command missing or not executable, or out of time; a verifier fault, neither pass nor fail).',
  result:
    'Every verb returns a result package with nine sections in a fixed order: outcome_summary, status, key_findings, evidence, artifacts, warnings, resource_usage, provenance, attention. Markdown (default) is bounded to 8 KiB (--max-result-bytes) and keeps all nine headings; --json is the same structure, never clipped. Output enters only as evidence excerpts; a cut ends with a marker giving the true size and a command that returns everything (no command is printed when nothing was cut). Markdown prints what a reader can use: an empty section is one (none) line, ids and the command are not repeated once the summary names them, and the policy is listed limit by limit at create and inspect, elsewhere as one line of what differs from the closed defaults with the policy digest (provenance.policy_digest). Under a tight bound, provenance and usage detail go first, then warnings and attention, then excerpt lines, then key findings. In JSON a field that is absent means unknown (null fields are left out); every other field is always there.',
  policy:
    "Closed by default: network disabled, no host paths, 512 MiB memory, 1 CPU, 128 pids, 1 GiB storage, 300 s wall clock per job, 10 MiB captured output per job, 1 job at once. --concurrency N lets N jobs run at once in one workspace: they share its memory, cpu and pids budgets (on the fake, resource_usage.max_memory_scope then reads workspace; on native each job's peak is its own), each has its own record, result and stop (stop --job-id), and one more is refused busy (exit 2); the native provider runs each job in a child cgroup of its own under the workspace's, so a stop or a wall clock ends that job alone. Every limit carries one of three labels: enforced (the host applies it), measured (only reported), or simulated (the fake provider applies it inside its simulation only: nothing runs for real and nothing is isolated, so a fake workspace never reads enforced except for the limits headspace itself applies: wall clock, output, concurrency). Network is disabled, or an allow-list (create --network allow=HOST…: only those hosts, through the engine's egress proxy, every decision in the job's result); open network is refused. A boundary limit (network, filesystem, memory, cpu, pids) a real provider cannot enforce makes create refuse with exit 3; the fake is not refused, its create warns instead. resource_usage.max_memory_scope says whose peak max_memory_bytes is: the job's own, or the workspace's (its cgroup is shared by every job running in it).",
  names:
    'A file name is bytes; wherever a workspace name becomes text (results, --json, arguments of declare, export, put, ls-files and run --declare, MCP arguments and resource paths) it is written in one text form. Valid UTF-8 stands for itself, except: a byte that is not UTF-8 is \\xHH (\\x always means one raw byte), a backslash is \\\\, newline, CR and tab are \\n \\r \\t, other controls \\xHH, C1 controls, invisible characters (bidi controls, zero-width and format characters, separators, non-ASCII spaces, U+2800), combining marks (so an unnormalized accent shows as one), private-use and unassigned code points and U+FFFD are \\uHHHH or \\u{HHHHH}, and a space at the start or end of a component is \\x20. So distinct names never print alike, r\\xff.txt (the byte 0xff) is not r\\ufffd.txt (a real U+FFFD), and any name can be addressed. An argument may spell a character either way (\\x41 or A); it is resolved to bytes and compared in the one canonical form. Any other backslash sequence is refused (exit 1) rather than guessed: write a literal backslash as \\\\. Look-alike letters from different scripts (Latin a and Cyrillic а) are not escaped.',
  fake: "The fake provider (--provider fake, or HEADSPACE_PROVIDER=fake) runs no programs and isolates nothing: it keeps each workspace's files in HEADSPACE_HOME/fake/state.json and runs a small scripted command language, deterministically, so the CLI, the library and the MCP server can be tried and tested anywhere. Commands (the words after the workspace id; `A && B` runs B only when A succeeded): echo WORDS… prints WORDS to stdout; stderr WORDS… prints them to stderr; true and false exit 0 and 1; fail N prints an error line and exits N, exit N exits N; sleep SECONDS sleeps; block waits until stopped (stop --apply) or the wall clock ends it; alloc BYTES allocates, and past the memory budget the simulated kernel kills the job (resource_exhausted); flood BYTES prints BYTES of output in lines; trace N [K] prints an N-step trace ending with answer=…, with an ERROR line at step K when given; write PATH TEXT… writes TEXT to a workspace file (relative to --cwd); cat PATH prints a workspace file; rm PATH removes a workspace file or directory tree; ln -s TARGET PATH makes a symbolic link; chmod MODE PATH sets a file's permission bits; env NAME prints NAME from the job's environment; fetch URL simulates an HTTP(S) request: with a network allow-list the engine takes and records the egress decision (allowed prints fetch: 200 from HOST (simulated); denied prints the reason and exits 56), without one it exits 6; fetch URL NAME also sends the job's NAME as a header, simulating secrets at egress (run --secret): its placeholder to its own host over https reads substituted, to another host or over http blocked (exit 56); ls lists the workspace's files. Anything else exits 127 (command not found), or 126 when it names a workspace file (fake files are never executable).",
  events:
    "Every job end emits exactly one terminal event (job.succeeded, job.failed, job.timed_out, job.cancelled, job.resource_exhausted, job.policy_denied, job.infrastructure_failed, job.inconclusive), written with the job's terminal record in one transaction; it carries ids, status, exit code and times, never the command, its output, its environment or a path. `events subscribe --job J | --workspace W | --all [--name N]` makes a durable subscription (a --job one replays an ended job's event once; --workspace and --all start from now). `events claim SUB [--wait S]` takes pending events, each to exactly one claimer, under a lease; `events ack SUB EVENT…` settles them (a second ack reads duplicate); unacknowledged, they come back when the lease ends or by `events requeue SUB EVENT… | --stale S`, and after --max-deliveries (default 5) go to dead, which doctor reports. `events prune --older-than 7d` removes what is settled; `events follow` prints events as JSON lines (a view); `events deliver SUB` pushes a --webhook subscription's events by signed POST while it runs. Exit codes: 0 done (an empty claim too), 1 bad argument or unknown subscription or event id (nothing changed), 2 store unavailable, 3 a remote webhook without --allow-remote.",
  state:
    "State lives under $HEADSPACE_HOME (default ~/.headspace, this user's alone): state.db (SQLite, WAL; workspaces, jobs, the intent journal, job events and their subscriptions, snapshots, batches), jobs/<job>.log (captured output, at most the output budget), receipts/ (prepare's receipts, one JSON file per workspace), supervisor/ (the shared supervisor's socket, 0700), serve/ (the resident engine's socket, 0700), ui/ (the page `ui --open` hands the browser, 0700, while the dashboard runs), ca/<workspace>/ (an allow-list workspace's egress CA, 0700), events/webhooks/ (webhook secrets, 0600), watch/ (each watch's samples), and one folder per provider (native/, fake/, docker/). A store written by a newer headspace is refused and left untouched.",
};
