// The dashboard (#21) on a store of 1,000 workspaces (FAKE provider, real
// SQLite store on disk), as ratios to `headspace ls --json` on the same store:
//  - the workspace list's first page from the running `headspace ui` server
//    (GET /api/workspaces, the engine's ls sliced to 100 rows, with the
//    page's policy labels), and then that page's storage, which the page
//    asks for once the rows are shown (a list page plus the storage request);
//  - a page load in headless Chromium until the first 100 rows are in the
//    DOM ("list shown"), and the page's own first-contentful-paint.
// Interleaved rounds (A B C A B C …), medians and p90s. Without chromium the
// browser rows are skipped with the reason.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, table } from './lib/stats.mjs';
import { cliEnv, loadAverage, runChild } from './lib/peers.mjs';

const WORKSPACES = Number(process.env.HS_BENCH_STORE_WORKSPACES ?? 1000);
const CHROMIUM = process.env.HEADSPACE_CHROMIUM ?? '/usr/bin/chromium';

export async function benchDashboard({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 15) }) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-dashboard-'));
  const profile = mkdtempSync(join(tmpdir(), 'hs-bench-chromium-'));
  const load = { before: loadAverage() };
  const closers = [];
  try {
    const engine = api.createHeadspace({ home, defaultProvider: 'fake' });
    for (let i = 0; i < WORKSPACES; i++) await engine.create({ purpose: `dashboard scale ${i}`, owner: 'bench' });
    engine.close();
    const bin = join(repo, 'bin', 'headspace');
    const env = cliEnv({ HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' });
    const ui = await startUi(bin, env);
    closers.push(() => ui.stop());
    const contenders = [
      { name: `headspace ls --json (${WORKSPACES} workspaces)`, run: () => runChild(bin, ['ls', '--json'], { env }) },
      {
        name: 'ui: first page of the list (GET /api/workspaces, 100 rows)',
        run: async () => {
          const response = await fetch(`${ui.base}/api/workspaces?offset=0&limit=100`, { headers: { authorization: `Bearer ${ui.token}` } });
          const page = await response.json();
          if (page.total !== WORKSPACES) throw new Error(`the list has ${page.total} workspaces`);
        },
      },
      {
        // The list's storage column, asked once the rows are shown (#21): the provider measures each of the page's workspaces.
        name: "ui: the first page's storage (GET /api/workspace-storage, 100 ids)",
        run: async () => {
          const page = await (await fetch(`${ui.base}/api/workspaces?offset=0&limit=100`, { headers: { authorization: `Bearer ${ui.token}` } })).json();
          const ids = page.rows.map((r) => r.id).join(',');
          const response = await fetch(`${ui.base}/api/workspace-storage?ids=${ids}`, { headers: { authorization: `Bearer ${ui.token}` } });
          if ((await response.json()).length !== 100) throw new Error('the storage of 100 workspaces was not measured');
        },
      },
    ];
    const skips = {};
    const paints = [];
    if (!existsSync(CHROMIUM)) skips['ui: page load in chromium'] = `no chromium at ${CHROMIUM} (scripts/setup-ui.sh installs it as root)`;
    else {
      const { chromium } = await import('playwright-core');
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
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
      closers.push(() => context.close());
      const page = context.pages()[0] ?? (await context.newPage());
      contenders.push({
        name: 'ui: page load until 100 rows are shown (chromium)',
        run: async () => {
          await page.goto('about:blank');
          await page.goto(ui.url);
          await page.waitForFunction(() => document.querySelectorAll('[data-testid="workspace-row"]').length === 100, null, { timeout: 30_000 });
          const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
          paints.push(fcp);
        },
      });
    }
    const latency = await interleave(contenders, { rounds, warmup: 2 });
    paints.splice(0, 2); // the warm-ups
    const sorted = [...paints].sort((a, b) => a - b);
    load.after = loadAverage();
    const result = {
      provider: 'fake',
      workspaces: WORKSPACES,
      latency,
      firstContentfulPaintMs: { median: sorted[Math.floor(sorted.length / 2)] ?? NaN },
      skips,
      load,
    };
    return { name: 'dashboard', result, markdown: render(result) };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

function startUi(bin, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['ui', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`headspace ui exited ${code}: ${err.slice(0, 400)}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const match = /^(http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)\n/.exec(out);
      if (!match) return;
      resolve({
        url: match[0].trim(),
        base: match[1],
        token: match[2],
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      });
    });
  });
}

function render(r) {
  const floor = Object.values(r.latency)[0].median;
  const rows = Object.entries(r.latency).map(([name, t]) => ({
    'what (same store)': name,
    'median ms': ms(t.median),
    'p90 ms': ms(t.p90),
    'ratio to ls --json': (t.median / floor).toFixed(2),
  }));
  const skips = Object.entries(r.skips).map(([name, why]) => `- ${name}: skipped (${why})`);
  return [
    `${r.workspaces} workspaces on the ${r.provider} provider. The page's first-contentful-paint (median, from the browser's own timing): ${ms(r.firstContentfulPaintMs.median)} ms. Load average ${r.load.before} → ${r.load.after}.`,
    '',
    table(rows, ['what (same store)', 'median ms', 'p90 ms', 'ratio to ls --json']),
    ...(skips.length ? ['', ...skips] : []),
  ].join('\n');
}
