/**
 * Output in no known format yields no findings, so the caller falls back to
 * the excerpt; each tool's output yields only that tool's finding, never
 * another parser's false one.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('unknown formats', () => {
  it('finds nothing in prose, listings, progress and empty output', () => {
    const samples = [
      '',
      '\n\n\n',
      'hello world\nanswer=42\n',
      'total 8\ndrwxr-xr-x 2 root root 4096 Jan  1 00:00 .\n-rw-r--r-- 1 root root   12 Jan  1 00:00 a.txt\n',
      'ERROR: something went wrong\nwarning: low disk\nerror: no such file\n',
      'Downloading 10%\rDownloading 50%\rDownloading 100%\n',
      '# heading\n## another\n- item: 1\n',
    ];
    for (const sample of samples) expect(parseFindings(sample, { maxItems: 5 })).toEqual([]);
  });

  it('gives each fixture exactly the finding kind of its tool', () => {
    const cases: Array<[string, string, string]> = [
      ['pytest', 'default', 'pytest'],
      ['unittest', 'default', 'unittest'],
      ['node-test', 'spec', 'node:test'],
      ['node-test', 'tap', 'node:test'],
      ['vitest', 'default', 'vitest'],
      ['jest', 'handwritten', 'jest'],
      ['go-test', 'plain', 'go test'],
      ['cargo-test', 'default', 'cargo test'],
      ['tsc', 'pretty', 'tsc'],
      ['gcc', 'small', 'gcc/clang'],
      ['rustc', 'badcrate', 'rustc'],
      ['eslint', 'stylish', 'eslint'],
      ['go-build', 'default', 'go'],
      ['python', 'syntax', 'python'],
    ];
    for (const [tool, name, expected] of cases) {
      const findings = parseFindings(readFixture(tool, name), { maxItems: 5 });
      expect(
        findings.map((f) => (f.kind === 'exception' ? f.language : f.tool)),
        `${tool}/${name}`,
      ).toEqual([expected]);
    }
  });
});
