// Event latency (#15): from a job's end (its terminal record's finished_at,
// written in the same commit as its event) to a claim that was already
// waiting in another process returning it. Foreground jobs (`/bin/true` on
// native when it is ready, else `true` on the fake), one at a time, with a
// claimer already blocked in `claim --wait`:
//  - a library claimer: one long-lived process looping claimEvents({ waitSeconds }) and ack;
//  - the CLI: a fresh `headspace events claim SUB --wait 30 --json` started
//    before each job (the figure includes printing and the pipe back).
// Both clocks are this machine's, so the difference of two Date.now() is
// the latency. Aim: p50 ≤ 20 ms. The waiting claim polls SQLite's
// data_version every 5 ms, so about 2.5 ms of the figure is the poll.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliEnv, nativeNotReady } from './lib/peers.mjs';
import { ms, summarize, table } from './lib/stats.mjs';

const sleep = (n) => new Promise((r) => setTimeout(r, n));

export async function benchEventLatency({ repo, jobs = Number(process.env.HS_BENCH_EVENT_JOBS ?? 100), cliJobs = 20 }) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const notReady = await nativeNotReady(repo);
  const provider = notReady ? 'fake' : 'native';
  const argv = provider === 'native' ? ['/bin/true'] : ['true'];
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-events-'));
  const env = cliEnv({ HEADSPACE_HOME: home, HEADSPACE_PROVIDER: provider });
  const engine = api.createHeadspace({ home, defaultProvider: provider });
  try {
    await engine.create({ workspaceId: 'lat' });
    const librarySub = (await engine.subscribeEvents({ workspaceId: 'lat', name: 'lib' })).key_findings[0].id;
    for (let i = 0; i < 5; i++) await engine.run({ workspaceId: 'lat', argv });
    await engine.ackEvents({
      subscriptionId: librarySub,
      eventIds: (await engine.claimEvents({ subscriptionId: librarySub, max: 100 })).key_findings.map((f) => f.id),
    });

    // The library claimer: prints "<event id> <ms after finished_at>" for each event.
    const script = `const api = await import(${JSON.stringify(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href)});
      const engine = api.createHeadspace({ defaultProvider: ${JSON.stringify(provider)} });
      let left = ${jobs};
      console.log('ready');
      while (left > 0) {
        const pkg = await engine.claimEvents({ subscriptionId: 'lib', waitSeconds: 30, max: 10 });
        const now = Date.now();
        const events = pkg.key_findings.filter((f) => f.kind === 'event');
        for (const e of events) console.log(e.id, now - Date.parse(e.finished_at));
        if (events.length) await engine.ackEvents({ subscriptionId: 'lib', eventIds: events.map((e) => e.id) });
        left -= events.length;
      }
      engine.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env });
    const library = [];
    let buffered = '';
    let ready;
    const isReady = new Promise((r) => (ready = r));
    let gotOne = () => {};
    child.stdout.on('data', (d) => {
      buffered += d.toString();
      let at;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (line === 'ready') ready();
        else {
          library.push(Number(line.split(' ')[1]));
          gotOne();
        }
      }
    });
    const exited = new Promise((r) => child.on('close', r));
    await isReady;
    await sleep(200);
    for (let i = 0; i < jobs; i++) {
      const got = new Promise((r) => (gotOne = r));
      await engine.run({ workspaceId: 'lat', argv });
      await got;
      // The claimer is back in its wait before the next job ends.
      await sleep(5 + (i % 7));
    }
    await exited;

    // The CLI: a fresh claim --wait per job, started (and waiting) before the job.
    await engine.subscribeEvents({ workspaceId: 'lat', name: 'cli' });
    const cli = [];
    for (let i = 0; i < cliJobs; i++) {
      const claimer = spawn(join(repo, 'bin', 'headspace'), ['events', 'claim', 'cli', '--wait', '30', '--json'], { env });
      let out = '';
      let firstByte = 0;
      claimer.stdout.on('data', (d) => {
        firstByte ||= Date.now();
        out += d.toString();
      });
      const done = new Promise((r) => claimer.on('close', r));
      // Node's start and the verb's load come before its wait (300–500 ms on a loaded machine): give it time to be waiting.
      await sleep(1500);
      await engine.run({ workspaceId: 'lat', argv });
      await done;
      const event = JSON.parse(out).key_findings.find((f) => f.kind === 'event');
      cli.push(firstByte - Date.parse(event.finished_at));
      await engine.ackEvents({ subscriptionId: 'cli', eventIds: [event.id] });
    }

    const lib = summarize(library);
    const viaCli = summarize(cli);
    const rows = [
      { claimer: 'library claimEvents (another process, waiting)', jobs: lib.n, p50: ms(lib.median), p90: ms(lib.p90) },
      { claimer: 'CLI `events claim --wait` (first byte of its output)', jobs: viaCli.n, p50: ms(viaCli.median), p90: ms(viaCli.p90) },
    ];
    return {
      name: 'event-latency',
      result: { provider, library: lib, cli: viaCli, aimP50Ms: 20 },
      markdown: `Foreground \`${argv.join(' ')}\` jobs on ${provider}${notReady ? ` (native skipped: ${notReady})` : ''}; milliseconds from the job's end (its terminal record's finished_at) to the waiting claim having the event. Aim: p50 ≤ 20 ms.\n\n${table(rows, ['claimer', 'jobs', 'p50', 'p90'])}`,
    };
  } finally {
    engine.close();
    await api
      .createHeadspace({ home, defaultProvider: provider })
      .destroy({ workspaceId: 'lat', force: true })
      .catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { resolve, dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const out = await benchEventLatency({ repo: resolve(dirname(fileURLToPath(import.meta.url)), '..') });
  console.log(out.markdown);
  console.log(JSON.stringify(out.result));
}
