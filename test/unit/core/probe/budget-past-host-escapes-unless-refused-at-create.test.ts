/**
 * budget-past-host: a side workspace asking for more storage than the disk
 * has free, or more memory than the host has, must be refused at create as
 * policy_denied. Created (even when its job was then refused) is an escape;
 * refused for another reason shows nothing about the rule (skipped); a host
 * too large to ask past within the static ranges is skipped, never contained.
 */
import { describe, expect, it } from 'vitest';
import { budgetPastHost, type CapacityAsk, type CapacityFacts } from '../../../../src/core/probe/scenarios-capacity.js';
import { job } from './facts.js';

const GiB = 1024 ** 3;
const done = job('probe-done\n');
const refused = (code = 'POLICY_DENIED'): CapacityAsk['outcome'] => ({ refused: code, at: 'create' });
const ask = (outcome: CapacityAsk['outcome'], asked = 159 * GiB): CapacityAsk => ({ asked, host: '79.0 GiB free under HEADSPACE_HOME', outcome });
const facts = (storage: CapacityAsk | undefined, memory: CapacityAsk | undefined): CapacityFacts => ({ storage, memory });

describe('budget-past-host', () => {
  it('is contained when both asks were refused at create as policy_denied', () => {
    expect(budgetPastHost.judge(done, facts(ask(refused()), ask(refused(), 48 * GiB)))).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('159.0 GiB of storage'),
    });
  });

  it('escapes when a workspace past the host was created', () => {
    expect(budgetPastHost.judge(done, facts(ask({ output: '', exitCode: 0 }), ask(refused())))).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('was created'),
    });
  });

  it('escapes when only its job was refused', () => {
    const verdict = budgetPastHost.judge(done, facts(ask(refused()), ask({ refused: 'HOST_NO_SPACE', at: 'run' })));
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('only its job was refused') });
  });

  it('is skipped when a create was refused for another reason, or nothing could be asked', () => {
    expect(budgetPastHost.judge(done, facts(ask(refused('PROVIDER_FAILURE')), undefined)).verdict).toBe('skipped');
    expect(budgetPastHost.judge(done, facts(undefined, undefined)).verdict).toBe('skipped');
  });
});
