/**
 * doctor is the recovery tool, so it must end whatever an engine does. Its
 * probe of the docker engine was bounded (10 s), but the leftover listing
 * after it asked the same engine again without a bound: with DOCKER_HOST at a
 * socket that accepts and never answers, doctor never returned. The listing
 * now is not attempted after a probe the engine did not answer (whose
 * failed engine check already says so), and is bounded itself. The swarm
 * provider's probe asked its manager with no bound at all (an outside red
 * team found doctor held there too): it is bounded the same way.
 */
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('doctor against an engine that accepts and never answers', () => {
  it('ends after the probe bound, the engine named as not answering', async () => {
    const socket = join(home, 'silent.sock');
    const held = new Set<Socket>();
    const server = createServer((c) => {
      held.add(c);
      c.resume();
    });
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const started = Date.now();
      const doctor = await cliAsync(home, ['doctor'], { DOCKER_HOST: `unix://${socket}`, HEADSPACE_SWARM_HOST: `unix://${socket}` });
      expect(doctor.code, doctor.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(45_000);
      expect(doctor.stdout).toContain(`docker engine: FAILED — no Docker Engine answers at unix://${socket}: no answer within 10 s`);
      // Said once, as the engine check: the leftover listing is not attempted (it once hung here), nor reported again.
      expect(doctor.stdout).not.toContain('could not list its leftovers');
      expect(doctor.stdout).toContain(`swarm swarm-manager: FAILED — no engine answers at unix://${socket}: no answer within 10 s`);
    } finally {
      for (const c of held) c.destroy();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
