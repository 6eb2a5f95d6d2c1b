/**
 * Canonical JSON: one byte sequence per value, so a digest of it names the
 * value and nothing else (policy digests, job receipts #16). The form:
 * object keys sorted by their UTF-16 code units (JavaScript's default sort)
 * at every level, no whitespace at all, strings and numbers as
 * `JSON.stringify` writes them, arrays in their own order, `undefined`
 * members left out; encoded as UTF-8. Only finite numbers are allowed: a
 * NaN or an infinity would silently become `null`, so it is refused.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value));
}

function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonical JSON holds only finite numbers');
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortedCopy(member);
  }
  return out;
}

/** `sha256:<hex>` of bytes or text (UTF-8). */
export function sha256Of(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** `sha256:<hex>` of a value's canonical JSON. */
export function canonicalDigest(value: unknown): string {
  return sha256Of(canonicalJson(value));
}
