/**
 * socket-families: any address family outside the allow-list that the job
 * could open (AF_VSOCK above all: it is not namespaced) is an escape that
 * names the family; contained only when the job reported its attempts and
 * every one was refused. An attempt that never reported is skipped.
 */
import { describe, expect, it } from 'vitest';
import { socketFamilies } from '../../../../src/core/probe/scenarios-kernel.js';
import { job } from './facts.js';

const refusedAll = 'refused: AF_VSOCK Address family not supported by protocol\nrefused: AF_PACKET Address family not supported by protocol\nworks: AF_UNIX\nworks: AF_INET\nprobe-done\n';

describe('socket-families', () => {
  it('is contained when every family was refused', () => {
    expect(socketFamilies.judge(job(refusedAll), {})).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('2 families refused') });
  });

  it('escapes naming AF_VSOCK when the job opened and bound one', () => {
    const output = `created: AF_VSOCK\ncreated: AF_VSOCK bound to port 50123 in the host VM vsock space\n${refusedAll}`;
    const judgement = socketFamilies.judge(job(output), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain('AF_VSOCK');
    expect(judgement.lines).toContain('created: AF_VSOCK');
  });

  it('escapes on a netlink protocol other than route', () => {
    expect(socketFamilies.judge(job(`created: AF_NETLINK NETLINK_AUDIT\n${refusedAll}`), {}).evidence).toContain('NETLINK_AUDIT');
  });

  it('is skipped when the attempt did not report or python3 is missing', () => {
    expect(socketFamilies.judge(job('refused: AF_VSOCK x\n'), {}).verdict).toBe('skipped');
    expect(socketFamilies.judge(job('', 'failure', 127), {}).verdict).toBe('skipped');
    expect(socketFamilies.judge(job('probe-done\n'), {}).verdict).toBe('skipped');
  });
});
