/**
 * Host-side git never takes the configuration of a repository it happens
 * upon (red team, hostile manifests: high). A bare repository's files
 * committed beside a headspace.yml (HEAD, config, objects/, refs/) made the
 * folder a repository to git; `plan`, run there, listed a remote's refs with
 * git started in that folder, which obeyed its `url.*.insteadOf` (an https
 * URL turned into git://) and its `core.gitProxy` (a program of the
 * attacker's, run as the caller). Every git call now runs in an empty
 * private folder with discovery stopped above it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, makeHome } from '../../helpers/cli.js';

const base = mkdtempSync(join(tmpdir(), 'hs-git-cwd-'));
const { home, cleanup } = makeHome();
afterAll(async () => {
  await cleanup();
  rmSync(base, { recursive: true, force: true });
});

describe('plan beside a planted bare repository', () => {
  it("runs no program the planted repository's configuration names", () => {
    assertBuilt();
    const project = join(base, 'demo');
    const marker = join(base, 'proxy-ran');
    mkdirSync(join(project, 'objects'), { recursive: true });
    mkdirSync(join(project, 'refs'), { recursive: true });
    writeFileSync(join(project, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(project, 'proxy.sh'), `#!/bin/sh\necho "$@" > '${marker}'\n`);
    chmodSync(join(project, 'proxy.sh'), 0o755);
    // Port 9 on loopback refuses at once: the honest path fails fast, without the network.
    writeFileSync(
      join(project, 'config'),
      `[core]\n\tbare = true\n\tgitProxy = ${join(project, 'proxy.sh')}\n[url "git://127.0.0.2/"]\n\tinsteadOf = https://127.0.0.1:9/\n`,
    );
    writeFileSync(
      join(project, 'headspace.yml'),
      'schema: headspace.workspace/v1\nid: demo\nprovider: fake\nrepositories:\n  - source: https://127.0.0.1:9/x.git\n    ref: main\n    to: x\n',
    );
    const out = spawnSync(BIN, ['plan', '--json'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' },
    });
    expect(existsSync(marker), 'the planted core.gitProxy ran').toBe(false);
    // The remote could not be listed (nothing listens there), which plan reports as a failed check.
    expect(out.stdout, out.stderr).toContain('could not list https://127.0.0.1:9/x.git');
  });
});
