/**
 * MCP's words for a suggested call (core/result/next-action.ts): a tool call
 * the model can make, `export {"workspaceId":"W","name":"NAME","to":"PATH"}`.
 */
import { plainAction, type RenderAction } from '../core/next-action.js';

/** Lines of output one logs call pages through when the whole output is suggested. */
const PAGE_LINES = 200;

/**
 * Tool names are the verbs and arguments keep their names, so most actions
 * read as they are. All of a job's output (an action marked `whole`) has no
 * tool of its own, because no tool returns an unbounded read: the logs tool
 * pages through it.
 */
export const mcpActionRenderer: RenderAction = (action) => {
  if (action.whole === true && action.verb === 'logs' && typeof action.args.jobId === 'string') {
    return `logs ${JSON.stringify({ jobId: action.args.jobId, lines: { from: 1, to: PAGE_LINES } })} (then the next ${PAGE_LINES} lines)`;
  }
  return plainAction(action);
};
