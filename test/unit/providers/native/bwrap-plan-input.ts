/** A complete planBwrap input with neutral defaults, for planner tests that vary one part. */
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import type { BwrapPlanInput } from '../../../../src/providers/native/plan-bwrap.js';

export function bwrapPlanInput(patch: Partial<BwrapPlanInput> = {}): BwrapPlanInput {
  return {
    filesDir: '/f',
    policy: defaultPolicy(),
    exposures: [],
    cwd: '',
    env: {},
    seccompFd: 4,
    procMasks: [],
    resolvedHostPaths: {},
    ...patch,
  };
}
