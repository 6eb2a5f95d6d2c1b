#!/usr/bin/env node
// Records how long each slow test file took into test/file-durations.json,
// which vitest.config.ts's sequencer reads so the longest files start first
// even in a fresh clone, where vitest has no cache and would order files by
// size (#20: a 70 s file that is 3 KB started last; a file missing from the
// record runs after every recorded one, so a new 52 s file made the run's
// tail). Every file that still exists and took 50 ms or more, so the order is
// the recorded one throughout, not only for the slow files (#20).
// The source is either vitest's own results cache
// (node_modules/.vite/vitest/*/results.json, written after every run), which
// keys a file by project (`system:test/...`, `unit:test/...`,
// vitest.config.ts; a key without a project is from before the projects and
// is left out), or the output of a whole `npm test` (its default reporter's
// file lines, `✓ system test/... (N tests) 1234ms`), such as a CI log, which
// is the machine kind the order is for.
// Run it after a whole-suite run on the CI machine kind:
//   node scripts/record-test-durations.mjs [results.json | npm-test.log]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SLOW_MS = 50;
const cacheDir = join('node_modules', '.vite', 'vitest');
const source = process.argv[2] ?? join(cacheDir, readdirSync(cacheDir)[0] ?? '', 'results.json');
const text = readFileSync(source, 'utf8');

/** [path, ms] of each file, from vitest's results cache. */
function fromCache() {
  const { results } = JSON.parse(text);
  // A file that moved to another project (#20: system -> isolated) keeps its old entry in the cache too; recorded
  // twice it would take one of them at random. Warned about: record from a run's own results instead (a fresh cache).
  const paths = results.filter(([key]) => /^[^:]+:/.test(key)).map(([key]) => key.replace(/^[^:]*:/, ''));
  const twice = [...new Set(paths.filter((path, i) => paths.indexOf(path) !== i))];
  if (twice.length > 0)
    console.error(
      `record-test-durations: ${twice.length} files are in the cache under two projects (e.g. ${twice[0]}): empty node_modules/.vite/vitest and run the suite again`,
    );
  return results.filter(([key]) => /^[^:]+:/.test(key)).map(([key, { duration }]) => [key.replace(/^[^:]*:/, ''), duration]);
}

/** [path, ms] of each file, from a run's printed file lines (colours stripped). */
function fromLog() {
  // Colours stripped, CRLF taken as LF; the project label is coloured (` unit `) or, without colours, `|unit|`.
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/gm, '');
  const files = [...plain.matchAll(/^ [✓❯×] +(?:\|[a-z]+\||[a-z]+) +(test\/\S+\.test\.ts) \(.*\) (\d+)ms$/gmu)].map((m) => [m[1], Number(m[2])]);
  if (files.length === 0) throw new Error(`record-test-durations: no file lines in ${source}: is it the output of a whole npm test?`);
  // A file twice (logs of several runs put together) keeps its longer time.
  const longest = new Map();
  for (const [path, ms] of files) longest.set(path, Math.max(ms, longest.get(path) ?? 0));
  return [...longest];
}

const durations = Object.fromEntries(
  (text.trimStart().startsWith('{') ? fromCache() : fromLog())
    .map(([path, ms]) => [path, Math.round(ms / 100) * 100])
    .filter(([path, ms]) => ms >= SLOW_MS && existsSync(path))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
writeFileSync(join('test', 'file-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.error(`record-test-durations: ${Object.keys(durations).length} files of ${SLOW_MS} ms or more, from ${source}`);
