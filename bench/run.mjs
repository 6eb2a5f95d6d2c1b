// Runs every benchmark, prints markdown tables and writes bench/results.json
// and bench/results.md. Figures are ratios against a floor measured in the
// same run: these machines are shared and noisy, absolute numbers drift.
// A benchmark that throws is recorded as failed (and the run exits 1); the
// others still run and both files are still written.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchCliStartup } from './cli-startup.mjs';
import { benchLibraryThroughput } from './library-throughput.mjs';
import { benchDetachedThroughput } from './detached-throughput.mjs';
import { benchBatchCleanup } from './batch-cleanup.mjs';
import { benchExportThroughput } from './export-throughput.mjs';
import { benchPeerOverhead } from './peer-overhead.mjs';
import { benchScale } from './scale.mjs';
import { benchContextEconomy } from './context-economy.mjs';
import { benchHardeningCost } from './hardening-cost.mjs';
import { benchDockerModes } from './docker-modes.mjs';
import { benchSwarmScaleOut } from './swarm-scale-out.mjs';
import { benchEventLatency } from './event-latency.mjs';
import { benchEgressOverhead } from './egress-overhead.mjs';
import { benchSnapshots } from './snapshots.mjs';
import { benchDashboard } from './dashboard.mjs';
import { closeDockerEngine } from './lib/docker-engine.mjs';
import { scorecardMarkdown, scorecardRows } from './lib/scorecard.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const benches = [
  ['cli-startup', () => benchCliStartup({ repo })],
  ['library-throughput', () => benchLibraryThroughput({ repo })],
  ['export-throughput', () => benchExportThroughput({ repo })],
  ['detached-throughput', () => benchDetachedThroughput({ repo })],
  ['batch-cleanup', () => benchBatchCleanup({ repo })],
];
const nativeBench = join(repo, 'bench', 'native-overhead.mjs');
if (existsSync(nativeBench)) {
  const loaded = await import(pathToFileURL(nativeBench).href).catch((error) => ({ error }));
  benches.push(['native-overhead', () => (loaded.error ? Promise.reject(loaded.error) : loaded.benchNativeOverhead({ repo }))]);
}
benches.push(
  ['hardening-cost', () => benchHardeningCost({ repo })],
  ['peer-overhead', () => benchPeerOverhead({ repo })],
  ['docker-modes', () => benchDockerModes({ repo })],
  ['swarm-scale-out', () => benchSwarmScaleOut({ repo })],
  ['egress-overhead', () => benchEgressOverhead({ repo })],
  ['scale', () => benchScale({ repo })],
  ['context-economy', () => benchContextEconomy({ repo })],
  ['event-latency', () => benchEventLatency({ repo })],
  ['snapshots', () => benchSnapshots({ repo })],
  ['dashboard', () => benchDashboard({ repo })],
);

const load = (x) => x.map((v) => v.toFixed(2)).join(', ');
const loadBefore = loadavg();
const startedAt = new Date();
const results = {};
const sections = [];
for (const [name, run] of benches) {
  if (only.length && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  try {
    const out = await run();
    results[name] = out.result;
    sections.push(`## ${name}\n\n${out.markdown}\n`);
  } catch (error) {
    process.exitCode = 1;
    results[name] = { failed: String(error?.stack ?? error) };
    sections.push(`## ${name}\n\nFAILED: ${String(error?.message ?? error)}\n`);
  }
  console.log(`\n${sections.at(-1)}`);
}
// The engine the docker contenders shared, when this run started it (by its pid; never by name).
closeDockerEngine(repo);
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
})();
// The #20 scorecard, from this run's figures only (what did not run shows as not measured).
const loadEnd = loadavg();
const scorecard = scorecardRows(results);
const scorecardSection = `## #20 scorecard\n\n${scorecardMarkdown(scorecard, { loadStart: load(loadBefore), loadEnd: load(loadEnd) })}\n`;
console.log(`\n${scorecardSection}`);
const header = [
  '# Benchmark results',
  '',
  `Run ${startedAt.toISOString()} on commit ${commit} (plus uncommitted changes, if any), Node ${process.version}, ${process.platform}, load average (1, 5, 15 min) ${load(loadBefore)} at the start and ${load(loadEnd)} at the end. Reproduce with \`npm run bench\`; see bench/README.md for what each table measures.`,
  '',
].join('\n');
const file = join(repo, 'bench', 'results.json');
writeFileSync(
  file,
  `${JSON.stringify({ at: startedAt.toISOString(), commit, node: process.version, load: { start: loadBefore, end: loadEnd }, scorecard, results }, null, 2)}\n`,
);
writeFileSync(join(repo, 'bench', 'results.md'), `${header}\n${scorecardSection}\n${sections.join('\n')}`);
process.stderr.write(`bench: wrote ${file} and bench/results.md\n`);
