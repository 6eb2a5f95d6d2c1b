/**
 * The dashboard's tests (#21): `headspace ui` started from the built bin on a
 * free port, and one headless Chromium per test file (Debian's, driven by
 * playwright-core). Without chromium the browser tests skip with the reason,
 * except under CI=true, where scripts/setup-ui.sh must have installed it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createHeadspace, type Engine } from '../../src/api/index.js';
import { assertBuilt, BIN, makeHome, REPO } from './cli.js';

export const CHROMIUM = process.env.HEADSPACE_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or '' when they can. Throws under CI=true instead of skipping. */
export function chromiumMissing(): string {
  if (existsSync(CHROMIUM)) return '';
  const reason = `no chromium at ${CHROMIUM}: run scripts/setup-ui.sh as root (apt-get install -y chromium), or set HEADSPACE_CHROMIUM`;
  if (process.env.CI === 'true') throw new Error(`CI=true but the dashboard's browser tests cannot run: ${reason}`);
  return reason;
}

export interface UiHandle {
  /** The URL the bin printed, token in its fragment. */
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  token: string;
  stderr(): string;
  /** Ctrl-C, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `headspace ui --port 0 …args` on `home` (`env` over the default PATH and HOME) and resolves once it printed its URL (10 s at most). */
export function startUi(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<UiHandle> {
  assertBuilt();
  const child: ChildProcess = spawn(BIN, ['ui', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...env, HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`headspace ui printed no URL in 10 s; stderr: ${stderr}`));
    }, 10_000);
    void exited.then((code) => reject(new Error(`headspace ui exited ${code}: ${stderr}`)));
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = /^(http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)\n/.exec(stdout);
      if (!line) return;
      clearTimeout(timer);
      resolve({
        url: line[0].trim(),
        base: line[1]!,
        token: line[2]!,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode === null) child.kill('SIGINT');
          return exited;
        },
      });
    });
  });
}

export interface BrowserHandle {
  context: BrowserContext;
  page: Page;
  /** Dialogs the page opened (confirm, prompt, alert), in order: planted script would show up here. */
  dialogs: string[];
  close(): Promise<void>;
}

/** One headless Chromium with a fresh profile and no background traffic; dialogs are recorded and accepted. */
export async function launchBrowser(): Promise<BrowserHandle> {
  const profile = mkdtempSync(join(tmpdir(), 'hs-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.accept();
  });
  return {
    context,
    page,
    dialogs,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A screenshot of a view: into docs/screenshots/ (committed, shown in the
 * README) when HEADSPACE_SCREENSHOTS=1, otherwise into a scratch folder, so
 * an ordinary test run never changes tracked files.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.HEADSPACE_SCREENSHOTS === '1' ? join(REPO, 'docs', 'screenshots') : join(tmpdir(), 'hs-screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
}

export interface DashboardInBrowser {
  /** Why the browser tests cannot run here ('' when they can): pass to describe.skipIf. */
  missing: string;
  home: string;
  /** Set once beforeAll ran (and chromium is present). */
  ui: UiHandle;
  browser: BrowserHandle;
}

/**
 * The set-up every browser test of the dashboard shares: a fresh home, seeded
 * through the engine (fake provider) by `seed` before the server starts,
 * `headspace ui …args` on it and one headless Chromium, all torn down after
 * the file. Nothing starts when chromium is missing (the tests skip).
 */
export function dashboardInBrowser(options: { seed?: (engine: Engine, home: string) => Promise<void>; args?: string[] } = {}): DashboardInBrowser {
  const home = makeHome();
  const suite = { missing: chromiumMissing(), home: home.home } as DashboardInBrowser;
  beforeAll(async () => {
    if (suite.missing) return;
    if (options.seed) {
      const engine = createHeadspace({ home: home.home, defaultProvider: 'fake' });
      try {
        await options.seed(engine, home.home);
      } finally {
        engine.close();
      }
    }
    [suite.ui, suite.browser] = await Promise.all([startUi(home.home, options.args ?? []), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.ui?.stop();
    await home.cleanup();
  });
  return suite;
}

/** Markup planted in workspace content: were it parsed, it would set window.__planted or open a dialog (nothingRan looks). */
export const PLANTED_SCRIPT = '<script>window.__planted = "script"</script>';
export const PLANTED_IMG = '<img src=x onerror="window.__planted = \'img\'; alert(1)">';

/** What planted markup would leave behind had it been parsed: a global, an element in the view, a script beyond app.js, a dialog. */
export async function nothingRan(browser: BrowserHandle): Promise<void> {
  const { page, dialogs } = browser;
  expect(await page.evaluate(() => (window as unknown as { __planted?: string }).__planted)).toBeUndefined();
  expect(await page.locator('main img, main b, main i').count()).toBe(0);
  expect(await page.locator('script').count()).toBe(1); // app.js alone
  expect(dialogs).toEqual([]);
}
