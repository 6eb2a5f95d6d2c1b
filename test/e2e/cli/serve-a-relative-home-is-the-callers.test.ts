/**
 * A relative HEADSPACE_HOME names a directory from the caller's working
 * directory, through serve as in-process: the client makes it absolute before
 * it starts a server (which runs in /) or sends a call. It used to start a
 * server whose home was the same name under / (red team, session 11).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, removeHome } from '../../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'hs-relative-home-'));
const name = `rel-${process.pid}`;
afterAll(async () => {
  await removeHome(join(cwd, name));
  rmSync(cwd, { recursive: true, force: true });
});

describe('a relative HEADSPACE_HOME through serve', () => {
  it("is the caller's directory for the server and the call", () => {
    const run = spawnSync(BIN, ['create', '--workspace-id', 'w', '--json'], {
      cwd,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HEADSPACE_HOME: name,
        HEADSPACE_PROVIDER: 'fake',
        HEADSPACE_SERVE: 'require',
        HEADSPACE_SERVE_IDLE_SECONDS: '30',
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(join(cwd, name, 'state.db'))).toBe(true);
    expect(existsSync(join(cwd, name, 'serve', 'sock'))).toBe(true);
    expect(existsSync(join('/', name))).toBe(false);
  });
});
