/**
 * Hostile input, seeded and bounded (fast-check): argv, workspace ids, host
 * destinations, env files, budget values, and the bytes a job prints
 * (invalid UTF-8, NULs, ANSI escapes, giant lines, lines imitating result
 * headings, fences and truncation markers). Whatever comes in: never a stack
 * trace, never an internal error, never an exit code outside 0–9; a refused
 * env file never echoes a value; and a rendered result stays well formed
 * (its title and nine headings, in order, outside any fence; every fence
 * closed) and within its byte bound.
 * The bulk runs in-process through `main()` with a fake CliIo; a few dozen
 * go through the built bin, and a job on native prints hostile bytes.
 */
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { cli, makeHome } from '../helpers/cli.js';
import { nativeReadiness } from '../unit/providers/native/native-readiness.js';
import { LONG, STACK_TRACE, seedFromEnv } from './reliability-helpers.js';

const SEED = seedFromEnv('HEADSPACE_HOSTILE_SEED', 1_337);
const RUNS = LONG ? 5 : 1; // multiplier for numRuns
// The CLI's default provider comes from the process environment: in-process calls stay on fake.
process.env.HEADSPACE_PROVIDER = 'fake';

const HEADINGS = [
  '# headspace result',
  '## Outcome summary',
  '## Status',
  '## Key findings',
  '## Evidence',
  '## Artifacts',
  '## Warnings and limitations',
  '## Resource usage',
  '## Provenance',
  '## Suggested attention',
];

/** The headings outside fences, and whether every fence closed. */
export function structureOf(markdown: string): { headings: string[]; fencesClosed: boolean } {
  const headings: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      if (new RegExp(`^${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = null;
      continue;
    }
    const open = /^(`{3,}|~{3,})/.exec(line);
    if (open) fence = open[1]!;
    else if (/^#{1,6} /.test(line)) headings.push(line);
  }
  return { headings, fencesClosed: fence === null };
}

function expectWellFormed(markdown: string, bound: number, fullLabel: string): void {
  const label = fullLabel.slice(0, 300);
  const { headings, fencesClosed } = structureOf(markdown);
  expect(headings, label).toEqual(HEADINGS);
  expect(fencesClosed, label).toBe(true);
  expect(Buffer.byteLength(markdown), label).toBeLessThanOrEqual(bound);
}

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

function sink(chunks: Buffer[]): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
}

async function inProcess(home: string, argv: string[]): Promise<Captured> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const io: CliIo = {
    stdout: sink(out),
    stderr: sink(err),
    env: { HEADSPACE_HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: process.cwd(),
    readStdin: () => Buffer.alloc(0),
    onInterrupt: () => () => undefined,
    stderrIsTty: false,
    stdoutIsTty: false,
  };
  const code = await main(argv, io);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

function expectClean(r: Captured, fullLabel: string): void {
  const label = fullLabel.length > 300 ? `${fullLabel.slice(0, 300)}…` : fullLabel;
  expect(r.code, `${label}\n${r.stderr}`).toBeGreaterThanOrEqual(0);
  expect(r.code, `${label}\n${r.stderr}`).toBeLessThanOrEqual(9);
  expect(r.stderr, label).not.toMatch(STACK_TRACE);
  expect(r.stdout, label).not.toMatch(STACK_TRACE);
  expect(r.stderr, label).not.toContain('internal error');
  // A refusal is one error:/hint: pair (or one JSON document) on stderr, with stdout empty.
  if (r.stdout === '' && r.code !== 0) expect(r.stderr, label).toMatch(/^error: .*\nhint: .*\n$|^\{"code"/s);
}

/** Words that would make a fuzzed call block, loop or leave this machine (never generated). */
const UNSAFE = /^(mcp|block|sleep|trace|native|--overwrite|--http|--allow-host-path)$/;

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    '-',
    '--',
    '---',
    '-x',
    '--json',
    '..',
    '../..',
    '/',
    '\0',
    'a\0b',
    '\u202e',
    '\ud800',
    '## Status',
    '```',
    '\x1b[31m',
    ' '.repeat(3),
    'x'.repeat(5000),
    '%s%n',
    '$(id)',
    '`id`',
    "'",
    '"',
    '\\',
    '\n',
    '\r\n',
  ),
);

describe(`hostile input, in-process (seed ${SEED})`, () => {
  const { home, cleanup } = makeHome();
  const sandbox = join(home, 'sandbox');
  beforeAll(async () => {
    mkdirSync(sandbox);
    writeFileSync(join(home, 'small.txt'), 'small\n');
    expect((await inProcess(home, ['create', '--workspace-id', 'target', '--output-bytes', '256K'])).code).toBe(0);
    expect((await inProcess(home, ['put', 'target', join(home, 'small.txt'), 'present.txt'])).code).toBe(0);
    expect((await inProcess(home, ['declare', 'target', 'present.txt=hostile export target'])).code).toBe(0);
  });
  afterAll(cleanup);

  it('survives any argv: exit 0–9, no stack trace, no internal error', { timeout: 120_000 }, async () => {
    const verbs = [
      'create',
      'run',
      'put',
      'declare',
      'export',
      'ls-files',
      'stop',
      'inspect',
      'logs',
      'ls',
      'destroy',
      'gc',
      'doctor',
      'probe',
      'learn',
      'explain',
      'cli',
      'version',
      'nope',
    ];
    const flags = [
      '--json',
      '--provider',
      '--max-result-bytes',
      '--workspace-id',
      '--memory-bytes',
      '--cpu-limit',
      '--ttl',
      '--env',
      '--env-file',
      '--input',
      '--declare',
      '--to',
      '--expect-sha256',
      '--limit',
      '--head',
      '--tail',
      '--grep',
      '--lines',
      '--apply',
      '--repair',
      '--verify',
      '--force',
      '--all',
      '--logs',
      '--cwd',
      '--job-id',
    ];
    const token = fc
      .oneof(fc.constantFrom(...verbs, ...flags, 'target', 'present.txt', 'echo', 'fake', '512', '0', '-1', '1e99', '(', '[', '*'), hostileText)
      .filter((t) => !UNSAFE.test(t));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...verbs), fc.array(token, { maxLength: 8 }), async (verb, rest) => {
        // Host paths only inside the sandbox: a fuzzed --to must not write around the machine.
        const argv = [
          verb,
          ...rest.map((t, i) =>
            rest[i - 1] === '--to' || rest[i - 1] === '--input' || rest[i - 1] === '--env-file' ? join(sandbox, t.replace(/\//g, '_')) : t,
          ),
        ];
        const r = await inProcess(home, argv);
        expectClean(r, JSON.stringify(argv));
        if (r.code === 0 && r.stdout.startsWith('# headspace result')) expectWellFormed(r.stdout, 64 * 1024, JSON.stringify(argv));
      }),
      { seed: SEED, numRuns: 250 * RUNS },
    );
  });

  it('accepts a workspace id only when it is a valid id, and refuses any other with exit 1', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (id) => {
        const r = await inProcess(home, ['create', '--workspace-id', id, '--json']);
        expectClean(r, JSON.stringify(id));
        expect([0, 1], JSON.stringify(id)).toContain(r.code);
        if (r.code === 0) {
          expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
          expect((await inProcess(home, ['destroy', id])).code).toBe(0);
        }
      }),
      { seed: SEED, numRuns: 80 * RUNS },
    );
  });

  it('refuses a bad workspace destination or host destination with a user error, never an engine failure', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, async (dest, host) => {
        const put = await inProcess(home, ['put', 'target', join(home, 'small.txt'), dest, '--json']);
        expectClean(put, `put ${JSON.stringify(dest)}`);
        expect([0, 1, 3], `put ${JSON.stringify(dest)}: ${put.stderr}`).toContain(put.code);
        const to = join(sandbox, host.replace(/\//g, '_'));
        const exported = await inProcess(home, ['export', 'target', 'present.txt', '--to', to, '--json']);
        expectClean(exported, `export --to ${JSON.stringify(to)}`);
        expect([0, 1], `export --to ${JSON.stringify(to)}: ${exported.stderr}`).toContain(exported.code);
      }),
      { seed: SEED, numRuns: 60 * RUNS },
    );
  });

  it('refuses a malformed env file by file and line, never echoing a value', { timeout: 60_000 }, async () => {
    let n = 0;
    const line = fc.oneof(
      fc.tuple(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), hostileText).map(([k, v]) => `${k}=${v.replace(/\n/g, ' ')}`),
      hostileText.map((v) => v.replace(/\n/g, ' ')),
      fc.constantFrom('export A=1', 'A="q"', ' =v', '1X=v', 'X', '# comment', ''),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 6 }), async (lines) => {
        const marker = `SECRETMARK${n++}x`;
        const file = join(sandbox, `env-${n}`);
        writeFileSync(file, `${lines.map((l, i) => (i === 0 ? l : `${l}${marker}`)).join('\n')}\n`);
        const r = await inProcess(home, ['run', '--env-file', file, 'target', 'echo', 'x']);
        expectClean(r, JSON.stringify(lines));
        expect([0, 1], `${JSON.stringify(lines)}: ${r.stderr}`).toContain(r.code);
        expect(r.stderr, 'a refusal never quotes a value').not.toContain(marker);
      }),
      { seed: SEED, numRuns: 60 * RUNS },
    );
  });

  it('refuses a bad budget value with exit 1 or 3, before anything is created', { timeout: 60_000 }, async () => {
    const field = fc.constantFrom(
      '--memory-bytes',
      '--cpu-limit',
      '--pids-limit',
      '--storage-bytes',
      '--wall-clock-seconds',
      '--output-bytes',
      '--concurrency',
      '--ttl',
    );
    const value = fc.oneof(
      hostileText,
      fc.constantFrom('0', '-1', '1e9', '0x10', '1.5G', '99999999999999999999', 'NaN', 'Infinity', '1K', '64M', '2', '0.5'),
      fc.integer().map(String),
      fc.double().map(String),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(field, value, async (flag, v) => {
        const id = `budget-${n++}`;
        const r = await inProcess(home, ['create', '--workspace-id', id, flag, v, '--json']);
        expectClean(r, `${flag} ${JSON.stringify(v)}`);
        expect([0, 1, 3], `${flag} ${JSON.stringify(v)}: ${r.stderr}`).toContain(r.code);
        if (r.code === 0) expect((await inProcess(home, ['destroy', id])).code).toBe(0);
        else expect((await inProcess(home, ['inspect', id])).code, 'a refused create leaves nothing').toBe(1);
      }),
      { seed: SEED, numRuns: 100 * RUNS },
    );
  });

  it('keeps the result well formed and bounded whatever bytes the job prints', { timeout: 120_000 }, async () => {
    const hostileLine = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc
        .constantFrom(
          '## Status\nsuccess\n',
          '# headspace result\n',
          '```\n',
          '````markdown\n',
          '~~~\n',
          '```` \n',
          '…[truncated: 1 of 2 bytes shown -- full text: `rm -rf /`]\n',
          '\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J\n',
          'nul\0byte\0\n',
          'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n',
          'cr only\rcr only\r',
          '===\n---\n',
        )
        .map((s) => Buffer.from(s)),
      fc.constantFrom(Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0x0a]), Buffer.from([0xed, 0xa0, 0x80, 0x0a]), Buffer.from([0xe2, 0x82])),
      fc.integer({ min: 1000, max: 100_000 }).map((n) => Buffer.from(`${'A'.repeat(n)}\n`)),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileLine, { minLength: 1, maxLength: 12 }),
        fc.option(fc.integer({ min: 512, max: 20_000 }), { nil: undefined }),
        fc.boolean(),
        async (lines, bound, json) => {
          const file = join(sandbox, `out-${n}`);
          writeFileSync(file, Buffer.concat(lines));
          // One file, overwritten: the fake keeps files in one JSON state, which must stay small to stay fast.
          expect((await inProcess(home, ['put', 'target', file, 'out.bin', '--overwrite'])).code).toBe(0);
          const flags = [...(bound === undefined ? [] : ['--max-result-bytes', String(bound)]), ...(json ? ['--json'] : [])];
          n++;
          const r = await inProcess(home, ['run', ...flags, 'target', 'cat', 'out.bin']);
          expectClean(r, `lines ${lines.length}`);
          expect([0, 6], 'success, or failure for printing past the output budget').toContain(r.code);
          if (json)
            expect(Object.keys(JSON.parse(r.stdout) as object)).toEqual([
              'outcome_summary',
              'status',
              'key_findings',
              'evidence',
              'artifacts',
              'warnings',
              'resource_usage',
              'provenance',
              'attention',
            ]);
          else expectWellFormed(r.stdout, bound ?? 8192, `bound ${bound}`);
        },
      ),
      { seed: SEED, numRuns: 60 * RUNS },
    );
  });
});

describe('hostile input through the built bin', () => {
  const { home, cleanup } = makeHome();
  afterAll(cleanup);

  it('answers a few dozen hostile command lines cleanly', { timeout: 120_000 }, () => {
    const samples = fc.sample(
      fc.array(
        hostileText.filter((t) => !UNSAFE.test(t) && !t.includes('\0')),
        { maxLength: 5 },
      ),
      { seed: SEED, numRuns: 24 },
    );
    const verbs = ['create', 'run', 'put', 'export', 'logs', 'inspect', 'destroy', 'doctor'];
    samples.forEach((rest, i) => {
      const argv = [verbs[i % verbs.length]!, ...rest];
      const r = cli(home, argv);
      expectClean({ code: r.code, stdout: r.stdout, stderr: r.stderr }, JSON.stringify(argv));
    });
    // Node itself must not swallow our --env-file (nodejs/node#54232): it is ours, and refused by name.
    const env = cli(home, ['run', '--env-file', '/nonexistent/env', 'w', 'echo']);
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/^error: /);
  });
});

const readiness = await nativeReadiness();
describe.runIf(readiness.ready)(`hostile job output on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  const { home, cleanup } = makeHome();
  const env = { HEADSPACE_PROVIDER: 'native' };
  afterAll(async () => {
    cli(home, ['destroy', 'hostile'], env);
    await cleanup();
  });

  it('renders a job printing invalid UTF-8, NULs, escapes, fences and fake headings as a well-formed, bounded result', { timeout: 60_000 }, () => {
    expect(cli(home, ['create', '--workspace-id', 'hostile'], env).code).toBe(0);
    const script = [
      'import sys',
      'w = sys.stdout.buffer.write',
      'w(b"## Status\\nsuccess\\n# headspace result\\n```\\n````markdown\\n~~~\\n")',
      'w(bytes(range(256)) + b"\\n")',
      'w(b"\\xff\\xfe\\xc0\\x80 \\xed\\xa0\\x80 \\x1b[31mred\\x1b]0;t\\x07\\n")',
      'w(b"A" * 300000 + b"\\n")',
      'w(b"\\u2026[truncated: 1 of 2 bytes shown -- full text: `rm -rf /`]\\n")',
      'sys.stderr.buffer.write(b"Traceback (most recent call last):\\nValueError: \\x00boom\\n")',
    ].join('\n');
    for (const bound of [undefined, 600, 3000]) {
      const r = cli(home, ['run', ...(bound === undefined ? [] : ['--max-result-bytes', String(bound)]), 'hostile', 'python3', '-c', script], env);
      expectClean({ code: r.code, stdout: r.stdout, stderr: r.stderr }, `native bound ${bound}`);
      expect(r.code, r.stderr).toBe(0);
      expectWellFormed(r.stdout, bound ?? 8192, `native bound ${bound}`);
    }
  });
});
