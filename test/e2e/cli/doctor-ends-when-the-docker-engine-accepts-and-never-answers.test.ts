/**
 * doctor is the recovery tool, so it must end whatever the engine does. Its
 * probe of the docker engine was bounded (10 s), but the leftover listing
 * after it asked the same engine again without a bound: with DOCKER_HOST at a
 * socket that accepts and never answers, doctor never returned. The listing
 * now is not attempted after a probe the engine did not answer, says why in
 * the probe's words, and is bounded itself.
 */
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('doctor against an engine that accepts and never answers', () => {
  it('ends after the probe bound and says the leftovers could not be listed', async () => {
    const socket = join(home, 'silent.sock');
    const held = new Set<Socket>();
    const server = createServer((c) => {
      held.add(c);
      c.resume();
    });
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const started = Date.now();
      const doctor = await cliAsync(home, ['doctor'], { DOCKER_HOST: `unix://${socket}` });
      expect(doctor.code, doctor.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(40_000);
      expect(doctor.stdout).toContain(`docker engine: FAILED — no Docker Engine answers at unix://${socket}: no answer within 10 s`);
      expect(doctor.stdout).toContain(`the docker provider could not list its leftovers: no Docker Engine answers at unix://${socket}: no answer within 10 s`);
    } finally {
      for (const c of held) c.destroy();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
