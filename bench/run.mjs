// Runs every benchmark, prints markdown tables and writes bench/results.json.
// Figures are ratios against a floor measured in the same run: these
// machines are shared and noisy, absolute numbers drift.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchCliStartup } from './cli-startup.mjs';
import { benchLibraryThroughput } from './library-throughput.mjs';
import { benchExportThroughput } from './export-throughput.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const benches = [
  ['cli-startup', () => benchCliStartup({ repo })],
  ['library-throughput', () => benchLibraryThroughput({ repo })],
  ['export-throughput', () => benchExportThroughput({ repo })],
];
const nativeBench = join(repo, 'bench', 'native-overhead.mjs');
if (existsSync(nativeBench)) {
  const { benchNativeOverhead } = await import(pathToFileURL(nativeBench).href);
  benches.push(['native-overhead', () => benchNativeOverhead({ repo })]);
}

const results = {};
for (const [name, run] of benches) {
  if (only.length && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  const out = await run();
  results[name] = out.result;
  console.log(`\n## ${name}\n\n${out.markdown}\n`);
}
const file = join(repo, 'bench', 'results.json');
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
process.stderr.write(`bench: wrote ${file}\n`);
