import type * as CommanderModule from 'commander';
import type { Command, CommanderError } from 'commander';
import { shellQuote } from '../core/result/shell-quote.js';
import { EngineError, toEngineError } from '../core/errors.js';
import type { ResultPackage } from '../core/result/result-package.js';
import { EXIT_CODES, categoryOfStatus } from '../core/status.js';
import { COMMON_OPTIONS, VERBS, type VerbSpec } from './catalog.js';
import { loadVerbManifest } from '../core/verb-table/verb-manifest.js';
import { inputFromArgv, type EngineVerbSpec } from './verb-commands.js';
import type { Engine } from '../core/engine.js';
import { processIo, writeAll, type CliIo } from './io.js';
import { cliActionRenderer } from './render-action.js';
import { renderErrorJson, renderErrorText } from './render-error.js';
import { introspect } from './introspection.js';
import { renderLogsDump } from './render-logs.js';
import { escapeForTerminal } from '../core/result/visible-text.js';
import { createTerminalEscaper, type TerminalEscaper } from './terminal-output.js';

/** What a verb's action hands back to be rendered once, at the edge. */
export type CliOutcome =
  /** `exitCode` overrides the code of the package's status (inspect reports a job's status without taking it as its own). */
  | { kind: 'package'; pkg: ResultPackage; exitCode?: number; jsonLine?: boolean }
  | { kind: 'document'; text: string; json: unknown; exitCode?: number }
  | { kind: 'files'; files: Array<{ header?: string; open(): NodeJS.ReadableStream }>; json: () => Promise<unknown>; raw?: boolean }
  /** A long-running command that printed what it had to while it ran (`ui`): nothing is left to render. */
  | { kind: 'done'; exitCode: number };

type Opts = Record<string, unknown>;

/**
 * Parses argv, runs one verb, renders its result and returns the exit code.
 * It never exits the process (only the bin does) and never prints a stack.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  // `headspace --version` (or -V) is the version verb: the same three versions, --json included (#12 item 16).
  if (argv[0] === '--version' || argv[0] === '-V') argv = ['version', ...argv.slice(1)];
  // `version` needs no argument parser: answered before commander loads (it
  // costs ~10 ms of child_process and streams, a third of a node start, #20).
  if (argv[0] === 'version' && (argv.length === 1 || (argv.length === 2 && argv[1] === '--json'))) {
    return render(io, introspect('version', [], {}), argv.length === 2, undefined, undefined);
  }
  const commander = await import('commander');
  let outcome: CliOutcome | null = null;
  let wantsJson = argv.includes('--json');
  let maxResultBytes: number | undefined;
  // The provider this command ran with: a suggested create/doctor/probe carries it.
  let provider: string | undefined;
  const program = buildProgram(commander, io, argv[0], async (verb, args, opts) => {
    wantsJson = opts.json === true;
    provider = opts.provider === undefined ? undefined : String(opts.provider);
    maxResultBytes = opts.maxResultBytes === undefined ? undefined : parsePositiveInt('--max-result-bytes', String(opts.maxResultBytes));
    outcome = await dispatch(verb, args, opts, io);
  });
  if (argv.length === 0) {
    // Bare `headspace` asked for nothing wrong: the overview goes to stdout and exits 0 (#12 item 16).
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof commander.CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return 0;
      return fail(io, commanderToEngineError(error, argv), wantsJson, provider);
    }
    return fail(io, toEngineError(error), wantsJson, provider);
  }
  const done = outcome as CliOutcome | null;
  if (!done) {
    // No verb given: show the overview on stderr, like any usage error.
    return fail(
      io,
      new EngineError('UNKNOWN_VERB', 'no verb given', { hint: 'run `headspace --help`, or `headspace learn` for a guided introduction' }),
      wantsJson,
    );
  }
  try {
    return await render(io, done, wantsJson, maxResultBytes, provider, argv);
  } catch (error) {
    return fail(io, toEngineError(error), wantsJson, provider);
  }
}

async function render(
  io: CliIo,
  outcome: CliOutcome,
  json: boolean,
  maxResultBytes: number | undefined,
  provider: string | undefined,
  argv: readonly string[] = [],
): Promise<number> {
  switch (outcome.kind) {
    case 'package': {
      const { renderMarkdown } = await import('../core/result/render-markdown.js');
      const { renderJson } = await import('../core/result/render-json.js');
      // Suggested calls are shell commands here (render-action.ts); core wrote them as data.
      const renderAction = cliActionRenderer(io.env.HEADSPACE_HOME, provider);
      await writeAll(
        io.stdout,
        json
          ? outcome.jsonLine
            ? `${JSON.stringify(JSON.parse(renderJson(outcome.pkg, { renderAction })))}\n`
            : renderJson(outcome.pkg, { renderAction })
          : forTerminal(
              io,
              renderMarkdown(outcome.pkg, {
                renderAction,
                ...(maxResultBytes === undefined ? {} : { maxBytes: maxResultBytes }),
                ...fullResultCommand(io, outcome.pkg, argv),
              }),
            ),
      );
      return outcome.exitCode ?? EXIT_CODES[categoryOfStatus(outcome.pkg.status)];
    }
    case 'document':
      await writeAll(io.stdout, json ? `${JSON.stringify(outcome.json, null, 2)}\n` : forTerminal(io, outcome.text));
      return outcome.exitCode ?? 0;
    case 'done':
      return outcome.exitCode;
    case 'files':
      if (json) {
        await writeAll(io.stdout, `${JSON.stringify(await outcome.json(), null, 2)}\n`);
        return 0;
      }
      for (const file of outcome.files) {
        if (file.header) await writeAll(io.stdout, file.header);
        // Job-controlled bytes: shown as escapes on a terminal unless --raw; byte-exact when piped (#10 item 10).
        await streamFile(file.open(), io.stdout, io.stdoutIsTty && outcome.raw !== true ? createTerminalEscaper() : null);
      }
      return 0;
  }
}

/** Copies a stream to another without holding it in memory (through `escaper` when given). */
async function streamFile(input: NodeJS.ReadableStream, out: NodeJS.WritableStream, escaper: TerminalEscaper | null): Promise<void> {
  await new Promise<void>((resolve) => {
    input.on('error', () => resolve());
    input.on('end', () => {
      const rest = escaper?.end() ?? '';
      if (rest !== '') out.write(rest);
      resolve();
    });
    input.on('data', (chunk) => {
      if (!out.write(escaper ? escaper.write(chunk as Buffer) : chunk)) {
        input.pause();
        out.once('drain', () => input.resume());
      }
    });
  });
}

/**
 * Where the markers of a shrunk markdown result send the reader: a command
 * that prints the job's (or workspace's) package as JSON without running
 * anything again. Rerunning a build or a test suite to see the rest of its
 * findings would cost its time and repeat its side effects.
 */
function fullResultCommand(io: CliIo, pkg: ResultPackage, argv: readonly string[]): { fullResult?: string } {
  const home = io.env.HEADSPACE_HOME;
  const prefix = `${home === undefined || home === '' ? '' : `HEADSPACE_HOME=${shellQuote(home)} `}headspace`;
  const verb = pkg.provenance.verb;
  const handle = pkg.provenance.job_id ?? pkg.provenance.workspace_id;
  // inspect re-renders a job's (or a workspace's) own package: the same result as run's, wait's or inspect's.
  if (SHOWN_AGAIN_BY_INSPECT.has(verb) && handle !== null) return { fullResult: `${prefix} inspect ${handle} --json` };
  // Any other verb's package is its own: the same call again with --json, when that call only reads (a new user was
  // sent to a job's inspect for a batch's status). A call that changed something is not offered again.
  if (readsOnly(verb) && argv.length > 0)
    return {
      fullResult: `${prefix} ${argv
        .filter((w) => w !== '--json')
        .map(shellQuote)
        .join(' ')} --json`,
    };
  return {};
}

/** Verbs whose result `inspect` of its job or workspace gives back whole. */
const SHOWN_AGAIN_BY_INSPECT: ReadonlySet<string> = new Set(['run', 'wait', 'inspect']);

/** True for a verb of the table that changes nothing (the manifest's effect), so calling it again is harmless. */
function readsOnly(verb: string): boolean {
  return loadVerbManifest().find((entry) => entry.name === verb)?.effect === 'reads';
}

async function fail(io: CliIo, error: EngineError, json: boolean, provider?: string): Promise<number> {
  const renderAction = cliActionRenderer(io.env.HEADSPACE_HOME, provider);
  await writeAll(io.stderr, json ? renderErrorJson(error, renderAction) : renderErrorText(error, renderAction));
  return EXIT_CODES[error.category];
}

type Commander = typeof CommanderModule;

/**
 * The program with the one command `first` names (a verb, or a group of
 * two-word verbs), or with every command when it names none (`--help`, a
 * typo that commander suggests a verb for). Declaring all ~50 verbs with
 * their options took ~7 ms of every call (#20); one verb's parse is the same.
 */
function buildProgram(
  commander: Commander,
  io: CliIo,
  first: string | undefined,
  onAction: (verb: string, args: string[], opts: Opts) => Promise<void>,
): Command {
  const { Command } = commander;
  const program = new Command('headspace')
    .description('An ephemeral, isolated, budgeted workspace for AI agents: run work in a closed box, get back a compact, evidence-bearing result.')
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      ...outputFor(io),
      outputError: () => {
        // Rendered by fail() in our own error:/hint: form instead.
      },
    })
    .addHelpText(
      'after',
      '\nRun `headspace learn` for a guided introduction, `headspace explain <verb>` for details.\nExit codes: 0 success, 1 user_error, 2 environment_error, 3 policy_denied, 4 timeout, 5 cancelled, 6 computation_failed, 7 infrastructure_failure, 8 resource_exhausted, 9 inconclusive.',
    );
  // A verb spelt in two words (`events claim`, #15) is a sub-command of its group's command.
  const groups = new Map<string, Command>();
  const named = VERBS.filter((spec) => spec.name.split(' ')[0] === first);
  for (const spec of named.length > 0 ? named : VERBS) {
    const [group, sub] = spec.name.split(' ');
    if (sub === undefined) {
      const command = buildVerb(commander, spec, io, onAction);
      program.addCommand(command);
      // A verb that is also a group's word (`batch` and `batch wait`, #16): its sub-verbs hang under it, its options stay its own.
      if (VERBS.some((v) => v.name.startsWith(`${spec.name} `))) groups.set(spec.name, command.enablePositionalOptions());
      continue;
    }
    let parent = groups.get(group!);
    if (!parent) {
      parent = new Command(group!)
        .description(GROUP_SUMMARIES[group!] ?? group!)
        .exitOverride()
        .configureOutput({ ...outputFor(io), outputError: () => {} });
      groups.set(group!, parent);
      program.addCommand(parent);
    }
    parent.addCommand(buildVerb(commander, spec, io, onAction, sub));
  }
  return program;
}

/**
 * Where commander writes, and the terminal facts it would otherwise read
 * from this process's own streams (help width, colour): under `headspace
 * serve` those are the server's, not the caller's (#20).
 */
function outputFor(io: CliIo) {
  const colors = colorFromEnv(io.env);
  return {
    writeOut: (text: string) => io.stdout.write(text),
    writeErr: (text: string) => io.stderr.write(text),
    // undefined is what commander's own default returns off a terminal (its types say number): its default width then.
    getOutHelpWidth: () => io.terminal?.stdoutColumns as number,
    getErrHelpWidth: () => io.terminal?.stderrColumns as number,
    getOutHasColors: () => colors ?? io.terminal?.stdoutHasColors === true,
    getErrHasColors: () => colors ?? io.terminal?.stderrHasColors === true,
  };
}

/** commander's own reading of NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE (its useColor), from the caller's environment. */
function colorFromEnv(env: NodeJS.ProcessEnv): boolean | undefined {
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR || env.CLICOLOR_FORCE !== undefined) return true;
  return undefined;
}

/** The one line `--help` shows for a group of two-word verbs. */
const GROUP_SUMMARIES: Readonly<Record<string, string>> = {
  events: 'durable job events: subscribe, claim, ack, requeue, prune, ls, unsubscribe, follow, deliver (`headspace explain events`)',
};

function buildVerb(
  { Command, Option }: Commander,
  spec: VerbSpec,
  io: CliIo,
  onAction: (verb: string, args: string[], opts: Opts) => Promise<void>,
  word = spec.name,
): Command {
  const command = new Command(word)
    .description(spec.summary)
    .exitOverride()
    .configureOutput({ ...outputFor(io), outputError: () => {} });
  for (const arg of spec.args) command.argument(arg);
  for (const opt of [...spec.options, ...COMMON_OPTIONS]) {
    const option = new Option(opt.flags, opt.description);
    if (opt.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
  }
  if (spec.name === 'run') command.passThroughOptions();
  command.addHelpText('after', `\n${spec.explain}`);
  command.action(async (...received: unknown[]) => {
    // commander passes the declared arguments, then the options, then the command.
    const cmd = received[received.length - 1] as Command;
    const opts = cmd.opts() as Opts;
    const args = received.slice(0, spec.args.length).flatMap((a) => (Array.isArray(a) ? (a as string[]) : [a as string]));
    await onAction(spec.name, spec.name === 'run' ? [args[0]!, ...commandAfterWorkspace(received[1] as string[])] : args, opts);
  });
  return command;
}

/**
 * The command of `run W …` (#12.10): a leading `--` ends headspace's options
 * and is dropped; any other leading `-…` word is a headspace flag given after
 * the workspace id (commander passes everything after the id through), which
 * would otherwise run as a command named `--json`. Refused with the fix.
 */
function commandAfterWorkspace(words: string[]): string[] {
  const first = words[0];
  if (first === '--') return words.slice(1);
  if (first !== undefined && first.startsWith('-')) {
    throw new EngineError('BAD_ARGUMENT', `'${first.slice(0, 40)}' comes after the workspace id, where the command starts`, {
      hint: `put headspace's options before the workspace id (headspace run ${first.slice(0, 40)} WORKSPACE COMMAND…), or write -- before the command if '${first.slice(0, 40)}' is part of it`,
    });
  }
  return words;
}

async function dispatch(verb: string, args: string[], opts: Opts, io: CliIo): Promise<CliOutcome> {
  if (verb === 'learn' || verb === 'explain' || verb === 'cli' || verb === 'version') return introspect(verb, args, opts);
  if (verb === 'mcp') {
    // Long-running: resolves only when the server is done, since the bin exits right after main().
    const [{ serveMcp }, { openEngineForCli }] = await Promise.all([import('../mcp/serve.js'), import('./open-engine.js')]);
    const exitCode = await serveMcp({
      engineFactory: () => openEngineForCli(io.env, opts.provider as string | undefined),
      http: opts.http === true,
      ...(opts.port !== undefined && { port: String(opts.port) }),
      ...(opts.host !== undefined && { host: String(opts.host) }),
      ...(opts.allowRemote === true && { allowRemote: true }),
      ...(opts.maxSessions !== undefined && { maxSessions: parsePositiveInt('--max-sessions', String(opts.maxSessions)) }),
      ...(opts.sessionIdleSeconds !== undefined && { sessionIdleSeconds: parsePositiveInt('--session-idle-seconds', String(opts.sessionIdleSeconds)) }),
      ...(opts.maxResultBytes !== undefined && { maxResultBytes: parsePositiveInt('--max-result-bytes', String(opts.maxResultBytes)) }),
      ...(opts.maxStructuredBytes !== undefined && { maxStructuredBytes: parsePositiveInt('--max-structured-bytes', String(opts.maxStructuredBytes)) }),
      ...(opts.root !== undefined && { roots: opts.root as string[] }),
      ...(opts.tools !== undefined && { tools: String(opts.tools) }),
      env: io.env,
      stderr: io.stderr,
    });
    return { kind: 'document', text: '', json: null, exitCode };
  }
  if (verb === 'serve') {
    // Long-running like ui: resolves when the server idles out, is stopped or interrupted (#20).
    const { serveCli, stopServer } = await import('./serve/serve-server.js');
    if (opts.stop === true) {
      const stopped = await stopServer(io.env);
      const text = stopped ? 'headspace serve: stopped\n' : 'headspace serve: none was running\n';
      return { kind: 'document', text, json: { stopped } };
    }
    const idleSeconds = opts.idle === undefined ? 300 : parsePositiveInt('--idle', String(opts.idle));
    return { kind: 'done', exitCode: await serveCli(io, { idleSeconds, json: opts.json === true, main }) };
  }
  if (verb === 'ui') {
    // Long-running like mcp: resolves when Ctrl-C stops the server.
    const { serveUi } = await import('../ui/serve-ui.js');
    const exitCode = await serveUi({
      env: io.env,
      stdout: io.stdout,
      stderr: io.stderr,
      ...(opts.port !== undefined && { port: String(opts.port) }),
      ...(opts.open === true && { open: true }),
      ...(opts.allowActions === true && { allowActions: true }),
      ...(opts.provider !== undefined && { provider: String(opts.provider) }),
      ...(opts.json === true && { json: true }),
    });
    return { kind: 'done', exitCode };
  }
  const spec = VERBS.find((v): v is EngineVerbSpec => v.name === verb && 'method' in v);
  if (!spec) throw new EngineError('UNKNOWN_VERB', `unknown verb '${verb}'`, { hint: 'run `headspace --help`' });
  const input = inputFromArgv(spec, args, opts, io);
  refuseMissingFlags(spec, input);
  const provider = opts.provider as string | undefined;
  const lease = io.engines ? await io.engines.lease(io.env, provider) : await (await import('./open-engine.js')).ownEngine(io.env, provider);
  try {
    return await callVerb(lease.engine, spec, input, opts, io);
  } finally {
    lease.release();
  }
}

/** The call of one engine verb, with what the terminal adds to a few of them (signals, progress, the raw log). */
async function callVerb(engine: Engine, spec: EngineVerbSpec, input: Record<string, unknown>, opts: Opts, io: CliIo): Promise<CliOutcome> {
  const method = (engine as unknown as Record<string, (input: unknown) => Promise<ResultPackage>>)[spec.method]!.bind(engine);
  switch (spec.name) {
    case 'run':
    case 'wait':
    case 'batch':
    case 'batch wait': {
      const controller = new AbortController();
      // Ctrl-C ends the job as cancelled instead of orphaning it (a wait: ends the wait, the jobs run on; a batch: cancelled, its losers stopped).
      const off = io.onInterrupt(() => controller.abort());
      try {
        return pkg(await method({ ...input, signal: controller.signal }));
      } finally {
        off();
      }
    }
    case 'watch': {
      const controller = new AbortController();
      // Ctrl-C ends the watch with the report so far.
      const off = io.onInterrupt(() => controller.abort());
      const { sampleLine } = await import('../core/verbs/watch.js');
      const onSample =
        opts.json === true
          ? (sample: object) => void io.stdout.write(`${JSON.stringify(sample)}\n`)
          : io.stderrIsTty
            ? (sample: Parameters<typeof sampleLine>[0]) => void io.stderr.write(`${sampleLine(sample)}\n`)
            : undefined;
      try {
        // Under --json the samples are JSON lines: the report is one more line, the last.
        return { kind: 'package', pkg: await method({ ...input, signal: controller.signal, ...(onSample ? { onSample } : {}) }), jsonLine: true };
      } finally {
        off();
      }
    }
    case 'export':
      return pkg(
        await method({
          ...input,
          ...(io.stderrIsTty && opts.json !== true ? { onProgress: progressOnStderr(io, `export ${escapeForTerminal(String(input.name ?? ''))}`) } : {}),
        }),
      );
    case 'inspect':
      if (opts.logs === true) return renderLogsDump(await engine.logStream({ handle: String(input.handle) }), opts.raw === true);
      // The inspection worked: exit 0, the job's own status is in the result (#12 item 16).
      return { kind: 'package', pkg: await method(input), exitCode: 0 };
    case 'fork':
      // Ctrl-C stops between children (the made ones stay whole, the rest are not started), in-process and through serve alike.
      return untilInterrupted(io, async (signal) => pkg(await method({ ...input, signal })));
    case 'events claim':
    case 'events follow':
    case 'events deliver':
      // Ctrl-C ends the wait or the loop with its report, never mid-transaction.
      return untilInterrupted(io, async (signal) => {
        if (spec.name !== 'events follow') return pkg(await method({ ...input, signal }));
        const { eventJson } = await import('../core/events/event-view.js');
        const onEvent = (event: Parameters<typeof eventJson>[0]) => void io.stdout.write(`${JSON.stringify(eventJson(event))}\n`);
        const report = await method({ ...input, signal, onEvent });
        // The events are the output (JSON lines); under --json the report is one more line, the last. Without --json
        // the report's summary goes to stderr, keeping stdout JSON lines only: a follow that saw no event used to end
        // with nothing printed at all, which read as broken.
        if (opts.json === true) return { kind: 'package', pkg: report, jsonLine: true };
        io.stderr.write(`${escapeForTerminal(report.outcome_summary)}\n`);
        return { kind: 'document', text: '', json: null };
      });
    case 'probe': {
      // Ctrl-C must not skip the probe's clean-up (canaries, listeners, its
      // workspace): hold the signal and let the run finish and tidy up.
      const off = io.onInterrupt(
        () => void io.stderr.write('headspace: interrupt received; the probe finishes and removes its canaries and workspace first\n'),
        true,
      );
      try {
        return pkg(await method(input));
      } finally {
        off();
      }
    }
    default:
      return pkg(await method(input));
  }
}

/** Runs `work` with a signal that SIGINT or SIGTERM aborts, for as long as it runs. */
async function untilInterrupted(io: CliIo, work: (signal: AbortSignal) => Promise<CliOutcome>): Promise<CliOutcome> {
  const controller = new AbortController();
  const off = io.onInterrupt(() => controller.abort());
  try {
    return await work(controller.signal);
  } finally {
    off();
  }
}

/** A required input filled by a flag (export's --to) is refused before the engine opens, naming the flag to add. */
function refuseMissingFlags(spec: EngineVerbSpec, input: Record<string, unknown>): void {
  for (const option of spec.inputOptions) {
    if (!option.required || input[option.key] !== undefined) continue;
    const [flag, placeholder] = option.flags.split(' ');
    const words = spec.args.filter((a) => a.startsWith('<')).map((a) => a.replace(/[<>.]/g, '').toUpperCase());
    // A flag with a fixed set of values names them all, and the example uses the first (batch --strategy).
    const choices = option.choices === undefined ? '' : `: one of ${option.choices.join(', ')}`;
    const value = option.choices?.[0] ?? placeholder?.replace(/[<>]/g, '').toUpperCase();
    throw new EngineError('BAD_ARGUMENT', `${spec.name} needs ${option.choices === undefined ? option.flags : flag}${choices}`, {
      hint: `for example: headspace ${[spec.name, ...words, flag, value].filter(Boolean).join(' ')}`,
    });
  }
}

/** A progress line on a terminal's stderr, redrawn at most ten times a second. */
function progressOnStderr(io: CliIo, label: string): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (now - last < 100 && done < total) return;
    last = now;
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    io.stderr.write(`\r${label}: ${pct}% (${done} of ${total} bytes)${done >= total ? '\n' : ''}`);
  };
}

function pkg(value: ResultPackage): CliOutcome {
  return { kind: 'package', pkg: value };
}

function parsePositiveInt(flag: string, raw: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw new EngineError('BAD_ARGUMENT', `${flag} takes a whole number of at least 1, not '${raw.slice(0, 40)}'`, {
      hint: `for example ${flag} ${flag.endsWith('-bytes') ? '8192' : '20'} (digits only: no sign, unit or fraction)`,
    });
  return Number(raw);
}

/** commander's own usage errors become user errors (exit 1) with a hint, never its raw text alone. */
function commanderToEngineError(error: CommanderError, argv: string[]): EngineError {
  const message = error.message.replace(/^error:\s*/i, '').trim();
  const words = argv.filter((a) => !a.startsWith('-'));
  // A two-word verb (`events claim`) is named whole in the hint.
  const verb = VERBS.some((v) => v.name === `${words[0]} ${words[1]}`) ? `${words[0]} ${words[1]}` : words[0];
  const known = VERBS.some((v) => v.name === verb || v.name.startsWith(`${verb} `));
  // A group's word with a second word that is none of its verbs (`batch frob`): name the ones it has, not commander's arity.
  const subVerbs = VERBS.filter((v) => v.name.startsWith(`${words[0]} `)).map((v) => `headspace ${v.name}`);
  const stray = subVerbs.length > 0 && verb === words[0] ? strayWord(argv, words[0]!) : undefined;
  if (stray !== undefined && /excessArguments|unknownCommand/.test(error.code))
    return new EngineError('BAD_ARGUMENT', `${words[0]} has no sub-command ${JSON.stringify(stray.slice(0, 40))}`, {
      hint: `it is one of ${subVerbs.join(', ')}${VERBS.some((v) => v.name === words[0]) ? `, or headspace ${words[0]} with its flags` : ''} (see headspace ${words[0]} --help)`,
    });
  const hint = error.code === 'commander.unknownCommand' || !known ? 'run `headspace --help` for the verbs' : `run \`headspace ${verb} --help\``;
  return new EngineError(error.code === 'commander.unknownCommand' ? 'UNKNOWN_VERB' : 'BAD_ARGUMENT', message, { hint });
}

/** The first word after a group's word that is not a flag's value (`batch --strategy all frob` → frob), from the group verb's own flags. */
function strayWord(argv: string[], group: string): string | undefined {
  const options = [...(VERBS.find((v) => v.name === group)?.options ?? []), ...COMMON_OPTIONS];
  const takesValue = (flag: string) => options.some((o) => o.flags.split(/[ ,]+/).includes(flag) && o.flags.includes('<'));
  for (let i = argv.indexOf(group) + 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-')) return word;
    if (!word.includes('=') && takesValue(word)) i++;
  }
  return undefined;
}

/** Human text bound for a terminal: nothing in it may act on the terminal (a net under the markdown renderer's own cleaning). */
function forTerminal(io: CliIo, text: string): string {
  return io.stdoutIsTty ? escapeForTerminal(text) : text;
}
export { processIo } from './io.js';
