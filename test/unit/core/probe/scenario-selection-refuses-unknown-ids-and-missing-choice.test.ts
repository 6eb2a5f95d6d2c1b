/**
 * Choosing scenarios: one id or --all. Neither, both, or an unknown id is a
 * user error (BAD_ARGUMENT) whose hint lists every scenario id.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIO_IDS, selectScenarios } from '../../../../src/core/probe/scenarios.js';

describe('selectScenarios', () => {
  it('returns every scenario for --all, in table order', () => {
    expect(selectScenarios({ all: true }).map((s) => s.id)).toEqual(SCENARIO_IDS);
  });

  it('returns the one scenario named', () => {
    expect(selectScenarios({ scenario: 'loopback' }).map((s) => s.id)).toEqual(['loopback']);
  });

  it('refuses an unknown id and lists the known ones', () => {
    expect(() => selectScenarios({ scenario: 'teleport' })).toThrow(
      expect.objectContaining({ code: 'BAD_ARGUMENT', hint: expect.stringContaining('write-outside, read-host-file') }),
    );
  });

  it('refuses neither a scenario nor all, suggesting all', () => {
    expect(() => selectScenarios({})).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT', action: { verb: 'probe', args: { all: true } } }));
  });

  it('refuses both a scenario and --all', () => {
    expect(() => selectScenarios({ scenario: 'loopback', all: true })).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
  });
});
