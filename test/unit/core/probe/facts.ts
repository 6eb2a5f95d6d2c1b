/** Hand-written job facts for the pure probe judges. */
import type { JobFacts } from '../../../../src/core/probe/probe-types.js';
import type { ResultStatus } from '../../../../src/core/status.js';

export function job(output: string, status: ResultStatus = 'success', exitCode: number | null = 0): JobFacts {
  return { status, exitCode, output };
}
