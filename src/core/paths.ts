import { EngineError } from './errors.js';

/**
 * Validates a workspace-relative path once, at the seam: relative only;
 * `..`, absolute, NUL and empty are refused, never resolved. Empty and `.`
 * segments are dropped. Returns the normalised `a/b/c` form.
 */
export function normalizeWorkspacePath(raw: string, { allowRoot = false } = {}): string {
  if (typeof raw !== 'string') throw badPath('a path must be text');
  if (raw.includes('\0')) throw badPath('a path may not contain a NUL byte');
  if (raw.startsWith('/')) throw badPath(`'${shown(raw)}' is absolute; give a path relative to the workspace root`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) throw badPath(`'${shown(raw)}' contains '..'; paths may not leave the workspace`);
  if (segments.length === 0) {
    if (allowRoot) return '';
    throw badPath('the path is empty');
  }
  return segments.join('/');
}

function shown(raw: string): string {
  return raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
}

function badPath(message: string): EngineError {
  return new EngineError('BAD_PATH', message, { hint: 'use a relative path inside the workspace, e.g. out/report.json' });
}
