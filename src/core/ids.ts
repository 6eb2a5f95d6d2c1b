import { randomBytes } from 'node:crypto';
import { EngineError } from './errors.js';

/** Workspace and job ids: safe as file names, as argv and in markdown. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateId(kind: 'workspace' | 'job' | 'checkpoint' | 'output', id: string): string {
  if (typeof id !== 'string' || !ID_PATTERN.test(id) || id.includes('..')) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 70 ? `${id.slice(0, 70)}…` : id) : String(id);
    throw new EngineError('BAD_ID', `${shown} is not a valid ${kind} id`, {
      hint: 'ids are 1–64 characters: a letter or digit, then letters, digits, ".", "_" or "-" (no "..")',
    });
  }
  return id;
}

/** `trace`: the id of one engine call (provenance.trace_id, and its journal rows); `cp` a checkpoint, `out` a sealed output (#14). */
export type IdGenerator = (prefix: 'ws' | 'job' | 'trace' | 'cp' | 'out') => string;

/**
 * Random bytes drawn from the CSPRNG a page at a time: one randomBytes call
 * per id cost more than the rest of minting it, and every verb mints a trace
 * id (#20). Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = POOL_BYTES;
function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

export const randomIds: IdGenerator = (prefix) => `${prefix}-${randomHex(6)}`;

/** Deterministic ids for tests: ws-000001, job-000001, trace-000001, … */
export function sequentialIds(): IdGenerator {
  const counters = { ws: 0, job: 0, trace: 0, cp: 0, out: 0 };
  return (prefix) => `${prefix}-${String(++counters[prefix]).padStart(6, '0')}`;
}
