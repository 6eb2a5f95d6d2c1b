/**
 * socket-memory: TCP or UDP buffers the job held beyond its memory budget
 * are an escape whatever else happened (the kernel's own SO_MEMINFO figures,
 * reported by the job); within the budget it is contained only once both
 * protocols reported and the job finished. The host's sockstat rise is
 * evidence, never the verdict (other processes share it).
 */
import { describe, expect, it } from 'vitest';
import { socketMemory, type SocketMemoryFacts } from '../../../../src/core/probe/scenarios-memory.js';
import { job } from './facts.js';

const MiB = 1024 * 1024;
const facts: SocketMemoryFacts = {
  budgetBytes: 128 * MiB,
  capBytes: 512 * MiB,
  host: { tcpPeakRiseBytes: 30 * MiB, udpPeakRiseBytes: 31 * MiB, tcpMemMaxBytes: 2249 * MiB },
};
const line = (proto: string, bytes: number, why = 'limited') => `${proto}-held: ${bytes} sent=${bytes} sockets=8 stop=${why} errors=EAGAIN:40\n`;

describe('socket-memory', () => {
  it('escapes when TCP buffers held more than the memory budget', () => {
    const verdict = socketMemory.judge(job(line('tcp', 512 * MiB, 'cap') + line('udp', 20 * MiB) + 'probe-done\n'), facts);
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('TCP buffers held 512.0 MiB') });
  });

  it('escapes on UDP buffers alone', () => {
    expect(socketMemory.judge(job(line('tcp', 30 * MiB) + line('udp', 300 * MiB, 'cap') + 'probe-done\n'), facts)).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('UDP'),
    });
  });

  it('escapes even when the job was cut short after reporting too much', () => {
    expect(socketMemory.judge(job(line('tcp', 200 * MiB), 'timeout', null), facts).verdict).toBe('escaped');
  });

  it('is contained when both protocols were held within the budget and the job finished', () => {
    const verdict = socketMemory.judge(job(line('tcp', 32 * MiB) + line('udp', 32 * MiB) + 'probe-done\n'), facts);
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('host socket memory rose by at most 30.0 MiB') });
  });

  it('is skipped, never contained, when the attempt did not report both protocols', () => {
    expect(socketMemory.judge(job(line('tcp', 32 * MiB) + 'probe-done\n'), facts).verdict).toBe('skipped');
    expect(socketMemory.judge(job(line('tcp', 32 * MiB), 'resource_exhausted', 137), facts).verdict).toBe('skipped');
    expect(socketMemory.judge(job('', 'failure', 127), facts).verdict).toBe('skipped');
  });
});
