/**
 * socket-families: any socket outside the allow-list that the job could
 * open (AF_VSOCK above all: it is not namespaced; MPTCP or UDP-Lite through
 * an allowed family) is an escape that names it, and so is a refusal with
 * an errno the filter never gives (EPERM for SOCK_PACKET through AF_INET,
 * EACCES for a ping socket): the call reached the kernel's socket code.
 * Contained only when the job reported its attempts and the filter refused
 * every one. An attempt that never reported is skipped.
 */
import { describe, expect, it } from 'vitest';
import { socketFamilies } from '../../../../src/core/probe/scenarios-kernel.js';
import { job } from './facts.js';

const refusedAll = [
  'refused: AF_VSOCK (EAFNOSUPPORT)',
  'refused: AF_PACKET (EAFNOSUPPORT)',
  'refused: AF_INET SOCK_PACKET ETH_P_ALL (ESOCKTNOSUPPORT)',
  'refused: AF_INET MPTCP (EPROTONOSUPPORT)',
  'works: AF_UNIX',
  'works: AF_INET',
  'probe-done',
  '',
].join('\n');

describe('socket-families', () => {
  it('is contained when the filter refused every socket', () => {
    expect(socketFamilies.judge(job(refusedAll), {})).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('4 sockets refused by the filter'),
    });
  });

  it('escapes when a refusal came from the kernel rather than the filter', () => {
    const output = `refused: AF_INET SOCK_PACKET ETH_P_ALL (EPERM)\nrefused: AF_INET ICMP ping (EACCES)\n${refusedAll}`;
    const judgement = socketFamilies.judge(job(output), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain('reached the kernel: AF_INET SOCK_PACKET ETH_P_ALL (EPERM); AF_INET ICMP ping (EACCES)');
    expect(judgement.lines).toContain('refused: AF_INET SOCK_PACKET ETH_P_ALL (EPERM)');
  });

  it('escapes on an MPTCP or UDP-Lite socket made through an allowed family', () => {
    const judgement = socketFamilies.judge(job(`created: AF_INET MPTCP\ncreated: AF_INET6 UDPLITE\n${refusedAll}`), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain('the job opened: AF_INET MPTCP; AF_INET6 UDPLITE');
  });

  it('stays contained but names an ordinary socket that stopped working', () => {
    expect(socketFamilies.judge(job(`broken: AF_INET UDP Protocol not supported\n${refusedAll}`), {})).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('broken: AF_INET UDP'),
    });
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
    expect(socketFamilies.judge(job('refused: AF_VSOCK (EAFNOSUPPORT)\n'), {}).verdict).toBe('skipped');
    expect(socketFamilies.judge(job('', 'failure', 127), {}).verdict).toBe('skipped');
    expect(socketFamilies.judge(job('probe-done\n'), {}).verdict).toBe('skipped');
  });
});
