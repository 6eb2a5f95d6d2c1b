/**
 * What the caller hands the CLI cannot crash it (red team round 3): an
 * --env-file that is /dev/zero (was exit 134, out of memory) or a FIFO (was
 * a hang) is refused as not a regular file, exit 1; a stdout whose reader
 * went away or a full disk under stdout is exit 2 with one line, never a
 * Node stack trace; an environment value holding NUL is refused before any
 * job is recorded (was exit 7).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { createHeadspace } from '../../../src/api/index.js';

const home = makeHome();
const scratch = mkdtempSync(join(tmpdir(), 'hs-streams-'));
afterAll(async () => {
  await home.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('hostile streams', () => {
  it('refuses an --env-file that is not a small regular file', () => {
    expect(cli(home.home, ['create', '--workspace-id', 'ef']).code).toBe(0);
    spawnSync('mkfifo', [join(scratch, 'fifo')]);
    for (const file of ['/dev/zero', join(scratch, 'fifo')]) {
      const run = cli(home.home, ['run', '--env-file', file, 'ef', 'true']);
      expect(run.code, file).toBe(1);
      expect(run.stderr).toContain('not a regular file');
    }
  });

  it('ends with exit 2 and no stack when stdout cannot take the result', () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HEADSPACE_HOME: home.home, HEADSPACE_PROVIDER: 'fake' };
    const full = spawnSync('sh', ['-c', `"${BIN}" cli overview > /dev/full`], { encoding: 'utf8', env });
    expect(full.status).toBe(2);
    expect(full.stderr).toContain('could not be written to stdout');
    expect(full.stderr).not.toMatch(/\n\s+at /);
    const closed = spawnSync('sh', ['-c', `"${BIN}" cli overview | true`], { encoding: 'utf8', env });
    expect(closed.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an environment value holding NUL before any job is recorded', async () => {
    const engine = createHeadspace({ home: home.home, defaultProvider: 'fake' });
    try {
      await expect(engine.run({ workspaceId: 'ef', argv: ['true'], env: { X: 'a\0b' } })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
      const inspected = await engine.inspect({ handle: 'ef' });
      expect(inspected.key_findings).toContain('0 job(s)');
    } finally {
      engine.close();
    }
  });
});
