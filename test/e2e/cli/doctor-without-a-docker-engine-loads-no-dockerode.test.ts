/**
 * dockerode (with docker-modem and ssh2) costs ~250 ms of CPU to load on this
 * machine kind, and every `doctor` paid it to learn that no engine is set up:
 * the docker and swarm providers made their engine clients when they were
 * made. The client is now made at its first use, and the default socket with
 * nothing at its path answers the probe without one, in the same words. The
 * control: an engine address that answers (here with HTTP 500) is asked
 * through dockerode, so the trace would see it.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { moduleTrace } from '../../helpers/module-trace.js';

const { home, cleanup } = makeHome();
const trace = moduleTrace();
afterAll(async () => {
  await cleanup();
  trace.cleanup();
});

const DEFAULT_SOCKET = '/var/run/docker.sock';
const loadsDockerode = (modules: string[]) => modules.some((m) => m.includes('/node_modules/dockerode/'));

describe('doctor on a host without a Docker Engine', () => {
  it.runIf(!existsSync(DEFAULT_SOCKET))(`says docker is not configured here without loading dockerode (needs no engine at ${DEFAULT_SOCKET})`, () => {
    trace.reset();
    const doctor = cli(home, ['doctor'], trace.env);
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(doctor.stdout).toContain(
      `provider docker: not configured here (no Docker Engine answers at unix://${DEFAULT_SOCKET}: connect ENOENT ${DEFAULT_SOCKET})`,
    );
    const modules = trace.modules();
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(loadsDockerode(modules)).toBe(false);
  });

  it('would be caught: an address that answers is asked through dockerode', async () => {
    const socket = join(home, 'not-an-engine.sock');
    const server = createServer((_req, res) => res.writeHead(500).end('not an engine'));
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      trace.reset();
      // Not spawnSync: the listener answers from this process's event loop.
      const doctor = await cliAsync(home, ['doctor'], { ...trace.env, DOCKER_HOST: `unix://${socket}` });
      expect(doctor.stdout).toContain(`no Docker Engine answers at unix://${socket}: (HTTP code 500)`);
      expect(loadsDockerode(trace.modules())).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
