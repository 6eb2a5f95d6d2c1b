/**
 * An attempt that could not run (a missing tool: exit 127, a timeout, an
 * engine failure, no completion line) proves nothing: every judge calls it
 * skipped, never contained.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../../../src/core/probe/scenarios.js';
import { job } from './facts.js';

const emptyHost = {
  landed: [],
  checked: 0,
  contents: [],
  value: 'x',
  accepted: 0,
  greeting: 'x',
  presentOnHost: [],
  plantedAccepted: 0,
  planted: [],
  needles: [],
  reads: [],
  seen: [],
  remaining: [],
  providerFound: false,
  providerEmpty: true,
  pidsLimit: 64,
  memoryBytes: 1 << 27,
  hostCanSpawn: true,
  capBytes: 1 << 25,
  onHost: false,
  hostFreeBefore: null,
  hostFreeAfter: null,
};

describe('every scenario', () => {
  it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s is skipped when python3 is missing (exit 127)', (_id, scenario) => {
    expect(scenario.judge(job('sh: 1: exec: python3: not found\n', 'failure', 127), emptyHost).verdict).toBe('skipped');
  });

  it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s is skipped when the attempt timed out', (_id, scenario) => {
    expect(scenario.judge(job('', 'timeout', null), emptyHost).verdict).toBe('skipped');
  });
});
