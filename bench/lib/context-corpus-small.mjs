// More context-economy cases (#13): the outputs agents meet most, at the
// sizes they usually have — a test run with several failures, a compiler
// error storm, a small successful job. Like context-corpus.mjs, each case
// writes its inputs, names the command, and lists the facts an agent needs;
// the facts were not tuned to what the result happens to show.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { write } from './context-corpus.mjs';

/** pytest over one module with 6 failing tests of different kinds (2 parametrized) among 30. */
export function pytestManyCase(dir, { hasPytest }) {
  if (!hasPytest) return { key: 'pytest-6', skipped: 'pytest is not importable by /usr/bin/python3 (apt python3-pytest)' };
  const lines = ['import pytest', '', 'def add(a, b):', '    return a + b', ''];
  const facts = [];
  const fail = (name, body, fact) => {
    lines.push(`def ${name}():`, ...body.map((b) => `    ${b}`), '');
    facts.push({ what: `failing test ${name}`, text: name }, ...fact);
  };
  for (let i = 0; i < 22; i++) lines.push(`def test_ok_${i}():`, `    assert add(${i}, 1) == ${i + 1}`, '');
  fail('test_sum_is_wrong', ['assert add(2, 2) == 5'], [{ what: 'assertion 1', text: 'assert 4 == 5' }]);
  fail('test_raises_key_error', ['{}["missing"]'], [{ what: 'error 2', text: "KeyError: 'missing'" }]);
  fail('test_strings_differ', ['assert "headspace" == "headroom"'], [{ what: 'assertion 3', text: "AssertionError: assert 'headspace' == 'headroom'" }]);
  fail('test_zero_division', ['1 / 0'], [{ what: 'error 4', text: 'ZeroDivisionError: division by zero' }]);
  lines.push('@pytest.mark.parametrize("n", [1, 2, 3])', 'def test_even(n):', '    assert n % 2 == 0', '');
  facts.push({ what: 'parametrized failure 1', text: 'test_even[1]' }, { what: 'parametrized failure 2', text: 'test_even[3]' });
  facts.push({ what: 'summary', text: '6 failed, 23 passed' });
  write(dir, 'many/test_many.py', `${lines.join('\n')}\n`);
  return {
    key: 'pytest-6',
    label: 'pytest: 6 failing (2 parametrized) among 30 tests',
    inputs: [{ destination: 'many', hostPath: join(dir, 'many') }],
    cwd: 'many',
    argv: ['python3', '-m', 'pytest', '-p', 'no:cacheprovider', 'test_many.py'],
    facts,
  };
}

/** python -m unittest with 2 failures and an error. */
export function unittestCase(dir) {
  write(
    dir,
    'ut/test_shop.py',
    [
      'import unittest',
      '',
      'class ShopTest(unittest.TestCase):',
      '    def test_total(self):',
      '        self.assertEqual(sum([19, 23]), 41)',
      '    def test_discount(self):',
      '        self.assertAlmostEqual(100 * 0.85, 80.0)',
      '    def test_lookup(self):',
      '        {"a": 1}["b"]',
      '    def test_fine(self):',
      '        self.assertTrue(True)',
      '',
      "if __name__ == '__main__':",
      '    unittest.main()',
      '',
    ].join('\n'),
  );
  return {
    key: 'unittest',
    label: 'python -m unittest: 2 failures and 1 error among 4 tests',
    inputs: [{ destination: 'ut', hostPath: join(dir, 'ut') }],
    cwd: 'ut',
    argv: ['python3', '-m', 'unittest', 'test_shop'],
    facts: [
      { what: 'failing test 1', text: 'test_total' },
      { what: 'failing test 2', text: 'test_discount' },
      { what: 'erroring test', text: 'test_lookup' },
      { what: 'assertion 1', text: 'AssertionError: 42 != 41' },
      { what: 'error', text: "KeyError: 'b'" },
      { what: 'file:line 1', text: 'test_shop.py", line 5' },
    ],
  };
}

/** node --test (spec reporter) with 2 failing tests. */
export function nodeTestCase(dir) {
  write(
    dir,
    'nt/cart.test.mjs',
    [
      "import test from 'node:test';",
      "import assert from 'node:assert/strict';",
      '',
      "test('adds items', () => { assert.equal(1 + 1, 2); });",
      "test('applies the coupon', () => { assert.equal(Math.round(59.99 * 0.9), 53); });",
      "test('rejects an empty cart', () => { assert.throws(() => {}); });",
      '',
    ].join('\n'),
  );
  return {
    key: 'node-test',
    label: 'node --test: 2 failing of 3',
    inputs: [{ destination: 'nt', hostPath: join(dir, 'nt') }],
    cwd: 'nt',
    argv: ['node', '--test', '--test-reporter=spec', 'cart.test.mjs'],
    facts: [
      { what: 'failing test 1', text: 'applies the coupon' },
      { what: 'failing test 2', text: 'rejects an empty cart' },
      { what: 'file:line 1', text: 'cart.test.mjs:5' },
    ],
  };
}

/**
 * go test -v output. go is not on these machines, so the job replays real
 * output recorded by `scripts/make-finding-fixtures.sh go-test` (Debian's
 * go 1.19) with `cat`: the bytes are go's, only the process is not.
 */
export function goTestCase(dir, { repo }) {
  const recorded = join(repo, 'test', 'fixtures', 'findings', 'go-test', 'verbose.out.txt');
  if (!existsSync(recorded)) return { key: 'go-test', skipped: `recorded go output missing: ${recorded}` };
  write(dir, 'go/go-test.out', readFileSync(recorded, 'utf8'));
  return {
    key: 'go-test',
    label: 'go test -v (recorded go 1.19 output replayed): 3 failing, one panics',
    inputs: [{ destination: 'go', hostPath: join(dir, 'go') }],
    cwd: 'go',
    argv: ['cat', 'go-test.out'],
    facts: [
      { what: 'failing test 1', text: 'TestDivide' },
      { what: 'failing subtest', text: 'TestAbs/negative' },
      { what: 'panicking test', text: 'TestPanics' },
      { what: 'message 1', text: 'Divide(7, 2) = 3; want 4' },
      { what: 'file:line 1', text: 'calc_test.go:7' },
    ],
  };
}

/** A small tsc project with 2 type errors (tsc put into the workspace). */
export function tscSmallCase(dir, { typescriptDir }) {
  if (!typescriptDir || !existsSync(join(typescriptDir, 'bin', 'tsc'))) return { key: 'tsc-small', skipped: 'node_modules/typescript is missing: run npm ci' };
  write(dir, 'small/tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', types: [] }, include: ['*.ts'] }));
  write(
    dir,
    'small/app.ts',
    [
      'export function total(xs: number[]): number {',
      '  return xs.reduce((a, b) => a + b, "0");',
      '}',
      'export const n: number = total([1, 2]).toFixed(2);',
      '',
    ].join('\n'),
  );
  return {
    key: 'tsc-small',
    label: 'tsc --noEmit: 2 type errors in one file',
    inputs: [
      { destination: 'typescript', hostPath: typescriptDir },
      { destination: 'small', hostPath: join(dir, 'small') },
    ],
    cwd: 'small',
    argv: ['node', '../typescript/bin/tsc', '-p', '.', '--pretty', 'false'],
    facts: [
      { what: 'file:line 1', text: 'app.ts(2,' },
      { what: 'file:line 2', text: 'app.ts(4,14)' },
      { what: 'error 2', text: "TS2322: Type 'string' is not assignable to type 'number'." },
    ],
  };
}

/** gcc with 200 errors (an undeclared name in 200 functions): the storm, and its first error. */
export function gccStormCase(dir) {
  const lines = [];
  for (let i = 0; i < 200; i++) lines.push(`int f${i}(void) { return missing_${i}; }`);
  write(dir, 'storm/storm.c', `${lines.join('\n')}\n`);
  return {
    key: 'gcc-storm',
    label: 'gcc: an error storm of 200 errors',
    inputs: [{ destination: 'storm', hostPath: join(dir, 'storm') }],
    cwd: 'storm',
    argv: ['gcc', '-fmax-errors=0', '-c', 'storm.c', '-o', 'storm.o'],
    facts: [
      { what: 'first error file:line', text: 'storm.c:1:' },
      { what: 'first error', text: ["'missing_0' undeclared", '‘missing_0’ undeclared'] },
    ],
  };
}

/** A small successful job: the answer line is the fact. */
export function smallSuccessCase(dir) {
  write(dir, 'ok/answer.py', 'print("computing…")\nprint("answer=42")\n');
  return {
    key: 'small-success',
    label: 'a small successful job (2 lines)',
    inputs: [{ destination: 'ok', hostPath: join(dir, 'ok') }],
    cwd: 'ok',
    argv: ['python3', 'answer.py'],
    facts: [{ what: 'the answer', text: 'answer=42' }],
  };
}
