/**
 * The lifecycle is an explicit table: ready ⇄ running is the only cycle,
 * there is no running → destroyed edge, and an illegal move is refused
 * (user_error) with the legal next states named.
 */
import { describe, expect, it } from 'vitest';
import { TRANSITIONS, WORKSPACE_STATES, canTransition, removalPath, transition } from '../../../../src/core/lifecycle/transitions.js';
import { EngineError } from '../../../../src/core/errors.js';

describe('lifecycle transitions', () => {
  it('allows ready to running and back as the only cycle', () => {
    expect(canTransition('ready', 'running')).toBe(true);
    expect(canTransition('running', 'ready')).toBe(true);
    // No other pair of states reaches each other in both directions.
    for (const a of WORKSPACE_STATES)
      for (const b of WORKSPACE_STATES) {
        if (a !== b && canTransition(a, b) && canTransition(b, a)) expect([a, b].sort()).toEqual(['ready', 'running']);
      }
  });

  it('has no running to destroyed edge', () => {
    expect(canTransition('running', 'destroyed')).toBe(false);
    expect(() => removalPath('running')).toThrow(EngineError);
  });

  it('refuses an illegal move naming every legal next state', () => {
    try {
      transition('running', 'destroyed');
      expect.unreachable();
    } catch (error) {
      const e = error as EngineError;
      expect(e.code).toBe('ILLEGAL_TRANSITION');
      expect(e.category).toBe('user_error');
      for (const legal of TRANSITIONS.running) expect(e.message).toContain(legal);
    }
  });

  it('treats destroyed as final', () => {
    expect(TRANSITIONS.destroyed).toEqual([]);
    expect(() => transition('destroyed', 'ready')).toThrow(/none: it is final/);
  });

  it('removes along a fixed path, never a search', () => {
    expect(removalPath('ready')).toEqual(['ready', 'cancelled', 'destroyed']);
    expect(removalPath('expired')).toEqual(['expired', 'destroyed']);
    for (const state of WORKSPACE_STATES) {
      if (state === 'running') continue;
      const path = removalPath(state);
      for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1]!, path[i]!)).toBe(true);
    }
  });
});
