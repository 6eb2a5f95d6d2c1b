/**
 * doctor is the recovery tool, so it must end whatever an engine does. Its
 * probe of the docker engine was bounded (10 s), but the leftover listing
 * after it asked the same engine again without a bound: with DOCKER_HOST at a
 * socket that accepts and never answers, doctor never returned. The listing
 * now is not attempted after a probe the engine did not answer (whose
 * failed engine check already says so), and is bounded itself. The swarm
 * provider's probe asked its manager with no bound at all (an outside red
 * team found doctor held there too): it is bounded the same way, as are
 * both providers' questions about one recorded workspace (every verb's
 * reconcile and doctor ask them: a second round found doctor held there), and
 * a manager that answers but never lists its nodes is a failed check, not an
 * internal error (exit 7). Each provider, and each recorded workspace's
 * provider, is asked at once (session 17), and the repair plan takes the
 * report's answer about each workspace: one after another, and again for
 * the plan, each silent engine added its whole bound to doctor's time.
 */
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createServer as createHttpServer } from 'node:http';
import { cliAsync, makeHome } from '../../helpers/cli.js';

const homes = [makeHome(), makeHome()];
afterAll(() => Promise.all(homes.map((h) => h.cleanup())));

/** The probe bound (docker/probe.ts PROBE_TIMEOUT_MS) each unanswered question costs. */
const BOUND_MS = 10_000;

// Each case has a home of its own and waits on sockets, not the CPU: they run at once.
describe.concurrent('doctor against an engine that accepts and never answers', () => {
  it('ends after one probe bound, both engines named as not answering', async () => {
    const home = homes[0]!.home;
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
      // The docker and the swarm probe are asked at once: asked in turn, they took two bounds.
      expect(Date.now() - started).toBeLessThan(2 * BOUND_MS - 1_000);
      expect(doctor.stdout).toContain(`docker engine: FAILED — no Docker Engine answers at unix://${socket}: no answer within 10 s`);
      // Said once, as the engine check: the leftover listing is not attempted (it once hung here), nor reported again.
      expect(doctor.stdout).not.toContain('could not list its leftovers');
      expect(doctor.stdout).toContain(`swarm swarm-manager: FAILED — no engine answers at unix://${socket}: no answer within 10 s`);
    } finally {
      for (const c of held) c.destroy();
      await new Promise((r) => server.close(r));
    }
  }, 120_000);

  it('reports a manager that answers but never lists its nodes as a failed check, in one bound', async () => {
    const home = homes[1]!.home;
    const socket = join(home, 'half.sock');
    const server = createHttpServer((req, res) => {
      if (req.url?.endsWith('/info')) res.end(JSON.stringify({ Swarm: { LocalNodeState: 'active', ControlAvailable: true, Nodes: 1 } }));
      // Anything else (the node list) is never answered.
    });
    await new Promise<void>((r) => server.listen(socket, r));
    // A workspace recorded on swarm, so doctor asks the manager about it too (and the manager never answers that).
    expect((await cliAsync(home, ['create', '--workspace-id', 'on-swarm'])).code).toBe(0);
    const db = new Database(join(home, 'state.db'));
    db.prepare('UPDATE workspaces SET provider = ? WHERE id = ?').run('swarm', 'on-swarm');
    db.close();
    try {
      const started = Date.now();
      const doctor = await cliAsync(home, ['doctor', '--provider', 'swarm'], { HEADSPACE_SWARM_HOST: `unix://${socket}` });
      // The node list and the workspace are asked at once, and the repair plan takes that answer about the workspace
      // instead of asking again: asked in turn, three bounds; asked at once but twice, two.
      expect(Date.now() - started).toBeLessThan(2 * BOUND_MS - 1_000);
      // Exit 7 is doctor's verdict on a named provider that is not ready; the probe itself once threw instead.
      expect(doctor.stderr).not.toContain('internal error');
      expect(doctor.stdout).toContain('swarm swarm-nodes: FAILED — the manager did not list its nodes: no answer within 10 s');
      expect(doctor.stdout).toContain(
        // Named by the one bound every engine call has (answer-bounds.ts), which ends it first.
        'workspace on-swarm: the swarm provider could not be asked (the Swarm manager failed inspecting the workspace service: no answer within 10 s (GET services))',
      );
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 90_000);
});
