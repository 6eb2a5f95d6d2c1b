/**
 * The shared supervisor bounds how long it reads each line (#15 review): a
 * client that connects and sends nothing, sends half a line (even trickling
 * bytes of it), or sends its job line and never hands over is cut off once
 * the line's timeout passes, and then no longer keeps the supervisor from
 * its idle exit. One that named its job and went silent is treated as a
 * caller that died before handing over (supervised with no handover, which
 * settles a recorded job as never launched). Callers that behave are served
 * meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveSharedSupervisor } from '../../../../src/core/run/shared-supervisor.js';
import { parseLine, readLines, supervisorPaths, writeLine } from '../../../../src/core/run/supervisor-socket.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

const TIMEOUTS = { jobLineMs: 150, handoverMs: 300 };
/** Far past the timeouts even on a loaded machine; a supervisor held open by a client never gets there. */
const BOUND_MS = 8_000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS))]);
}

/** Long enough that the supervisor does not idle out between the test's first connections on a loaded machine. */
function start(supervised: Array<[string, string]>): Promise<unknown> {
  return serveSharedSupervisor({ home, idleMs: 1_500, lineTimeouts: TIMEOUTS, supervise: async (jobId, handover) => void supervised.push([jobId, handover]) });
}

/** A connection, and a promise of its close. */
async function open(): Promise<{ socket: Socket; closed: Promise<void> }> {
  const path = supervisorPaths(home).socket;
  for (;;) {
    const socket = connect(path);
    const ok = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    if (ok) return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a connection to the shared supervisor', () => {
  it('that sends nothing, half a line, or a job line and nothing more is cut off and lets the supervisor go idle', async () => {
    home = mkdtempSync(join(tmpdir(), 'hs-silent-'));
    const supervised: Array<[string, string]> = [];
    const serving = start(supervised);

    const silent = await open();
    const half = await open();
    half.socket.write('{"v":1,"jo');
    // Trickling bytes of the same half line does not move the clock on.
    const trickle = setInterval(() => half.socket.writable && half.socket.write(' '), 40);
    const named = await open();
    writeLine(named.socket, { v: 1, job: 'job-named' });
    // Read (and drop) the owner line: a socket whose data is never read never sees its end.
    named.socket.resume();

    // Meanwhile a caller that behaves is served.
    const served = await open();
    const accepted = new Promise<boolean>((resolve) => {
      readLines(served.socket, (line) => {
        const message = parseLine(line);
        if (message?.owner) writeLine(served.socket, JSON.stringify({ v: 1, jobId: 'job-served', intentId: 1, env: {} }));
        else if (message?.accepted === true) resolve(true);
      });
    });
    writeLine(served.socket, { v: 1, job: 'job-served' });
    expect(await within(accepted, 'the handover of a caller that behaves')).toBe(true);

    await within(Promise.all([silent.closed, half.closed, named.closed]), 'cutting off the silent connections');
    clearInterval(trickle);
    expect(await within(serving, 'the idle exit')).toBe('served');
    expect(supervised.sort()).toEqual([
      ['job-named', ''],
      ['job-served', JSON.stringify({ v: 1, jobId: 'job-served', intentId: 1, env: {} })],
    ]);
  }, 20_000);
});
