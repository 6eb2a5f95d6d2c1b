/**
 * The shared supervisor's idle exit loses no job (#15): with an idle time of
 * 1 ms, callers connect at seeded moments, so many meet a supervisor whose
 * idle exit is beginning. A caller that got the owner line and handed its
 * job over must see that job supervised, exactly once; a caller refused
 * before the owner line has handed over nothing and tries again, as
 * detach-job.ts does, starting a new supervisor when none answers. Every
 * job ends up supervised exactly once, and each supervisor run exits. The
 * jobs come in two waves, the second after the first's supervisor exited
 * idle, so the restart the test checks for always happens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSharedSupervisor } from '../../../../src/core/run/shared-supervisor.js';
import { parseLine, readLines, supervisorPaths, writeLine } from '../../../../src/core/run/supervisor-socket.js';
import { seeded } from '../../../reliability/reliability-helpers.js';

const home = mkdtempSync(join(tmpdir(), 'hs-shared-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** One try: true when the supervisor took the job (owner line, handover, acknowledgement); false when refused before the owner line. */
function handOver(jobId: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect(supervisorPaths(home).socket);
    let owned = false;
    socket.on('error', () => undefined);
    socket.on('close', () => (owned ? reject(new Error(`${jobId}: the connection ended after the owner line, before the acknowledgement`)) : resolve(false)));
    socket.on('connect', () => writeLine(socket, { v: 1, job: jobId }));
    readLines(socket, (line) => {
      const message = parseLine(line);
      if (!owned && message?.owner) {
        owned = true;
        writeLine(socket, JSON.stringify({ v: 1, jobId, intentId: 1, env: {} }));
      } else if (owned && message?.accepted === true) {
        owned = false;
        socket.destroy();
        resolve(true);
      }
    });
  });
}

describe('the shared supervisor', () => {
  it('supervises every job handed over exactly once, even as its idle exit begins', async () => {
    const rng = seeded(15_001);
    const supervised: string[] = [];
    let serving: Promise<unknown> | null = null;
    let runs = 0;
    const ensureServing = () => {
      serving ??= serveSharedSupervisor({
        home,
        idleMs: 1,
        supervise: async (jobId, handover) => {
          if (handover !== '') supervised.push(jobId);
          await new Promise((r) => setTimeout(r, Math.floor(rng() * 3)));
        },
      }).finally(() => {
        runs++;
        serving = null;
      });
    };
    const handOverAll = (wave: string[]) =>
      Promise.all(
        wave.map(async (jobId) => {
          await new Promise((r) => setTimeout(r, Math.floor(rng() * 200)));
          // As detach-job.ts does: keep trying for up to 10 s (a count of tries ran out on a loaded machine while a supervisor was still starting).
          const giveUpAt = Date.now() + 10_000;
          while (Date.now() < giveUpAt) {
            if (await handOver(jobId)) return;
            ensureServing();
            await new Promise((r) => setTimeout(r, 2));
          }
          throw new Error(`${jobId} was never taken`);
        }),
      );
    const jobs = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    // Two waves, the second only once the first's supervisor has exited idle: a restart then happens by
    // construction, not by luck of timing (on a loaded machine one run could otherwise take all 40 jobs).
    await handOverAll(jobs.slice(0, 20));
    while (serving) await serving;
    expect(runs, 'the supervisor exited when idle').toBeGreaterThanOrEqual(1);
    const runsAfterFirstWave = runs;
    await handOverAll(jobs.slice(20));
    while (serving) await serving;
    expect(supervised.sort()).toEqual([...jobs].sort());
    expect(runs, 'a supervisor was started again after the idle exit, and exited too').toBeGreaterThan(runsAfterFirstWave);
  }, 30_000);
});
