/**
 * Exit codes are a published contract: 0–9, one per category, never
 * renumbered (9, inconclusive, was added after the seed's 0–8 for
 * verification contracts, #16). A job's terminal statuses map one to one onto 0 and 3–9;
 * `running` (inspect of an unfinished job) is not an outcome and reads 0.
 * `any_exhausted` is a batch's status, never a job's (#16): a failed join,
 * it reads 6 (computation_failed) like a failed job, adding no code.
 */
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, RESULT_STATUSES, categoryOfStatus } from '../../../../src/core/status.js';

describe('exit codes', () => {
  it('pins every category to its number', () => {
    expect(EXIT_CODES).toEqual({
      success: 0,
      user_error: 1,
      environment_error: 2,
      policy_denied: 3,
      timeout: 4,
      cancelled: 5,
      computation_failed: 6,
      infrastructure_failure: 7,
      resource_exhausted: 8,
      inconclusive: 9,
    });
  });

  it("maps a job's terminal statuses one to one onto distinct codes", () => {
    const terminal = RESULT_STATUSES.filter((s) => s !== 'running' && s !== 'any_exhausted');
    const codes = terminal.map((s) => EXIT_CODES[categoryOfStatus(s)]);
    expect(new Set(codes).size).toBe(terminal.length);
    expect(codes.every((c) => c === 0 || (c >= 3 && c <= 9))).toBe(true);
  });

  it('gives a verifier fault (inconclusive) the new code 9, never one of the seed codes', () => {
    expect(EXIT_CODES[categoryOfStatus('inconclusive')]).toBe(9);
  });

  it("reads 6 for a batch's any_exhausted (no job succeeded), the failure code, adding none", () => {
    expect(EXIT_CODES[categoryOfStatus('any_exhausted')]).toBe(6);
  });

  it('reads 0 for a running job, whose inspection worked', () => {
    expect(EXIT_CODES[categoryOfStatus('running')]).toBe(0);
  });
});
