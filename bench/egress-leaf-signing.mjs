// Leaf certificates for secrets at egress (#18 follow-up): a job whose proxy
// terminates TLS needs one leaf per new host name, and a wildcard allow-list
// lets it ask for as many names as it likes. Each leaf is ~25 ms of RSA
// signing (node-forge). This bench sends a burst of N new names at once and
// measures, for two contenders:
//   - main thread (before): each name signed in its own event-loop callback,
//     as the proxy did in a socket handler;
//   - worker (after): the workspace CA's leafFor, signed by a worker thread.
// Reported: each leaf's latency from the burst's start (median, max) and the
// event loop's delay while the burst runs (a 1 ms timer's lateness: p99, max),
// which is what every other tunnel of the proxy, and a detached job's
// shared supervisor, waits.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import forge from 'node-forge';

const N = Number(process.env.LEAF_BURST ?? 40);
const ROUNDS = Number(process.env.LEAF_ROUNDS ?? 3);
const repo = new URL('..', import.meta.url).pathname;
const { ensureWorkspaceCa, loadWorkspaceCa, signLeaf, parseCaForSigning, certificateSerial, caDir } = await import(
  join(repo, 'dist', 'core', 'network', 'egress-ca.js')
);

const home = mkdtempSync(join(tmpdir(), 'hs-leaf-bench-'));
ensureWorkspaceCa(home, 'bench');
const dir = caDir(home, 'bench');
const read = (f) => readFileSync(join(dir, f), 'utf8');
const parsed = parseCaForSigning(read('ca-cert.pem'), read('ca-key.pem'), read('leaf-key.pem'));

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function burst(label, signOne, round) {
  const hosts = Array.from({ length: N }, (_, i) => `h${round}-${i}.${label}.bench.test`);
  // A 1 ms timer chain: each firing's lateness is how long the loop was held (monitorEventLoopDelay records
  // nothing while the loop is held throughout, which is exactly the main-thread case).
  const lags = [];
  let stop = false;
  let expected = performance.now() + 1;
  const tick = () => {
    const now = performance.now();
    lags.push(Math.max(0, now - expected));
    expected = now + 1;
    if (!stop) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const t0 = performance.now();
  const latencies = await Promise.all(hosts.map((h) => signOne(h).then(() => performance.now() - t0)));
  await new Promise((r) => setTimeout(r, 20));
  stop = true;
  return { latencies, p99: q(lags, 0.99), max: Math.max(...lags) };
}

const mainThread = (host) =>
  new Promise((resolve) =>
    setImmediate(() => resolve(signLeaf(forge.pki, forge.md, parsed, host, certificateSerial(randomBytes), isIP(host) !== 0, Date.now()))),
  );

const results = { main: [], worker: [] };
for (let round = 0; round < ROUNDS; round++) {
  results.main.push(await burst('main', mainThread, round));
  const ca = loadWorkspaceCa(home, 'bench');
  await ca.leafFor('warm.bench.test'); // the worker starts with the proxy; the burst does not pay its start
  results.worker.push(await burst('worker', (h) => ca.leafFor(h), round));
  await ca.close();
}
rmSync(home, { recursive: true, force: true });

const row = (name, rs) => {
  const lat = rs.flatMap((r) => r.latencies);
  return `| ${name} | ${q(lat, 0.5).toFixed(0)} | ${Math.max(...lat).toFixed(0)} | ${Math.max(...rs.map((r) => r.p99)).toFixed(1)} | ${Math.max(...rs.map((r) => r.max)).toFixed(1)} |`;
};
console.log(`burst of ${N} new host names × ${ROUNDS} rounds, ${new Date().toISOString()}, load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
console.log('| contender | leaf latency median ms | leaf latency max ms | event-loop delay p99 ms | event-loop delay max ms |');
console.log('|---|---|---|---|---|');
console.log(row('main thread (before)', results.main));
console.log(row('worker thread (after)', results.worker));
