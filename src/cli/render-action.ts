/**
 * The CLI's words for a suggested call (core/result/next-action.ts): a
 * command to paste into a shell, `headspace export W NAME --to PATH`. Core
 * names no flag; this turns an argument name into one, from the same verb
 * specs commander is built from (cli/verb-commands.ts).
 */
import { defaultHome } from '../core/context.js';
import { shellQuote } from '../core/result/shell-quote.js';
import { VERBS } from './catalog.js';
import type { EngineVerbSpec } from './verb-commands.js';
import type { NextAction, RenderAction } from '../core/next-action.js';
import { fieldSpelling, type SpellInput } from '../core/verb-table/command-words.js';

/**
 * A renderer for an engine whose home is `home`: a home that is not the
 * default goes first as `HEADSPACE_HOME=… `, so the pasted command reaches the
 * same state (a command without it would look in ~/.headspace and say
 * "no workspace").
 */
export function cliActionRenderer(home?: string, provider?: string): RenderAction {
  const prefix = home === undefined || home === '' || home === defaultHome() ? '' : `HEADSPACE_HOME=${shellQuote(home)} `;
  return (action) => `${prefix}${cliCommand(action, provider)}`;
}

/**
 * A call as the command line the CLI parses into it: positional arguments
 * where the verb takes them, each other argument as its flag, each needed one
 * as its placeholder. A verb that takes a provider (create, doctor, probe)
 * gets the one this command ran with, so a pasted `create` after
 * `--provider fake` does not make a native workspace.
 */
function cliCommand(action: NextAction, provider: string | undefined): string {
  // All of a job's output: the CLI has the unbounded read.
  if (action.whole === true && action.verb === 'logs' && typeof action.args.jobId === 'string')
    return `headspace inspect ${shellQuote(action.args.jobId)} --logs`;
  const { verb, args } = action;
  const spec = VERBS.find((v): v is EngineVerbSpec => 'method' in v && (v as EngineVerbSpec).tableName === verb);
  const positional = spec?.argKeys ?? [];
  const given: Record<string, string | number | boolean> = { ...args };
  for (const key of action.needs ?? []) given[key] = placeholderOf(spec, key);
  if (spec?.takesProvider === true && provider !== undefined && given.provider === undefined) given.provider = provider;
  // declare's one argument is NAME=PURPOSE.
  if (verb === 'declare' && typeof given.name === 'string' && given.purpose !== undefined) {
    given.name = `${given.name}=${String(given.purpose)}`;
    delete given.purpose;
  }
  const words = ['headspace', spec?.name ?? verb, ...positional.filter((key) => key in given).map((key) => cliWord(given[key]!))];
  for (const [key, value] of Object.entries(given)) {
    if (positional.includes(key) || value === false) continue;
    const flag = key === 'provider' ? '--provider' : flagOf(spec, key);
    words.push(value === true ? flag : `${flag} ${cliWord(value)}`);
  }
  return words.join(' ');
}

/** What stands for a needed argument: its flag's placeholder in capitals (`--to <host-path>` → HOST_PATH), else the key's (workspaceId → WORKSPACE_ID). */
function placeholderOf(spec: EngineVerbSpec | undefined, key: string): string {
  const placeholder = spec?.inputOptions.find((o) => o.key === key)?.flags.split(' ')[1];
  return (placeholder?.replace(/[<>]/g, '') ?? key.replace(/([a-z0-9])([A-Z])/g, '$1_$2')).replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** The flag that fills an input key (`hostPaths` is --allow-host-path), or --kebab-key for one the CLI adds itself (inspect's logs). */
function flagOf(spec: EngineVerbSpec | undefined, key: string): string {
  const option = spec?.inputOptions.find((o) => o.key === key);
  return option ? option.flags.split(' ')[0]! : `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * The CLI's spelling of an input an error names (core/verb-table/command-words.ts inputRef): the flag that fills it,
 * with the value as typed (`--strategy quorum`), so a refusal speaks of what the user wrote.
 */
export function cliInputSpelling(verb: string): SpellInput {
  const spec = VERBS.find((v): v is EngineVerbSpec => 'method' in v && (v as EngineVerbSpec).tableName === verb);
  return (key, value) => {
    const words = spec?.inputWords[key];
    if (words !== undefined) return value === undefined ? words : `${words} ${cliWord(value)}`;
    if (spec?.argKeys.includes(key)) return value === undefined ? placeholderOf(spec, key) : cliWord(value);
    // An input the CLI does not take (batch's jobs, given through --spec) keeps its field name rather than a flag that does not exist.
    if (!spec?.inputOptions.some((o) => o.key === key)) return fieldSpelling(key, value);
    const flag = flagOf(spec, key);
    return value === undefined ? flag : `${flag} ${cliWord(value)}`;
  };
}

/** Placeholders in capitals stay bare, so `--to PATH` reads as a placeholder, not a quoted word. */
function cliWord(value: string | number | boolean): string {
  const text = String(value);
  return /^[A-Z][A-Z_]*$/.test(text) ? text : shellQuote(text);
}
