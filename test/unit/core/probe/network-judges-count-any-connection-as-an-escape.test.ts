/**
 * loopback and external-network: any connection is an escape, whether the
 * job says it connected or the host listener saw it; refusals are evidence.
 */
import { describe, expect, it } from 'vitest';
import { externalNetwork, loopback } from '../../../../src/core/probe/scenarios-isolation.js';
import { job } from './facts.js';

describe('loopback', () => {
  it('is contained when the host listener accepted nothing', () => {
    const verdict = loopback.judge(job('refused: 127.0.0.1:4000 Connection refused\nprobe-done\n'), { accepted: 0, greeting: 'hsprobe-hello-1' });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('Connection refused') });
  });

  it('escapes when the host listener accepted a connection, even if the job printed nothing of it', () => {
    expect(loopback.judge(job('probe-done\n'), { accepted: 1, greeting: 'hsprobe-hello-1' }).verdict).toBe('escaped');
  });
});

describe('external-network', () => {
  it('is contained when every connect failed', () => {
    const verdict = externalNetwork.judge(job('refused: 1.1.1.1:53 Network is unreachable\nrefused: 8.8.8.8:53 Network is unreachable\nprobe-done\n'), {});
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('Network is unreachable') });
  });

  it('escapes when one connect succeeded', () => {
    expect(externalNetwork.judge(job('connected: 8.8.8.8:53\nprobe-done\n'), {}).verdict).toBe('escaped');
  });
});
