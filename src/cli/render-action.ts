/**
 * The CLI's words for a suggested call (core/result/next-action.ts): a
 * command to paste into a shell, `headspace export W NAME --to PATH`. Core
 * names no flag; this is the one place that turns an argument name into one.
 */
import { defaultHome, shellQuote } from '../core/context.js';
import type { NextAction, RenderAction } from '../core/result/next-action.js';

/**
 * Each verb's positional arguments, in order; every other argument is a
 * `--kebab-case` flag. (For now by hand; the verb table will supply it.)
 */
export const CLI_POSITIONAL: Readonly<Record<string, readonly string[]>> = {
  stop: ['workspaceId'],
  destroy: ['workspaceId'],
  export: ['workspaceId', 'name'],
  declare: ['workspaceId', 'name'],
  'ls-files': ['workspaceId'],
  logs: ['jobId'],
  inspect: ['handle'],
  probe: ['scenario'],
};

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

function cliCommand({ verb, args }: NextAction): string {
  const positional = CLI_POSITIONAL[verb] ?? [];
  const words = ['headspace', verb, ...positional.filter((key) => key in args).map((key) => cliWord(args[key]!))];
  for (const [key, value] of Object.entries(args)) {
    if (positional.includes(key) || value === false) continue;
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    words.push(value === true ? flag : `${flag} ${cliWord(value)}`);
  }
  return words.join(' ');
}

/** Placeholders in capitals stay bare, so `--to PATH` reads as a placeholder, not a quoted word. */
function cliWord(value: string | number | boolean): string {
  const text = String(value);
  return /^[A-Z][A-Z_]*$/.test(text) ? text : shellQuote(text);
}
