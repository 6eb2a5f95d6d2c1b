/**
 * An owner that has exited but not yet been reaped (a zombie) holds nothing
 * any more, so it is not alive: a killed detached supervisor is an orphan,
 * and on a host whose init reaps orphans only every second or two its pid
 * and start time still matched for that long, which kept `wait` and `doctor`
 * from seeing its jobs orphaned (#20). Here the zombie's parent is a `sleep`
 * that never reaps it, so it stays a zombie for as long as the test looks.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isOwnerAlive, processStartTime } from '../../../../src/core/store/owner.js';

const stateOf = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
};

describe.runIf(process.platform === 'linux')('an exited owner not yet reaped', () => {
  it('is not alive, with its start time or without, while a live process is', async () => {
    // The shell starts a short child, prints its pid, then becomes a sleep that never waits for it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      const started = processStartTime(pid);
      expect(started).not.toBeNull();
      expect(isOwnerAlive({ pid, started })).toBe(true);
      for (let i = 0; i < 200 && stateOf(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(stateOf(pid)).toBe('Z');
      expect(processStartTime(pid)).toBe(started);
      expect(isOwnerAlive({ pid, started })).toBe(false);
      expect(isOwnerAlive({ pid, started: null })).toBe(false);
      expect(isOwnerAlive({ pid: parent.pid!, started: processStartTime(parent.pid!) })).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
