/**
 * How a result or a hint tells its reader to call a verb, in the words of the
 * face that will show it (#12 item 22). The CLI reads `headspace stop W
 * --apply`; an MCP client reads `stop {"workspaceId":"W","apply":true}`, a
 * tool call it can make. Core writes each suggestion once, as a verb and its
 * arguments (named as the library and the MCP tools name them), and the
 * engine's face renders it; before, a model over MCP was told CLI flags it
 * could not pass. A later issue may carry these as structured actions.
 */
import { shellQuote } from './result/shell-quote.js';

/** Which face an engine serves: its suggestions are written for it. */
export type Face = 'cli' | 'mcp';

export type InvocationArgs = Record<string, string | number | boolean>;

/** Writes one call of `verb` for the engine's face. */
export type Invoke = (verb: string, args?: InvocationArgs) => string;

/** The CLI's positional arguments, in order; every other argument is a `--kebab-case` flag. */
const CLI_POSITIONAL: Readonly<Record<string, readonly string[]>> = {
  stop: ['workspaceId'],
  destroy: ['workspaceId'],
  export: ['workspaceId', 'name'],
  declare: ['workspaceId', 'name'],
  'ls-files': ['workspaceId'],
  logs: ['jobId'],
  inspect: ['handle'],
};

/**
 * `prefix` goes before a CLI command (e.g. `HEADSPACE_HOME=… ` for a home that
 * is not the default); placeholders (`PATH`, `PATTERN`) pass through as given.
 */
export function invocationFor(face: Face, prefix = ''): Invoke {
  if (face === 'mcp') return (verb, args = {}) => `${verb} ${JSON.stringify(args)}`;
  return (verb, args = {}) => {
    const positional = CLI_POSITIONAL[verb] ?? [];
    const words = ['headspace', verb, ...positional.filter((key) => key in args).map((key) => cliWord(args[key]!))];
    for (const [key, value] of Object.entries(args)) {
      if (positional.includes(key) || value === false) continue;
      const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      words.push(value === true ? flag : `${flag} ${cliWord(value)}`);
    }
    return `${prefix}${words.join(' ')}`;
  };
}

/** Placeholders in capitals stay bare, so `--to PATH` reads as a placeholder, not a quoted word. */
function cliWord(value: string | number | boolean): string {
  const text = String(value);
  return /^[A-Z][A-Z_]*$/.test(text) ? text : shellQuote(text);
}
