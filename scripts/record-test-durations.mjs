#!/usr/bin/env node
// Records how long each slow test file took, from vitest's own results cache
// (node_modules/.vite/vitest/*/results.json, written after every run), into
// test/file-durations.json, which vitest.config.ts's sequencer reads so the
// longest files start first even in a fresh clone, where vitest has no cache
// and would order files by size (#20: a 70 s file that is 3 KB started last).
// Run it after a whole-suite run on the CI machine kind:
//   node scripts/record-test-durations.mjs [results.json]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SLOW_MS = 2_000;
const cacheDir = join('node_modules', '.vite', 'vitest');
const source = process.argv[2] ?? join(cacheDir, readdirSync(cacheDir)[0] ?? '', 'results.json');
const { results } = JSON.parse(readFileSync(source, 'utf8'));
const durations = Object.fromEntries(
  results
    .map(([key, { duration }]) => [key.replace(/^[^:]*:/, ''), Math.round(duration / 100) * 100])
    .filter(([, ms]) => ms >= SLOW_MS)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
writeFileSync(join('test', 'file-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.error(`record-test-durations: ${Object.keys(durations).length} files of ${SLOW_MS / 1000} s or more, from ${source}`);
