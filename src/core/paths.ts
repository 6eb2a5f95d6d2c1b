import { EngineError } from './errors.js';
import { nameBytes, nameText, stringText } from './name-text.js';

/**
 * Validates a workspace-relative path once, at the seam: relative only;
 * `..`, absolute, NUL and empty are refused, never resolved. Empty and `.`
 * segments are dropped. `raw` is in the name text form (name-text.ts: `\xff`
 * for a byte that is not UTF-8, `\\` for a backslash), so every byte name is
 * reachable; the checks run on the bytes it stands for (`\x2e\x2e` is `..`).
 * Returns the canonical text form `a/b/c` (the one the listing shows), so
 * two spellings of one name never count as two names.
 */
export function normalizeWorkspacePath(raw: string, { allowRoot = false } = {}): string {
  if (typeof raw !== 'string') throw badPath('a path must be text');
  let bytes: Buffer;
  try {
    bytes = nameBytes(raw);
  } catch (error) {
    throw badPath(
      `'${shown(stringText(raw))}' is not a file name's text form: ${(error as Error).message}`,
      'a byte that is not UTF-8 is written \\xff, a backslash \\\\; copy names as ls-files shows them',
    );
  }
  return workspacePathOfBytes(bytes, { allowRoot });
}

/**
 * The same checks for a path given as the bytes a program would pass to the
 * kernel (the fake provider's scripted jobs): a backslash there is just a
 * byte. Returns the canonical text form.
 */
export function normalizeRawWorkspacePath(raw: string, { allowRoot = false } = {}): string {
  if (typeof raw !== 'string') throw badPath('a path must be text');
  return workspacePathOfBytes(Buffer.from(raw, 'utf8'), { allowRoot });
}

function workspacePathOfBytes(bytes: Buffer, { allowRoot }: { allowRoot: boolean }): string {
  if (bytes.includes(0)) throw badPath('a path may not contain a NUL byte');
  const text = nameText(bytes);
  if (bytes[0] === 0x2f) throw badPath(`'${shown(text)}' is absolute; give a path relative to the workspace root`);
  const segments = splitBytes(bytes).filter((s) => s.length > 0 && !(s.length === 1 && s[0] === 0x2e));
  if (segments.some((s) => s.length === 2 && s[0] === 0x2e && s[1] === 0x2e))
    throw badPath(`'${shown(text)}' contains '..'; paths may not leave the workspace`);
  if (segments.length === 0) {
    if (allowRoot) return '';
    // '.' or './' named the root where a name is needed (put's destination): "the path is empty" read as a bug.
    throw badPath(text === '' ? 'the path is empty' : `'${shown(text)}' names the workspace root itself, and a name under it is needed here`);
  }
  return segments.map((s) => nameText(s)).join('/');
}

function splitBytes(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(0x2f); at >= 0; at = bytes.indexOf(0x2f, start)) {
    parts.push(bytes.subarray(start, at));
    start = at + 1;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/**
 * The exact bytes of each component of a normalized path (its text form;
 * '' is the root, no components). Splitting the text on `/` is safe because
 * the text form never writes `/` inside an escape.
 */
export function pathComponents(normalized: string): Buffer[] {
  return normalized === '' ? [] : normalized.split('/').map((part) => nameBytes(part));
}

function shown(raw: string): string {
  return raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
}

function badPath(message: string, hint = 'use a relative path inside the workspace, e.g. out/report.json'): EngineError {
  return new EngineError('BAD_PATH', message, { hint });
}
