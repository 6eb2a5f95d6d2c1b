/**
 * `headspace ui --open` (#21) hands the system's opener (xdg-open on Linux,
 * found on PATH) a private file (0600 in the home's 0700 `ui/` folder) that
 * sends the browser on to the very URL it prints, once, and removes it when
 * the server stops: the token never appears in the opener's argv, which
 * every local user can read in `ps` (red team, host surfaces); without
 * --open the opener is never run. Where no opener exists the server says so
 * on stderr and serves on: the URL is printed for the person to open.
 * The opener here is a script first on PATH that records its arguments.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../../helpers/cli.js';
import { startUi } from '../../helpers/dashboard.js';

const home = makeHome();
const scratch = mkdtempSync(join(tmpdir(), 'hs-ui-open-'));
const opened = join(scratch, 'opened.txt');
const withOpener = join(scratch, 'with-opener');
const noOpener = join(scratch, 'no-opener');

mkdirSync(withOpener);
writeFileSync(join(withOpener, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${opened}'\n`);
chmodSync(join(withOpener, 'xdg-open'), 0o755);
// A PATH with node (the bin's interpreter) and nothing else: no xdg-open to find.
mkdirSync(noOpener);
symlinkSync(process.execPath, join(noOpener, 'node'));

afterAll(async () => {
  await home.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('headspace ui --open', () => {
  it('runs the opener once with a private page leading to the URL it printed, never the token itself', async () => {
    const ui = await startUi(home.home, ['--open'], { PATH: `${withOpener}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    let page = '';
    try {
      await expect.poll(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : ''), { timeout: 10_000 }).toMatch(/\n$/);
      const argv = readFileSync(opened, 'utf8');
      expect(argv).not.toContain(ui.token);
      page = argv.trim();
      expect(page.startsWith(join(home.home, 'ui', 'open-'))).toBe(true);
      expect(statSync(page).mode & 0o777).toBe(0o600);
      expect(statSync(join(home.home, 'ui')).mode & 0o777).toBe(0o700);
      expect(readFileSync(page, 'utf8')).toContain(`<meta http-equiv="refresh" content="0;url=${ui.url}">`);
      expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{40,}$/);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
    expect(existsSync(page)).toBe(false);
  });

  it('never runs the opener without --open', async () => {
    rmSync(opened, { force: true });
    const ui = await startUi(home.home, [], { PATH: `${withOpener}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    // The server is up and answering before the check: an opener it ran would have been started by now.
    expect((await fetch(`${ui.base}/api/session`, { headers: { authorization: `Bearer ${ui.token}` } })).status).toBe(200);
    expect(await ui.stop()).toBe(0);
    expect(existsSync(opened)).toBe(false);
  });

  it('says on stderr that no opener could run, and serves on', async () => {
    const ui = await startUi(home.home, ['--open'], { PATH: noOpener });
    try {
      await expect.poll(() => ui.stderr(), { timeout: 10_000 }).toContain('could not run xdg-open; open the URL above yourself');
      expect((await fetch(`${ui.base}/api/session`, { headers: { authorization: `Bearer ${ui.token}` } })).status).toBe(200);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
  });
});
