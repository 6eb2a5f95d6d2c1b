/**
 * A suggested call, as data: the verb and its arguments, named as the library
 * and the MCP tools name them (#11 item 3). Core writes every suggestion this
 * way and never in a face's syntax; each face renders it (the CLI as a shell
 * command, MCP as a tool call), so a model over MCP is never told a CLI flag
 * it cannot pass and a shell user never reads JSON arguments.
 *
 * Argument values in capitals (`PATH`, `NAME`, `PATTERN`) are placeholders the
 * reader fills in; renderers keep them recognisable.
 */
export interface NextAction {
  verb: string;
  args: Record<string, string | number | boolean>;
  /**
   * Arguments the reader must supply (export's destination, a declaration's
   * purpose): left out of `args`, so a caller that makes the call as it is
   * gets the verb's own "missing argument" refusal, never a file named PATH.
   */
  needs?: string[];
  /** The call stands for all of a job's output: a face with an unbounded read shows that one instead (the CLI's inspect --logs). */
  whole?: boolean;
}

/** How a face writes one suggested call for its reader. */
export type RenderAction = (action: NextAction) => string;

export function nextAction(verb: string, args: NextAction['args'] = {}, needs: string[] = []): NextAction {
  return needs.length === 0 ? { verb, args } : { verb, args, needs };
}

/**
 * The face-neutral rendering, `verb {"arg":value}`: what a renderer shows
 * when its face gave none (a library caller rendering a package itself).
 */
export const plainAction: RenderAction = (action) => {
  const json = JSON.stringify(action.args);
  // A needed argument shows as <name>: not JSON, so it cannot be sent as it is.
  const needed = (action.needs ?? []).map((key) => `${JSON.stringify(key)}:<${key}>`);
  return `${action.verb} ${needed.length === 0 ? json : `${json.slice(0, -1)}${json === '{}' ? '' : ','}${needed.join(',')}}`}`;
};

/**
 * A line and the call it suggests, as a face shows them: `text: `call``. Texts
 * that carry an action are worded to end where the call belongs ("end it",
 * "list them").
 */
export function withAction(text: string, action: NextAction | undefined, render: RenderAction): string {
  if (action === undefined) return text;
  const call = render(action);
  const longest = Math.max(0, ...Array.from(call.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${text}: ${fence}${pad}${call}${pad}${fence}`;
}

/**
 * All of a job's captured output: the retrieval every excerpt of it points
 * at. As a call every face can make, the logs of the job (bounded, with the
 * way to page on); marked `whole`, so the CLI, which has an unbounded read,
 * shows `inspect JOB --logs` instead.
 */
export function fullOutputOf(jobId: string): NextAction {
  return { verb: 'logs', args: { jobId }, whole: true };
}
