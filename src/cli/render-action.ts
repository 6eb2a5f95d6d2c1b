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

/**
 * A renderer for an engine whose home is `home`: a home that is not the
 * default goes first as `HEADSPACE_HOME=… `, so the pasted command reaches the
 * same state (a command without it would look in ~/.headspace and say
 * "no workspace").
 */
export function cliActionRenderer(home?: string): RenderAction {
  const prefix = home === undefined || home === '' || home === defaultHome() ? '' : `HEADSPACE_HOME=${shellQuote(home)} `;
  return (action) => `${prefix}${cliCommand(action)}`;
}

/** A call as the command line the CLI parses into it: positional arguments where the verb takes them, each other argument as its flag. */
function cliCommand({ verb, args }: NextAction): string {
  const spec = VERBS.find((v): v is EngineVerbSpec => v.name === verb && 'method' in v);
  const positional = spec?.argKeys.filter((key) => !key.endsWith('...')) ?? [];
  const given = { ...args };
  // declare's one argument is NAME=PURPOSE.
  if (verb === 'declare' && typeof given.name === 'string' && given.purpose !== undefined) {
    given.name = `${given.name}=${String(given.purpose)}`;
    delete given.purpose;
  }
  const words = ['headspace', verb, ...positional.filter((key) => key in given).map((key) => cliWord(given[key]!))];
  for (const [key, value] of Object.entries(given)) {
    if (positional.includes(key) || value === false) continue;
    const flag = flagOf(spec, key);
    words.push(value === true ? flag : `${flag} ${cliWord(value)}`);
  }
  return words.join(' ');
}

/** The flag that fills an input key (`hostPaths` is --allow-host-path), or --kebab-key for one the CLI adds itself (inspect's logs). */
function flagOf(spec: EngineVerbSpec | undefined, key: string): string {
  const option = spec?.inputOptions.find((o) => o.key === key);
  return option ? option.flags.split(' ')[0]! : `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Placeholders in capitals stay bare, so `--to PATH` reads as a placeholder, not a quoted word. */
function cliWord(value: string | number | boolean): string {
  const text = String(value);
  return /^[A-Z][A-Z_]*$/.test(text) ? text : shellQuote(text);
}
