/**
 * MCP's words for a suggested call (core/result/next-action.ts): a tool call
 * the model can make, `export {"workspaceId":"W","name":"NAME","to":"PATH"}`.
 */
import { plainAction, type RenderAction } from '../core/next-action.js';

/** Lines of output one logs call pages through when the whole output is suggested. */
const PAGE_LINES = 200;

/**
 * Tool names are the verbs and arguments keep their names, so most actions
 * read as they are. All of a job's output (`inspect` with `logs`) has no
 * tool of its own, because no tool returns an unbounded read: the logs tool
 * pages through it instead.
 */
export const mcpActionRenderer: RenderAction = (action) => {
  if (action.verb === 'inspect' && action.args.logs === true && typeof action.args.handle === 'string') {
    return `logs ${JSON.stringify({ jobId: action.args.handle, lines: { from: 1, to: PAGE_LINES } })} (then the next ${PAGE_LINES} lines)`;
  }
  return plainAction(action);
};
