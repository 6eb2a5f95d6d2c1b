/**
 * The learn text is built per face from the verbs that face offers; a
 * workflow step or a rule about a verb left out (`mcp --tools core` serves
 * no batch) is not shown, so a model is never sent to a tool it cannot call.
 */
import { describe, expect, it } from 'vitest';
import { learnData, learnText, type LearnSurface } from '../../../src/core/learn.js';

const SURFACE: LearnSurface = {
  workflow: ['always shown', { verb: 'fork', text: 'fork W → a copy' }, { verb: 'run', text: 'run W cmd → a result' }],
  rules: [{ verb: 'fork', text: 'A fork is settled back.' }, 'A plain rule.'],
};

describe('the learn text', () => {
  it('leaves out the workflow steps and rules of verbs not offered', () => {
    const verbs = [{ name: 'run', summary: 'Run a command' }];
    const data = learnData(verbs, SURFACE);
    expect(data.workflow).toEqual(['always shown', 'run W cmd → a result']);
    expect(data.rules).toContain('A plain rule.');
    expect(data.rules).not.toContain('A fork is settled back.');
    expect(data.rules.some((r) => r.startsWith('A batch ('))).toBe(false);
    const text = learnText(verbs, SURFACE);
    expect(text).not.toContain('fork');
    expect(text).not.toContain('A batch (');
  });

  it('keeps them where the verb is offered', () => {
    const verbs = [
      { name: 'run', summary: 'Run a command' },
      { name: 'fork', summary: 'Copy a workspace' },
      { name: 'batch', summary: 'Several jobs' },
    ];
    const data = learnData(verbs, SURFACE);
    expect(data.workflow).toEqual(['always shown', 'fork W → a copy', 'run W cmd → a result']);
    expect(data.rules).toContain('A fork is settled back.');
    expect(data.rules.some((r) => r.startsWith('A batch ('))).toBe(true);
  });
});
