/**
 * Over MCP a suggested next call is a tool call the model can make. Verbs
 * kept off MCP on purpose (rules, review-policy, events-requeue, gc) have no
 * tool: a suggestion of one must say it is the operator's CLI command, not
 * read as a call (a rule refusal once suggested `rules {…}`, which the
 * server answered with -32602 unknown tool). The command is spelt
 * as the shell spells it — a verb the CLI spells in two words reads
 * as it is typed (`headspace batch cancel`, never a `headspace batch-cancel`
 * that does not exist) — with the arguments as the library names them.
 */
import { describe, expect, it } from 'vitest';
import { nextAction } from '../../../src/core/next-action.js';
import { mcpActionRenderer } from '../../../src/mcp/render-action.js';
import { TOOLS } from '../../../src/mcp/tools/index.js';

describe('an MCP suggestion of a verb with no tool', () => {
  it('names the operator and the CLI command instead of a tool call', () => {
    const names = new Set(TOOLS.map((tool) => tool.name));
    for (const [verb, args, words] of [
      ['rules', { workspaceId: 'w' }, 'rules'],
      ['review-policy', { workspaceId: 'w' }, 'review-policy'],
      ['events-requeue', { subscriptionId: 'sub-1' }, 'events requeue'],
      ['batch-cancel', { groupId: 'bg-1' }, 'batch cancel'],
      ['batch-status', { groupId: 'bg-1' }, 'batch status'],
    ] as const) {
      expect(names.has(verb)).toBe(false);
      const text = mcpActionRenderer(nextAction(verb, args));
      expect(text).toBe(`not an MCP tool: ask the operator to run headspace ${words} with ${JSON.stringify(args)}`);
    }
  });

  it('leaves a call to a tool as the call', () => {
    expect(mcpActionRenderer(nextAction('inspect', { handle: 'w' }))).toBe('inspect {"handle":"w"}');
  });
});
