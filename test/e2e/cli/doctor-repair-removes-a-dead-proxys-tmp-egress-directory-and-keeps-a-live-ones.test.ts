/**
 * #18 follow-up: a /tmp/hs-egress-XXXXXX directory an older version's
 * crashed proxy left is a doctor leftover; `doctor --repair --apply`
 * removes it under the usual convention (listed, marked safe, removed), and
 * keeps one whose socket a live process still listens on. The bin's
 * temporary directory is the test's own (TMPDIR), so no one else's is seen.
 */
import { mkdirSync, existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
const tmp = mkdtempSync(join(tmpdir(), 'hs-doctor-tmp-'));
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await cleanup();
});

describe('doctor --repair --apply', () => {
  it('removes a dead proxy’s /tmp/hs-egress directory and keeps one a live process listens in', async () => {
    const dead = join(tmp, 'hs-egress-Dead01');
    const live = join(tmp, 'hs-egress-Live01');
    mkdirSync(dead, { mode: 0o700 });
    mkdirSync(live, { mode: 0o700 });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(live, 'egress.sock'), resolve));
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const d of [dead, live]) utimesSync(d, hourAgo, hourAgo);
    try {
      const dry = await cliAsync(home, ['doctor', '--repair', '--provider', 'native', '--json'], { TMPDIR: tmp });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`directory ${dead}`);
      expect(dry.stdout).not.toContain(live);
      expect(existsSync(dead)).toBe(true);
      const applied = await cliAsync(home, ['doctor', '--repair', '--apply', '--provider', 'native', '--json'], { TMPDIR: tmp });
      expect(applied.code, applied.stderr).toBe(0);
      expect(JSON.parse(applied.stdout).key_findings).toContain(`repaired: removed directory ${dead}`);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(join(live, 'egress.sock'))).toBe(true);
    } finally {
      server.close();
    }
  });
});
