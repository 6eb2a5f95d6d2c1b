/**
 * The status of a job is decided by one pure function with a fixed
 * precedence: cancelled > timeout > resource_exhausted > the exit status.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../../../src/core/verbs/classify-outcome.js';

const outcome = (over: Partial<Parameters<typeof classifyOutcome>[0]> = {}) => ({
  exitCode: 0,
  signal: null,
  oomKilled: false,
  stopped: false,
  aborted: false,
  durationMs: 1,
  usage: {},
  ...over,
});

describe('outcome precedence', () => {
  it('puts cancelled over timeout over OOM over the exit status, for any combination', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom(null, 'timeout', 'cancelled'),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 255 })),
        (stopped, reason, oom, exit) => {
          const { status } = classifyOutcome(outcome({ stopped, oomKilled: oom, exitCode: exit }), reason as never, false);
          if (stopped || reason === 'cancelled') return status === 'cancelled';
          if (reason === 'timeout') return status === 'timeout';
          if (oom) return status === 'resource_exhausted';
          return status === (exit === 0 ? 'success' : 'failure');
        },
      ),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it('counts a stop recorded in the store even when the provider missed it', () => {
    expect(classifyOutcome(outcome({ exitCode: 0 }), null, true).status).toBe('cancelled');
  });
});
