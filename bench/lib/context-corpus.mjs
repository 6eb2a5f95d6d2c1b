// The context-economy corpus: each case writes its inputs into a host dir,
// names the command that runs them inside a workspace, and lists the facts an
// agent needs from that run. The cases are shaped after real tool output and
// were NOT adjusted to what the excerpt selector happens to pick: a fact the
// default result misses is reported as a miss.
//
// A fact is { what, text }, `text` one string or a list of accepted
// spellings (e.g. a locale's quotes); it must appear verbatim in the captured
// output (the benchmark checks that, so a corpus bug cannot pass as a miss)
// and is then looked for verbatim in the default markdown result.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const write = (dir, rel, text) => {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
};

/** pytest -v over 400 tests in 8 files, 3 of them failing in different ways. */
export function pytestCase(dir, { hasPytest }) {
  const modules = ['billing', 'dates', 'parser', 'inventory', 'shipping', 'users', 'search', 'reports'];
  write(
    dir,
    'suite/calc.py',
    [
      'import calendar, decimal',
      'def round_half_up(x, places):',
      '    return round(x, places)  # bug: banker-ish float rounding',
      'def days_in_month(year, month):',
      '    return calendar.monthrange(year, month)[1] if year % 100 else 28',
      'def parse_list(text):',
      '    return [p.strip() for p in text.split(",")]  # bug: accepts a trailing comma',
      '',
    ].join('\n'),
  );
  write(dir, 'suite/tests/__init__.py', '');
  const failing = {
    billing: { name: 'test_invoice_total_rounds_half_up', body: ['    assert round_half_up(2.675, 2) == 2.68'] },
    dates: { name: 'test_century_leap_year_february_has_29_days', body: ['    assert days_in_month(2000, 2) == 29'] },
    parser: {
      name: 'test_parse_list_rejects_trailing_comma',
      body: hasPytest
        ? ['    with pytest.raises(ValueError):', '        parse_list("a, b,")']
        : ['    with self.assertRaises(ValueError):', '        parse_list("a, b,")'],
    },
  };
  const lines = {};
  for (const mod of modules) {
    const out = hasPytest
      ? ['import pytest', 'from calc import round_half_up, days_in_month, parse_list', '']
      : [
          'import unittest',
          'from calc import round_half_up, days_in_month, parse_list',
          '',
          `class Test${mod[0].toUpperCase()}${mod.slice(1)}(unittest.TestCase):`,
        ];
    const indent = hasPytest ? '' : '    ';
    for (let i = 0; i < 50; i++) {
      if (i === 37 && failing[mod]) {
        const f = failing[mod];
        out.push(`${indent}def ${f.name}(${hasPytest ? '' : 'self'}):`);
        lines[mod] = out.length + 1; // the assert (or the with) is the next line
        out.push(...f.body.map((l) => indent + l), '');
        continue;
      }
      out.push(
        `${indent}def test_${mod}_case_${String(i).padStart(3, '0')}(${hasPytest ? '' : 'self'}):`,
        `${indent}    assert days_in_month(2023, ${(i % 12) + 1}) >= 28`,
        '',
      );
    }
    write(dir, `suite/tests/test_${mod}.py`, `${out.join('\n')}\n`);
  }
  const facts = hasPytest
    ? [
        { what: 'failing test 1', text: 'tests/test_billing.py::test_invoice_total_rounds_half_up' },
        { what: 'failing test 2', text: 'tests/test_dates.py::test_century_leap_year_february_has_29_days' },
        { what: 'failing test 3', text: 'tests/test_parser.py::test_parse_list_rejects_trailing_comma' },
        { what: 'message 1', text: 'assert 2.67 == 2.68' },
        { what: 'message 2', text: 'assert 28 == 29' },
        { what: 'message 3', text: "DID NOT RAISE <class 'ValueError'>" },
        { what: 'file:line 1', text: `tests/test_billing.py:${lines.billing}` },
        { what: 'file:line 2', text: `tests/test_dates.py:${lines.dates}` },
        { what: 'file:line 3', text: `tests/test_parser.py:${lines.parser}` },
        { what: 'summary', text: '3 failed, 397 passed' },
      ]
    : [
        { what: 'failing test 1', text: 'test_invoice_total_rounds_half_up' },
        { what: 'failing test 2', text: 'test_century_leap_year_february_has_29_days' },
        { what: 'failing test 3', text: 'test_parse_list_rejects_trailing_comma' },
        { what: 'message 1', text: 'AssertionError: 2.67 != 2.68' },
        { what: 'message 2', text: 'AssertionError: 28 != 29' },
        { what: 'message 3', text: 'AssertionError: ValueError not raised' },
        { what: 'summary', text: 'FAILED (failures=3)' },
      ];
  return {
    key: 'pytest',
    label: hasPytest ? 'pytest -v: 3 failing among 400 tests' : 'python unittest -v (pytest absent): 3 failing among 400 tests',
    inputs: [{ destination: 'suite', hostPath: join(dir, 'suite') }],
    cwd: 'suite',
    argv: hasPytest ? ['python3', '-m', 'pytest', '-v', '-p', 'no:cacheprovider', 'tests'] : ['python3', '-m', 'unittest', '-v'],
    facts,
  };
}

/** tsc over 120 modules, 3 type errors; tsc itself is put into the workspace. */
export function tscCase(dir, { typescriptDir }) {
  if (!typescriptDir || !existsSync(join(typescriptDir, 'bin', 'tsc'))) return { key: 'tsc', skipped: 'node_modules/typescript is missing: run npm ci' };
  write(
    dir,
    'proj/tsconfig.json',
    JSON.stringify(
      { compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [] }, include: ['src'] },
      null,
      2,
    ),
  );
  const errors = {
    17: { code: 'export const total: number = "forty-two";', message: "error TS2322: Type 'string' is not assignable to type 'number'." },
    63: {
      code: 'export const size = (s: string) => s.lenght;',
      message: "error TS2551: Property 'lenght' does not exist on type 'string'. Did you mean 'length'?",
    },
    101: { code: 'export const ready = undefinedHelper(3);', message: "error TS2304: Cannot find name 'undefinedHelper'." },
  };
  const facts = [];
  for (let i = 0; i < 120; i++) {
    const name = `mod_${String(i).padStart(3, '0')}`;
    const lines = [
      `// module ${i}`,
      `export interface Item${i} { id: number; label: string }`,
      `export function make${i}(id: number): Item${i} {`,
      `  return { id, label: 'item-' + id };`,
      '}',
    ];
    for (let k = 0; k < 6; k++) lines.push(`export const value${i}_${k} = make${i}(${k}).label.length;`);
    if (errors[i]) {
      lines.push(errors[i].code);
      const line = lines.length;
      const col = errors[i].code.indexOf(i === 17 ? 'total' : i === 63 ? 'lenght' : 'undefinedHelper') + 1;
      facts.push({ what: `error in ${name}`, text: errors[i].message.replace(/^error /, '') });
      facts.push({ what: `file:line of ${name}`, text: `src/${name}.ts(${line},${col})` });
    }
    write(dir, `proj/src/${name}.ts`, `${lines.join('\n')}\n`);
  }
  return {
    key: 'tsc',
    label: 'tsc --noEmit: 3 type errors across 120 modules (tsc put into the workspace)',
    inputs: [
      { destination: 'typescript', hostPath: typescriptDir },
      { destination: 'proj', hostPath: join(dir, 'proj') },
    ],
    cwd: 'proj',
    argv: ['node', '../typescript/bin/tsc', '-p', '.', '--pretty', 'false'],
    facts,
  };
}

/** gcc -Wall -Wextra over 1,500 functions that each warn, one error at function 1,200. */
export function gccCase(dir) {
  const lines = ['#include <stdio.h>', ''];
  let errorLine = 0;
  for (let i = 0; i < 1500; i++) {
    lines.push(`int handler_${i}(int request, int flags) {`, `    int scratch_${i};`);
    if (i === 1200) {
      lines.push(`    return request + retry_budget;`);
      errorLine = lines.length;
    } else lines.push(`    return request * ${i};`);
    lines.push('}', '');
  }
  lines.push('int main(void) { printf("%d\\n", handler_1(1, 0)); return 0; }', '');
  write(dir, 'csrc/server.c', lines.join('\n'));
  return {
    key: 'gcc',
    label: 'gcc -Wall -Wextra: ~3,000 warnings, one error at 80% of the log',
    inputs: [{ destination: 'csrc', hostPath: join(dir, 'csrc') }],
    cwd: 'csrc',
    argv: ['gcc', '-Wall', '-Wextra', '-c', 'server.c', '-o', 'server.o'],
    facts: [
      // gcc quotes with ‘…’ under a UTF-8 locale and '…' otherwise: either spelling counts.
      {
        what: 'the error',
        text: ["error: 'retry_budget' undeclared (first use in this function)", 'error: ‘retry_budget’ undeclared (first use in this function)'],
      },
      { what: 'file:line:col', text: `server.c:${errorLine}:22: error` },
    ],
  };
}

/** The seed's trace: 20,000 trace lines (~1.7 MB), then the final answer. */
export function traceCase(dir) {
  write(
    dir,
    'trace/solve.py',
    [
      'import math',
      'x = 0.5',
      'for step in range(20000):',
      '    x = x - 0.001 * (math.sin(x) - 0.25 * x)',
      '    print(f"trace step={step:05d} x={x:.12f} residual={math.sin(x) - 0.25 * x:+.12e} lr=0.001 phase=descent")',
      'print(f"answer={x:.9f}")',
      '',
    ].join('\n'),
  );
  // The answer, computed the same way here, so the fact is known in advance.
  let x = 0.5;
  for (let step = 0; step < 20000; step++) x = x - 0.001 * (Math.sin(x) - 0.25 * x);
  return {
    key: 'trace',
    label: 'python trace: 20,000 lines, then answer=…',
    inputs: [{ destination: 'trace', hostPath: join(dir, 'trace') }],
    cwd: 'trace',
    argv: ['python3', 'solve.py'],
    facts: [{ what: 'the final answer', text: `answer=${x.toFixed(9)}` }],
  };
}

/** A pip-install-like log (verbose: links, downloads, progress, warnings), ending with the fatal lines. */
export function installCase(dir) {
  write(
    dir,
    'install/fake_pip.py',
    String.raw`import random, sys
random.seed(7)
names = [f"pkg{chr(97 + i % 26)}{i:03d}" for i in range(400)]
print("Using pip 23.0.1 from /usr/lib/python3/dist-packages/pip (python 3.11)")
print("Looking in indexes: https://pypi.org/simple")
for n in names:
    v = f"{random.randint(0, 9)}.{random.randint(0, 30)}.{random.randint(0, 9)}"
    print(f"Collecting {n}=={v}")
    for k in range(12):
        print(f"  Skipping link: none of the wheel's tags (cp38-cp38-manylinux_2_17_x86_64) are compatible (run pip debug --verbose to show compatible tags): https://files.pythonhosted.org/packages/{random.getrandbits(64):016x}/{n}-{v}-cp38-cp38-manylinux_2_17_x86_64.whl (from https://pypi.org/simple/{n}/)")
    print(f"  Link requires a different Python (3.11.2 not in: '>=3.6,<3.10'): https://files.pythonhosted.org/packages/{random.getrandbits(64):016x}/{n}-{v}.tar.gz (from https://pypi.org/simple/{n}/) (requires-python:>=3.6,<3.10)")
    print(f"  Downloading {n}-{v}-py3-none-any.whl ({random.randint(10, 900)} kB)")
    print(f"     ---------------------------------------- {random.randint(10, 900)}.0/{random.randint(10, 900)}.0 kB {random.uniform(0.5, 9):.1f} MB/s eta 0:00:00")
    if random.random() < 0.05:
        print(f"  WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out. (read timeout=15)\")': /packages/{n}/")
    if random.random() < 0.03:
        print(f"  DEPRECATION: {n} is being installed using the legacy 'setup.py install' method, because it does not have a 'pyproject.toml'. pip 23.1 will enforce this behaviour change.")
print("ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.99.0 (from versions: 2.10.0, 2.10.1, 2.11.0, 2.12.0)")
print("ERROR: No matching distribution found for tensorflow-gpu==2.99.0")
sys.exit(1)
`,
  );
  return {
    key: 'install',
    label: 'pip-like verbose install log (simulated), fatal line at the end',
    inputs: [{ destination: 'install', hostPath: join(dir, 'install') }],
    cwd: 'install',
    argv: ['python3', 'fake_pip.py'],
    facts: [{ what: 'the fatal line', text: 'ERROR: No matching distribution found for tensorflow-gpu==2.99.0' }],
  };
}
