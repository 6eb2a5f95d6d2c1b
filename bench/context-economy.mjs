// Context economy: how many bytes an agent reads, and whether the facts it
// needs are in them. Each case runs a real tool inside a native workspace
// (pytest, tsc, gcc, python) on a corpus generated here (bench/lib/
// context-corpus.mjs); then, per case: the raw captured output in bytes, the
// default result (renderMarkdown of the run's result package, as `headspace
// run` prints it) in bytes, their ratio, and how many of the listed facts
// appear verbatim in that markdown. The floor is the raw log an agent would
// otherwise read. Misses are reported, never tuned away.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { table } from './lib/stats.mjs';
import { loadAverage, nativeNotReady } from './lib/peers.mjs';
import { gccCase, installCase, pytestCase, traceCase, tscCase } from './lib/context-corpus.mjs';

/** Raw output at or above this is a "large" case, where the aim is ≥ 100× with every fact present. */
const LARGE_BYTES = 256 * 1024;

export async function benchContextEconomy({ repo }) {
  const notReady = await nativeNotReady(repo);
  if (notReady) return { name: 'context-economy', result: { skipped: notReady }, markdown: `Skipped: ${notReady} (the corpus is produced by real tools inside a native workspace)` };
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-ctx-'));
  const corpus = mkdtempSync(join(tmpdir(), 'hs-bench-ctx-corpus-'));
  const engine = api.createHeadspace({ home, defaultProvider: 'native' });
  const load = { before: loadAverage() };
  const hasPytest = spawnSync('/usr/bin/python3', ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
  const cases = [pytestCase(corpus, { hasPytest }), tscCase(corpus, { typescriptDir: join(repo, 'node_modules', 'typescript') }), gccCase(corpus), traceCase(corpus), installCase(corpus)];
  const rows = [];
  try {
    for (const c of cases) {
      if (c.skipped) {
        rows.push({ key: c.key, skipped: c.skipped });
        continue;
      }
      process.stderr.write(`bench: context-economy: ${c.key}…\n`);
      const ws = (await engine.create({ purpose: `context-economy: ${c.key}`, budget: { wallClockSeconds: 600 } })).provenance.workspace_id;
      try {
        const pkg = await engine.run({ workspaceId: ws, argv: c.argv, cwd: c.cwd, inputs: c.inputs });
        const jobId = pkg.provenance.job_id;
        const dump = await engine.logsDump({ handle: jobId });
        // logsDump names each job's kept output by file (it may be large): read it here.
        const raw = dump.jobs[0] && existsSync(dump.jobs[0].path) ? readFileSync(dump.jobs[0].path) : Buffer.alloc(0);
        const rawText = raw.toString('utf8');
        const markdown = api.renderMarkdown(pkg);
        const mdBytes = Buffer.byteLength(markdown);
        const facts = c.facts.map((f) => {
          const spellings = [f.text].flat();
          const text = spellings.find((t) => rawText.includes(t)) ?? spellings[0];
          return { what: f.what, text, inRaw: rawText.includes(text), inResult: markdown.includes(text) };
        });
        const corpusBugs = facts.filter((f) => !f.inRaw);
        rows.push({
          key: c.key,
          label: c.label,
          command: c.argv.join(' '),
          status: pkg.status,
          rawBytes: raw.length,
          totalOutputBytes: dump.jobs[0]?.outputBytes ?? raw.length,
          resultBytes: mdBytes,
          ratio: raw.length / mdBytes,
          large: raw.length >= LARGE_BYTES,
          facts,
          factsFound: facts.filter((f) => f.inRaw && f.inResult).length,
          factsListed: facts.filter((f) => f.inRaw).length,
          corpusBugs: corpusBugs.map((f) => f.what),
          markdown,
        });
      } finally {
        await engine.destroy({ workspaceId: ws, force: true }).catch(() => undefined);
      }
    }
  } finally {
    load.after = loadAverage();
    engine.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(corpus, { recursive: true, force: true });
  }
  const result = { load, hasPytest, largeBytes: LARGE_BYTES, cases: rows };
  return { name: 'context-economy', result, markdown: render(result) };
}

const kib = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

function render({ load, cases }) {
  const rows = cases.map((c) =>
    c.skipped
      ? { case: c.key, status: 'skipped', 'raw output': c.skipped }
      : {
          case: c.label,
          status: c.status,
          'raw output': kib(c.rawBytes),
          'default result (markdown)': kib(c.resultBytes),
          'raw / result': `${c.ratio.toFixed(c.ratio < 10 ? 2 : 0)}×`,
          'facts in result': `${c.factsFound}/${c.factsListed}`,
          missed: c.facts.filter((f) => f.inRaw && !f.inResult).map((f) => `${f.what}: \`${f.text}\``).join('; ') || '—',
        },
  );
  const ran = cases.filter((c) => !c.skipped);
  const large = ran.filter((c) => c.large);
  const aimMet = large.filter((c) => c.ratio >= 100 && c.factsFound === c.factsListed);
  const bugs = ran.filter((c) => c.corpusBugs.length);
  const notes = [
    `Large cases (raw ≥ ${kib(LARGE_BYTES)}): ${large.length}; meeting the aim (≥ 100× and every fact present): ${aimMet.length} (${aimMet.map((c) => c.key).join(', ') || 'none'}).`,
    'A fact counts when its exact text appears in the default markdown result; the raw output is checked to contain it first.',
    ...(bugs.length ? [`Corpus check: facts absent from the raw output itself (a corpus bug, not counted): ${bugs.map((c) => `${c.key}: ${c.corpusBugs.join(', ')}`).join('; ')}.`] : []),
    `Load average (1, 5, 15 min): ${load.before.join(', ')} before, ${load.after.join(', ')} after.`,
  ];
  return `${table(rows, ['case', 'status', 'raw output', 'default result (markdown)', 'raw / result', 'facts in result', 'missed'])}\n\n${notes.join('\n')}`;
}
