/**
 * Over MCP a suggested next call is a tool call the model can make. Verbs
 * kept off MCP on purpose (rules, review-policy, events-requeue, gc) have no
 * tool: a suggestion of one must say it is the operator's CLI command, not
 * read as a call (a rule refusal once suggested `rules {…}`, which the
 * server answered with -32602 unknown tool). The command is the CLI's own
 * rendering of the call — its verb words, positionals and flags — so a verb
 * the CLI spells in two words reads as it is typed (`headspace batch cancel
 * bg-…`, never a `headspace batch-cancel` that does not exist).
 */
import { describe, expect, it } from 'vitest';
import { nextAction } from '../../../src/core/next-action.js';
import { mcpActionRenderer } from '../../../src/mcp/render-action.js';
import { TOOLS } from '../../../src/mcp/tools/index.js';

describe('an MCP suggestion of a verb with no tool', () => {
  it('names the operator and the CLI command instead of a tool call', () => {
    const names = new Set(TOOLS.map((tool) => tool.name));
    for (const [verb, args, command] of [
      ['rules', { workspaceId: 'w' }, 'headspace rules w'],
      ['events-requeue', { subscriptionId: 'sub-1', staleSeconds: 60 }, 'headspace events requeue sub-1 --stale 60'],
      ['batch-cancel', { groupId: 'bg-1' }, 'headspace batch cancel bg-1'],
      ['batch-status', { groupId: 'bg-1' }, 'headspace batch status bg-1'],
    ] as const) {
      expect(names.has(verb)).toBe(false);
      const text = mcpActionRenderer(nextAction(verb, args));
      expect(text).toBe(`not an MCP tool: ask the operator to run \`${command}\``);
    }
  });

  it('leaves a call to a tool as the call', () => {
    expect(mcpActionRenderer(nextAction('inspect', { handle: 'w' }))).toBe('inspect {"handle":"w"}');
  });
});
