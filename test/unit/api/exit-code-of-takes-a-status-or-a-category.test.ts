/**
 * `exitCodeOf` maps what a library caller holds — a result package's status
 * (`failure`) or a category (`computation_failed`) — to the CLI's exit code,
 * and refuses anything else rather than guessing (#12 item 15).
 */
import { describe, expect, it } from 'vitest';
import { EngineError, EXIT_CODES, exitCodeOf, type ResultStatus } from '../../../src/api/index.js';

describe('exitCodeOf', () => {
  it('maps every status and every category', () => {
    const statuses: Record<ResultStatus, number> = {
      success: 0,
      failure: 6,
      timeout: 4,
      cancelled: 5,
      resource_exhausted: 8,
      policy_denied: 3,
      infrastructure_failure: 7,
    };
    for (const [status, code] of Object.entries(statuses)) expect(exitCodeOf(status as ResultStatus), status).toBe(code);
    for (const [category, code] of Object.entries(EXIT_CODES)) expect(exitCodeOf(category as keyof typeof EXIT_CODES), category).toBe(code);
  });

  it('refuses a word that is neither', () => {
    expect(() => exitCodeOf('failed' as ResultStatus)).toThrow(EngineError);
  });
});
