/**
 * Version skew: a client sends its build identity (dist/cli-bundle/build.json)
 * and a server of another build never answers it. That server stops and
 * exits, and the client starts one of its own build, which answers.
 * "Another build" is a copy of bin/ and dist/ whose build.json differs.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, cli, makeHome } from '../../helpers/cli.js';
import { listening, serversOf, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
const other = mkdtempSync(join(tmpdir(), 'hs-other-build-'));
afterAll(async () => {
  await cleanup();
  rmSync(other, { recursive: true, force: true });
});

/** bin/ copied, dist/ linked entry by entry, and a cli-bundle whose build.json names another build. */
function otherBuild(): string {
  mkdirSync(join(other, 'bin'));
  for (const name of readdirSync(join(REPO, 'bin'))) copyFileSync(join(REPO, 'bin', name), join(other, 'bin', name));
  symlinkSync(join(REPO, 'node_modules'), join(other, 'node_modules'));
  symlinkSync(join(REPO, 'package.json'), join(other, 'package.json'));
  mkdirSync(join(other, 'dist', 'cli-bundle'), { recursive: true });
  for (const name of readdirSync(join(REPO, 'dist'))) if (name !== 'cli-bundle') symlinkSync(join(REPO, 'dist', name), join(other, 'dist', name));
  for (const name of ['main.cjs', 'main.cjs.cache']) symlinkSync(join(REPO, 'dist', 'cli-bundle', name), join(other, 'dist', 'cli-bundle', name));
  const info = JSON.parse(readFileSync(join(REPO, 'dist', 'cli-bundle', 'build.json'), 'utf8')) as { build: string };
  writeFileSync(join(other, 'dist', 'cli-bundle', 'build.json'), JSON.stringify({ ...info, build: `other-${info.build}` }));
  return join(other, 'bin', 'headspace');
}

describe('a server of another build', () => {
  it('exits instead of answering, and the client is answered by a server of its own build', async () => {
    const stale = startServe(home, [], otherBuild());
    await until(() => listening(home) && stale.stdout().includes('listening'));
    const expected = cli(home, ['ls'], { HEADSPACE_SERVE: 'off' });
    const answered = cli(home, ['ls'], { HEADSPACE_SERVE: 'require' });
    expect(answered).toEqual(expected);
    expect(await stale.exited).toBe(0);
    const now = serversOf(home);
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(stale.child.pid);
  }, 60_000);
});
