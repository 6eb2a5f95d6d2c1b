/**
 * container-sockets: a connection to any engine socket, or to a socket the
 * probe planted, is an escape; when no engine socket exists on the host the
 * evidence says so, because unreachable-and-absent proves less.
 */
import { describe, expect, it } from 'vitest';
import { containerSockets } from '../../../../src/core/probe/scenarios-isolation.js';
import { job } from './facts.js';

const facts = { presentOnHost: [] as string[], plantedAccepted: 0, planted: ['/run/hsprobe-1.sock', '@hsprobe-1'] };

describe('container-sockets', () => {
  it('is contained when nothing connected, and says no engine socket exists here', () => {
    const verdict = containerSockets.judge(job('refused: /var/run/docker.sock No such file or directory\nprobe-done\n'), facts);
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('no engine socket exists on this host') });
  });

  it('escapes when the job connected to an engine socket', () => {
    expect(containerSockets.judge(job('connected: /var/run/docker.sock\nprobe-done\n'), { ...facts, presentOnHost: ['/var/run/docker.sock'] }).verdict).toBe(
      'escaped',
    );
  });

  it('escapes when a planted socket accepted a connection', () => {
    expect(containerSockets.judge(job('probe-done\n'), { ...facts, plantedAccepted: 1 }).verdict).toBe('escaped');
  });
});
