/**
 * host-path-through-link: a link to /etc must be refused at create, and a
 * link re-pointed at /etc after create must be refused at run. A plain
 * directory refused at create proves nothing (skipped).
 */
import { describe, expect, it } from 'vitest';
import { hostPathThroughLink } from '../../../../src/core/probe/scenarios-descriptors.js';
import { job } from './facts.js';

const ran = job('probe-done\n');

describe('host-path-through-link', () => {
  it('is contained when the link to /etc is refused at create and the re-pointed one at run', () => {
    const verdict = hostPathThroughLink.judge(ran, { linkToEtc: { refused: 'POLICY_DENIED' }, swapped: { refused: "resolves to '/etc'", at: 'run' } });
    expect(verdict.verdict).toBe('contained');
  });

  it('escapes when a link to /etc is accepted at create', () => {
    const verdict = hostPathThroughLink.judge(ran, { linkToEtc: { accepted: true }, swapped: { refused: 'x', at: 'run' } });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('link to /etc was created') });
  });

  it('escapes when a job runs with a re-pointed link, whether or not it saw /etc', () => {
    expect(hostPathThroughLink.judge(ran, { linkToEtc: { refused: 'P' }, swapped: { etcVisible: true, exitCode: 0 } }).evidence).toContain("host's /etc");
    expect(hostPathThroughLink.judge(ran, { linkToEtc: { refused: 'P' }, swapped: { etcVisible: false, exitCode: 1 } }).verdict).toBe('escaped');
  });

  it('is skipped when even the plain directory was refused at create', () => {
    expect(hostPathThroughLink.judge(ran, { linkToEtc: { refused: 'P' }, swapped: { refused: 'POLICY_DENIED', at: 'create' } }).verdict).toBe('skipped');
  });
});
