/**
 * MCP's words for a suggested call (core/result/next-action.ts): a tool call
 * the model can make, `export {"workspaceId":"W","name":"NAME","to":"PATH"}`.
 */
import { plainAction, type RenderAction } from '../core/next-action.js';
import { VERB_TABLE } from '../core/verb-table/verb-table.js';
import { commandWords } from '../core/verb-table/command-words.js';
import { setServing } from './tools/select-tools.js';

/** Verbs this server has no tool for (rules, review-policy, most events-*, gc): kept off MCP on purpose, an operator's to run. */
const NOT_TOOLS: ReadonlySet<string> = new Set(VERB_TABLE.filter((verb) => verb.onMcp === false).map((verb) => verb.name));

/** Lines of output one logs call pages through when the whole output is suggested. */
const PAGE_LINES = 200;

/** Every verb with a tool: what a server started without --tools serves. */
const EVERY_TOOL: ReadonlySet<string> = new Set(VERB_TABLE.filter((verb) => verb.onMcp !== false).map((verb) => verb.name));

/**
 * Tool names are the verbs and arguments keep their names, so most actions
 * read as they are. All of a job's output (an action marked `whole`) has no
 * tool of its own, because no tool returns an unbounded read: the logs tool
 * pages through it. `served` is the tools this server lists (`--tools`,
 * tools/select-tools.ts): a suggested call to one it left out must not read
 * as a call the model can make either.
 */
export function mcpActionRendererFor(served: ReadonlySet<string>): RenderAction {
  return (action) => {
    if (action.whole === true && action.verb === 'logs' && typeof action.args.jobId === 'string' && served.has('logs')) {
      return `logs ${JSON.stringify({ jobId: action.args.jobId, lines: { from: 1, to: PAGE_LINES } })} (then the next ${PAGE_LINES} lines)`;
    }
    // A call the model cannot make must not read as one (a rule refusal once suggested `rules`, answered -32602 unknown tool).
    // The command as the shell spells it (commandWords: `headspace batch cancel`), never the verb name, which once named a
    // command that did not exist (`headspace batch-cancel`); its arguments as the library names them.
    if (NOT_TOOLS.has(action.verb))
      // No backticks of its own: the markdown renderer wraps an action in them, and nested ones read doubled.
      return `not an MCP tool: ask the operator to run headspace ${commandWords(action.verb)} with ${JSON.stringify(action.args)}`;
    if (!served.has(action.verb))
      return `the ${action.verb} tool is not served here (this server was started with --tools): ask the operator to add ${action.verb} to --tools (its set: ${setServing(action.verb) ?? 'all'}), or to run headspace ${commandWords(action.verb)} with ${JSON.stringify(action.args)}`;
    return plainAction(action);
  };
}

/** The renderer of a server that serves every tool. */
export const mcpActionRenderer: RenderAction = mcpActionRendererFor(EVERY_TOOL);
