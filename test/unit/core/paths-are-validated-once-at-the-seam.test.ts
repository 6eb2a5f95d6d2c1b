/**
 * Workspace paths are validated once, at the seam: relative only; `..`,
 * absolute, NUL and empty are refused, never resolved; empty and `.`
 * segments are dropped. A path is given in the file name text form
 * (core/name-text.ts); the checks run on the bytes it stands for, so an
 * escaped `..` or `/` is still refused, and the result is the canonical text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeRawWorkspacePath, normalizeWorkspacePath } from '../../../src/core/paths.js';

describe('workspace paths', () => {
  it('normalises harmless forms', () => {
    expect(normalizeWorkspacePath('a//b/./c/')).toBe('a/b/c');
    expect(normalizeWorkspacePath('./report.json')).toBe('report.json');
  });

  it('refuses escapes, absolutes, NUL and empty', () => {
    for (const bad of ['..', '../x', 'a/../../b', 'a/..', '/etc/passwd', 'a\0b', '', '.', './/']) {
      expect(() => normalizeWorkspacePath(bad), bad).toThrow(expect.objectContaining({ code: 'BAD_PATH' }));
    }
  });

  it("says that '.' names the root where a name is needed, and that '' is empty", () => {
    expect(() => normalizeWorkspacePath('.')).toThrow("'.' names the workspace root itself, and a name under it is needed here");
    expect(() => normalizeWorkspacePath('./')).toThrow("'./' names the workspace root itself");
    expect(() => normalizeWorkspacePath('')).toThrow('the path is empty');
  });

  it('checks the bytes an escaped path stands for and returns its canonical text', () => {
    for (const bad of ['\\x2e\\x2e/x', 'a/\\x2e.', '\\x2fetc/passwd', 'a\\x00b', 'a\\b']) {
      expect(() => normalizeWorkspacePath(bad), bad).toThrow(expect.objectContaining({ code: 'BAD_PATH' }));
    }
    expect(normalizeWorkspacePath('d\\xff//x\\xfe.txt')).toBe('d\\xff/x\\xfe.txt');
    expect(normalizeWorkspacePath('a\\x2fb')).toBe('a/b');
    expect(normalizeWorkspacePath('payload.sh\rreport.json')).toBe('payload.sh\\rreport.json');
  });

  it('takes a raw name from a job as bytes, where a backslash is just a byte', () => {
    expect(normalizeRawWorkspacePath('a\\b/./c')).toBe('a\\\\b/c');
    expect(() => normalizeRawWorkspacePath('a/../..')).toThrow(expect.objectContaining({ code: 'BAD_PATH' }));
  });

  it('never returns a path that leaves the workspace, for any input', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', '..', '.', '', '/', '\0', 'c.txt'), { maxLength: 8 }), (parts) => {
        const raw = parts.join('/');
        try {
          const out = normalizeWorkspacePath(raw);
          return !out.startsWith('/') && !out.split('/').includes('..') && !out.includes('\0') && out.length > 0;
        } catch (error) {
          return (error as { code?: string }).code === 'BAD_PATH';
        }
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
