/**
 * `headspace mcp --tools` (select-tools.ts): its sets name only real tools,
 * every tool is in a set besides `all` (a new verb cannot go unlisted), the
 * text `explain mcp` prints lists each set as it is, and a list naming
 * nothing real is refused with the sets and tools in its hint.
 */
import { describe, expect, it } from 'vitest';
import { VERBS } from '../../../src/cli/catalog.js';
import { EngineError } from '../../../src/core/errors.js';
import { nextAction } from '../../../src/core/next-action.js';
import { mcpActionRendererFor } from '../../../src/mcp/render-action.js';
import { TOOLS } from '../../../src/mcp/tools/index.js';
import { selectTools, TOOL_SETS } from '../../../src/mcp/tools/select-tools.js';

const names = (list: string) => selectTools(TOOLS, list).map((t) => t.name);

describe('the --tools sets', () => {
  it('name only real tools, and every tool is in one of them', () => {
    const real = new Set(TOOLS.map((t) => t.name));
    for (const [set, members] of Object.entries(TOOL_SETS)) for (const name of members) expect(real.has(name), `${set}: ${name}`).toBe(true);
    const covered = new Set(Object.values(TOOL_SETS).flat());
    expect(TOOLS.map((t) => t.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  it('combine sets and single tools, in the table order, each once', () => {
    const core = ['create', 'run', 'stop', 'inspect', 'logs', 'ls', 'destroy', 'put', 'declare', 'export', 'ls-files', 'status', 'wait', 'receipt'];
    expect(names('core')).toEqual(core);
    expect(names('fork, core ,fork')).toEqual([...core.slice(0, 13), 'fork', 'receipt']);
    expect(names('all')).toEqual(TOOLS.map((t) => t.name));
  });

  it('are listed as they are by explain mcp', () => {
    const explain = VERBS.find((verb) => verb.name === 'mcp')!.explain;
    for (const [set, members] of Object.entries(TOOL_SETS)) expect(explain).toContain(`${set} (${members.join(', ')}`);
  });

  it('refuse a word that is neither a tool nor a set, and an empty list', () => {
    for (const list of ['core,forks', ',,']) {
      let refused: unknown;
      try {
        selectTools(TOOLS, list);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(EngineError);
      expect((refused as EngineError).category).toBe('user_error');
      expect((refused as EngineError).hint).toContain('core, detach, snapshots');
    }
  });

  it('make a suggested call to a tool not served read as the operator’s, not as a call', () => {
    const render = mcpActionRendererFor(new Set(names('core')));
    expect(render(nextAction('destroy', { workspaceId: 'w' }))).toBe('destroy {"workspaceId":"w"}');
    expect(render(nextAction('fork', { workspaceId: 'w' }))).toBe(
      'the fork tool is not served here (this server was started with --tools): ask the operator to add fork to --tools (its set: snapshots), or to run headspace fork with {"workspaceId":"w"}',
    );
  });
});
