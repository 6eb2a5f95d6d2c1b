/**
 * At `--max-result-bytes 1024` a failing test run still names the failing
 * test, its assertion and its file:line (#13): boilerplate and the raw
 * excerpt give way before the parsed finding does. Real python unittest
 * output, in a real native workspace.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
const suite = mkdtempSync(join(tmpdir(), 'hs-tight-'));
afterAll(async () => {
  await home.cleanup();
  rmSync(suite, { recursive: true, force: true });
});

describe.runIf(readiness.ready && process.getuid?.() === 0)(`a failing unittest run at 1 KiB (needs a ready native host as root: ${readiness.reason})`, () => {
  it('keeps the failing test, its assertion and its file:line', () => {
    mkdirSync(join(suite, 'tests'));
    const padding = Array.from({ length: 40 }, (_, i) => `    def test_ok_${i}(self):\n        self.assertTrue(True)`).join('\n');
    writeFileSync(
      join(suite, 'tests', 'test_calc.py'),
      `import unittest\n\nclass CalcTest(unittest.TestCase):\n    def test_divide(self):\n        self.assertEqual(7 // 2, 4)\n${padding}\n`,
    );
    const env = { HEADSPACE_PROVIDER: 'native' };
    expect(cli(home.home, ['create', '--workspace-id', 'tight'], env).code).toBe(0);
    const run = cli(
      home.home,
      ['run', '--max-result-bytes', '1024', '--input', `t=${suite}`, 'tight', 'python3', '-m', 'unittest', 'discover', '-v', '-s', 't/tests'],
      env,
    );
    expect(run.code, run.stderr).toBe(6);
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(1024);
    expect(run.stdout).toContain('test_divide');
    expect(run.stdout).toContain('AssertionError: 3 != 4');
    expect(run.stdout).toMatch(/test_calc\.py:5\b/);
  });
});
