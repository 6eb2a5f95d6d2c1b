/**
 * Lines that differ only in numbers, quoted names, hex ids, paths or their
 * `file:line:col:` prefix have one shape. After REPEATS_KEPT lines of a shape,
 * the rest say nothing new: they are not spent bytes on (unless they sit next
 * to a strong line or among the last lines), so three thousand compiler
 * warnings or a retry loop give way to the one error, and the excerpt is
 * smaller than its budget instead of full of near-duplicates. A gap made of
 * one shape says how many of its lines share it, and still parses as a gap.
 */
import { describe, expect, it } from 'vitest';
import { classifyLine, KIND_SCORES, lineShape, REPEATS_KEPT, TAIL_LINES } from '../../../../src/core/output/line-scoring.js';
import { parseGapMarker, selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

const BUDGET = 5000;

/** gcc -Wall over `functions` functions that each warn twice, one undeclared identifier at `errorAt`. */
function gccLikeLog(functions: number, errorAt: number): { lines: string[]; error: string } {
  const lines: string[] = [];
  let error = '';
  for (let i = 0; i < functions; i++) {
    const at = 5 * i + 3;
    lines.push(`server.c: In function ‘handler_${i}’:`);
    if (i === errorAt) {
      error = `server.c:${at + 2}:22: error: ‘retry_budget’ undeclared (first use in this function)`;
      lines.push(error, ` ${at + 2} |     return request + retry_budget;`, '      |                      ^~~~~~~~~~~~');
    }
    lines.push(
      `server.c:${at + 1}:9: warning: unused variable ‘scratch_${i}’ [-Wunused-variable]`,
      ` ${at + 1} |     int scratch_${i};`,
      `      |         ^~~~~~~~${'~'.repeat(String(i).length)}`,
      `server.c:${at}:${30 + String(i).length}: warning: unused parameter ‘flags’ [-Wunused-parameter]`,
      ` ${at} | int handler_${i}(int request, int flags) {`,
      '      |                               ~~~~^~~~~',
    );
  }
  return { lines, error };
}

/** A verbose pip-like install: links, downloads and retry warnings for `packages` packages, then the fatal lines. */
function pipLikeLog(packages: number): { lines: string[]; error: string } {
  const lines = ['Using pip 23.0.1 from /usr/lib/python3/dist-packages/pip (python 3.11)', 'Looking in indexes: https://pypi.org/simple'];
  for (let i = 0; i < packages; i++) {
    const name = `pkg${String.fromCharCode(97 + (i % 26))}${String(i).padStart(3, '0')}`;
    const version = `${i % 10}.${i % 31}.${i % 7}`;
    lines.push(`Collecting ${name}==${version}`);
    lines.push(`  Downloading ${name}-${version}-py3-none-any.whl (${100 + i} kB)`);
    if (i % 3 === 0) {
      lines.push(
        `  WARNING: Retrying (Retry(total=${4 - (i % 5)}, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError("HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out. (read timeout=15)")': /packages/${name}/`,
      );
    }
    lines.push(`  Using cached https://files.pythonhosted.org/packages/${(0x9f3a11c0 + i * 7919).toString(16)}/${name}-${version}.tar.gz`);
  }
  const error = 'ERROR: No matching distribution found for tensorflow-gpu==2.99.0';
  lines.push('ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.99.0 (from versions: 2.10.0, 2.11.0)', error);
  return { lines, error };
}

/** The excerpt's lines with their index in the log (gap lines skipped), checking that gaps account for every line. */
function shownWithIndex(excerpt: string, total: number): Array<{ index: number; text: string }> {
  const shown: Array<{ index: number; text: string }> = [];
  let cursor = 0;
  for (const entry of excerpt.split('\n')) {
    const gap = parseGapMarker(entry);
    if (gap !== undefined) cursor += gap;
    else shown.push({ index: cursor++, text: entry });
  }
  expect(cursor).toBe(total);
  return shown;
}

/**
 * Most lines of any one shape shown, leaving out the last lines and the
 * neighbours of strong shown lines (a compiler's source and caret lines, the
 * line before a failure): both are lifted on purpose.
 */
function mostOfOneShape(shown: Array<{ index: number; text: string }>, total: number): number {
  const strong = shown.filter(({ text }) => KIND_SCORES[classifyLine(text)] >= KIND_SCORES.assertion).map(({ index }) => index);
  const counts = new Map<string, number>();
  for (const { index, text } of shown) {
    if (index >= total - TAIL_LINES || strong.some((at) => index - at <= 2 && index - at >= -1 && index !== at)) continue;
    const shape = lineShape(text);
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return Math.max(0, ...counts.values());
}

describe('near-duplicate lines give way to the unique error', () => {
  it('gives a line its shape: numbers, quoted names, hex ids, paths and the location prefix stood in for', () => {
    expect(lineShape('server.c:94:9: warning: unused variable ‘scratch_18’ [-Wunused-variable]')).toBe('warning: unused variable ‘…’ [-Wunused-variable]');
    expect(lineShape("lib/a.c:7:1: warning: unused variable 'x' [-Wunused-variable]")).toBe("warning: unused variable '…' [-Wunused-variable]");
    expect(lineShape('src/x.ts(3,7): error TS2322: Type "a" is not assignable')).toBe(lineShape('src/y.ts(12,1): error TS2322: Type "b" is not assignable'));
    expect(lineShape('fetch 0x7ffe12ab failed for /var/cache/a1/b.tar at `step 3`')).toBe(lineShape('fetch deadbeef99 failed for ./c/d.tar at `step 12`'));
    expect(lineShape('Collecting pkga000==1.2.3')).toBe(lineShape('Collecting pkgq016==9.30.0'));
    expect(lineShape('ERROR: retry 3 failed')).not.toBe(lineShape('ERROR: a different failure'));
    expect(lineShape('error: ‘retry_budget’ undeclared (first use in this function)')).not.toBe(
      lineShape('warning: unused variable ‘retry_budget’ [-Wunused-variable]'),
    );
  });

  it('keeps the one error among 3,000 gcc-like warnings, with at most REPEATS_KEPT lines of one shape', () => {
    const { lines, error } = gccLikeLog(1500, 1200);
    const result = selectExcerpt(lines.join('\n'), { budgetBytes: BUDGET });
    expect(result.excerpt).toContain(error);
    expect(result.excerpt).toContain('|     return request + retry_budget;');
    expect(result.excerpt).toContain(lines.at(-1));
    const shown = shownWithIndex(result.excerpt, lines.length);
    expect(shown.length + result.omitted_lines).toBe(lines.length);
    expect(mostOfOneShape(shown, lines.length)).toBeLessThanOrEqual(REPEATS_KEPT);
    // Near-duplicates are not filler: the excerpt stays well under its budget.
    expect(Buffer.byteLength(result.excerpt)).toBeLessThan(BUDGET / 2);
    expect(result.excerpt).toMatch(/^… \[\d+ lines omitted, \d+ like: warning: unused variable ‘…’ \[-Wunused-variable\]\] …$/m);
  });

  it('keeps the fatal line of a pip-like log, with at most REPEATS_KEPT retry warnings', () => {
    const { lines, error } = pipLikeLog(600);
    const result = selectExcerpt(lines.join('\n'), { budgetBytes: BUDGET, retrieval: 'headspace inspect job-pip --logs' });
    expect(result.excerpt).toContain(error);
    const shown = shownWithIndex(result.excerpt.replace(/\n…\[truncated: .*$/, ''), lines.length);
    expect(mostOfOneShape(shown, lines.length)).toBeLessThanOrEqual(REPEATS_KEPT);
    expect(shown.filter(({ index, text }) => index < lines.length - TAIL_LINES && text.includes('WARNING: Retrying')).length).toBeLessThanOrEqual(REPEATS_KEPT);
    expect(Buffer.byteLength(result.excerpt)).toBeLessThanOrEqual(BUDGET);
  });

  it('still spends the budget on lines that are not near-duplicates', () => {
    const lines = Array.from(
      { length: 2000 },
      (_, i) => `${['alpha', 'beta', 'gamma', 'delta'][i % 4]} ${'abcdefghij'.slice(i % 10)}${'klmnop'.slice(i % 6)} done`,
    );
    const distinct = Array.from(
      { length: 400 },
      (_, i) => `visited ${'node'.repeat(1 + (i % 7))} ${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`,
    );
    const result = selectExcerpt([...lines, ...distinct, 'ERROR: boom', 'end'].join('\n'), { budgetBytes: BUDGET });
    expect(result.excerpt).toContain('ERROR: boom');
    expect(Buffer.byteLength(result.excerpt)).toBeGreaterThan(BUDGET * 0.9);
  });
});
