import { EngineError } from '../errors.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses a strict env file: `NAME=VALUE` lines; blank lines and `#` comments
 * skipped; no quote stripping, no `export`, no trimming of values. A bad line
 * is refused by file name and 1-based line number, never by quoting it —
 * that line is exactly the kind that might hold a secret.
 */
export function parseEnvFile(text: string, fileName: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const eq = line.indexOf('=');
    const name = eq === -1 ? '' : line.slice(0, eq);
    if (eq <= 0 || !NAME.test(name)) {
      throw new EngineError('BAD_ARGUMENT', `${fileName}, line ${index + 1}: not a NAME=VALUE assignment`, {
        hint: 'each line must be NAME=VALUE (no spaces around =, no quotes needed, no `export`); blank lines and # comments are skipped',
      });
    }
    values[name] = line.slice(eq + 1);
  });
  return values;
}

export function isEnvName(name: string): boolean {
  return NAME.test(name);
}
