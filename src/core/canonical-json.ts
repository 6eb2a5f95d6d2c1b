/**
 * Canonical JSON: one byte sequence per value, so a digest of it names the
 * value and nothing else (policy digests, job receipts #16). The form:
 * object keys sorted by their UTF-16 code units (JavaScript's default sort)
 * at every level, except that integer-like keys come first in numeric order
 * (as JavaScript objects hold them, and as every stored digest has them), no whitespace at all, strings and numbers as
 * `JSON.stringify` writes them, arrays in their own order, `undefined`
 * members left out; encoded as UTF-8. Only finite numbers are allowed: a
 * NaN or an infinity would silently become `null`, so it is refused.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  const text = serialise(value);
  // A top-level undefined (or function) has no JSON form: JSON.stringify's own answer, kept.
  return text === undefined ? (JSON.stringify(value) as string) : text;
}

/**
 * Writes the canonical form directly, without first building a sorted copy
 * of the value (the copy cost more than the hashing it fed, on every job's
 * receipt and every result's policy digest, #20). Same bytes as
 * JSON.stringify of a copy with sorted keys: members whose value has no JSON
 * form (undefined, functions, symbols) are left out of objects and written
 * as null in arrays; an object is its own enumerable keys (no toJSON), as the
 * copy made it.
 */
function serialise(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON holds only finite numbers');
      return JSON.stringify(value);
    case 'object':
      break;
    case 'bigint':
      return JSON.stringify(value);
    case 'function':
    case 'symbol':
    case 'undefined':
      return undefined;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (serialise(value[i]) ?? 'null');
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const key of canonicalKeyOrder(value)) {
    const member = serialise((value as Record<string, unknown>)[key]);
    if (member === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The key order the sorted copy had once JSON.stringify wrote it: an object
 * lists integer-like keys ("0", "7", "10") first, in numeric order, whatever
 * order they were inserted in, then the others in the (sorted) insertion
 * order. Object.keys already gives the integer-like ones first and in that
 * order, so only the rest is sorted.
 */
function canonicalKeyOrder(value: object): string[] {
  const keys = Object.keys(value);
  let indexKeys = 0;
  while (indexKeys < keys.length && isArrayIndex(keys[indexKeys]!)) indexKeys++;
  if (indexKeys === 0) return keys.sort();
  return [...keys.slice(0, indexKeys), ...keys.slice(indexKeys).sort()];
}

function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;
}

/** `sha256:<hex>` of bytes or text (UTF-8). */
export function sha256Of(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** `sha256:<hex>` of a value's canonical JSON. */
export function canonicalDigest(value: unknown): string {
  return sha256Of(canonicalJson(value));
}
