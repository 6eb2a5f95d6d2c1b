/**
 * Secrets at egress (#18 item 3): the job holds a placeholder
 * (`hs-secret-NAME-<random>`), and the egress proxy puts the real value in
 * its place only in requests to the secret's own host, only over TLS the
 * proxy terminated. Pure: what a secret is, which host it is for, and which
 * of a job's placeholders a piece of a request carries. The proxy
 * (egress-proxy.ts, egress-intercept.ts) and the fake's simulation
 * (egress-session.ts) both decide with these, so they cannot drift.
 */
import { randomBytes } from 'node:crypto';
import { EngineError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { DEFAULT_PORTS, checkTarget, formatPattern, parsePattern, type AllowPattern } from './allow-list.js';

/** What a caller gives (NAME, its value, the host it is for): the value travels like an env value, never recorded. */
export interface SecretInput {
  name: string;
  value: string;
  /** An allow-list pattern (exact host, `*.domain`, IP literal, optional `:port`) the allow-list must cover. */
  host: string;
  /** Opt-in: also substitute in request bodies (a Content-Length body up to SECRET_BODY_MAX_BYTES). */
  body?: boolean;
}

/** A secret as one job carries it: its placeholder made, its host pattern normalised. */
export interface JobSecret {
  name: string;
  value: string;
  /** Normalised pattern (formatPattern): what the record and the summary name. */
  host: string;
  body: boolean;
  placeholder: string;
}

/** Every placeholder starts so; a job's scanner looks for its own placeholders exactly. */
export const PLACEHOLDER_PREFIX = 'hs-secret-';
/** Secrets one run may carry. */
export const MAX_SECRETS = 16;
/** A value longer than this is not a credential (and would bloat every request head it lands in). */
export const SECRET_VALUE_MAX_BYTES = 8 * 1024;
/** The largest request body the proxy holds to substitute in (opt-in); a larger one passes unsubstituted, scanned. */
export const SECRET_BODY_MAX_BYTES = 1024 * 1024;
/**
 * Placeholders one request may have replaced by values, head and body together. Each 44-byte placeholder
 * becomes up to SECRET_VALUE_MAX_BYTES in the proxy's memory, outside the job's budget: a 1 MiB body of them
 * was 195 MB in the engine (or the shared supervisor) per request, and a job's concurrent ones held 1.2 GB and
 * stalled another workspace's requests for 15 s (red team, session 12). A request needs a value a few times.
 */
export const SUBSTITUTIONS_PER_REQUEST_MAX = 16;

/** A secret's name: an environment variable name, bounded (it is part of the placeholder and of every record naming it). */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Checks a run's secrets against its workspace's policy and makes each one's placeholder.
 * Refused (POLICY_DENIED, exit 3) before anything is recorded or runs: no allow-list (nothing could
 * substitute), or a host the allow-list does not cover (the proxy would never reach it).
 */
export function planSecrets(
  secrets: readonly SecretInput[] | undefined,
  policy: Pick<Policy, 'network' | 'networkAllow'>,
  env: Record<string, string>,
  random: (bytes: number) => string = (n) => randomBytes(n).toString('hex'),
): JobSecret[] {
  if (secrets === undefined || secrets.length === 0) return [];
  if (!Array.isArray(secrets))
    throw new EngineError('BAD_ARGUMENT', 'secrets is a list of {name, value, host}', {
      hint: 'e.g. [{"name": "API_TOKEN", "value": "…", "host": "api.example.com"}]',
    });
  if (secrets.length > MAX_SECRETS)
    throw new EngineError('BAD_ARGUMENT', `at most ${MAX_SECRETS} secrets per run, not ${secrets.length}`, {
      hint: 'pass the rest as env variables (the job then holds their values), or split the work',
    });
  if (policy.network !== 'allowlist')
    throw new EngineError(
      'POLICY_DENIED',
      'a secret needs a workspace with a network allow-list: only its egress proxy can put the value in the job’s requests',
      {
        hint: 'create the workspace with network allow=HOST (the secret’s host), or pass the value as an env variable (the job then holds the real value)',
      },
    );
  const allow = (policy.networkAllow ?? []).map(parsePattern);
  const seen = new Set<string>();
  return secrets.map((s) => {
    if (typeof s !== 'object' || s === null || typeof s.name !== 'string' || typeof s.value !== 'string' || typeof s.host !== 'string')
      throw new EngineError('BAD_ARGUMENT', 'a secret is {name, value, host}', { hint: 'e.g. {"name": "API_TOKEN", "value": "…", "host": "api.example.com"}' });
    if (!SECRET_NAME.test(s.name))
      throw new EngineError('BAD_ARGUMENT', `secret name '${s.name.slice(0, 40)}' is not a variable name`, {
        hint: 'letters, digits and _, not starting with a digit, e.g. API_TOKEN',
      });
    if (seen.has(s.name) || Object.hasOwn(env, s.name))
      throw new EngineError('BAD_ARGUMENT', `${s.name} is given twice (as a secret and again as a secret or an env variable)`, { hint: 'give each name once' });
    seen.add(s.name);
    // The value goes into header lines: a CR, LF or NUL in it would split one header into two (header injection). Never echoed.
    if (s.value === '' || /[\r\n\0]/.test(s.value) || Buffer.byteLength(s.value) > SECRET_VALUE_MAX_BYTES)
      throw new EngineError('BAD_ARGUMENT', `secret ${s.name} must be non-empty text of at most ${SECRET_VALUE_MAX_BYTES} bytes without CR, LF or NUL`, {
        hint: 'a secret is a token that goes into a request header; pass other data through a file',
      });
    const pattern = parsePattern(s.host);
    if (!covered(allow, pattern))
      throw new EngineError('POLICY_DENIED', `secret ${s.name} is for ${formatPattern(pattern)}, which the workspace's allow-list does not cover`, {
        hint: `the allow-list is ${(policy.networkAllow ?? []).join(', ') || '(empty)'}: give a host it allows, or create a workspace that allows ${formatPattern(pattern)}`,
      });
    return { name: s.name, value: s.value, host: formatPattern(pattern), body: s.body === true, placeholder: `${PLACEHOLDER_PREFIX}${s.name}-${random(16)}` };
  });
}

/** True when every host:port the secret's pattern names is one the allow-list allows. */
export function covered(allow: readonly AllowPattern[], s: AllowPattern): boolean {
  const ports = s.port === null ? DEFAULT_PORTS : [s.port];
  return ports.every((port) => {
    if (!s.wildcard) return checkTarget(allow, s.ip === 6 ? `[${s.host}]` : s.host, port).allowed;
    // *.a.b is covered by *.b or *.a.b (every name under a.b is under b), never by exact hosts.
    return allow.some(
      (p) => p.wildcard && (s.host === p.host || s.host.endsWith(`.${p.host}`)) && (p.port === null ? DEFAULT_PORTS.includes(port) : p.port === port),
    );
  });
}

/** True when a request to HOST:PORT is one the secret is for. */
export function secretIsFor(secret: Pick<JobSecret, 'host'>, host: string, port: number): boolean {
  return checkTarget([parsePattern(secret.host)], host, port).allowed;
}

/** The job's secrets whose placeholder occurs in `text` (latin1: the bytes as they are). */
export function placeholdersIn(secrets: readonly JobSecret[], text: string): JobSecret[] {
  if (!text.includes(PLACEHOLDER_PREFIX)) return [];
  return secrets.filter((s) => text.includes(s.placeholder));
}

/** The longest placeholder: how much of one chunk a streaming scan keeps for the next. */
export function longestPlaceholder(secrets: readonly JobSecret[]): number {
  return secrets.reduce((n, s) => Math.max(n, s.placeholder.length), 0);
}

/**
 * Finds a job's placeholders in a byte stream, across chunk boundaries: each
 * push looks at the last (longest − 1) bytes of the previous chunk and the new one.
 */
export class PlaceholderScanner {
  private tail = '';
  private readonly keep: number;
  private readonly secrets: readonly JobSecret[];
  constructor(secrets: readonly JobSecret[]) {
    this.secrets = secrets;
    this.keep = Math.max(0, longestPlaceholder(secrets) - 1);
  }
  push(chunk: Buffer): JobSecret[] {
    const text = this.tail + chunk.toString('latin1');
    this.tail = this.keep === 0 ? '' : text.slice(-this.keep);
    return placeholdersIn(this.secrets, text);
  }
}

/** What a blocked placeholder is recorded as: the secret's NAME and why, never its value or placeholder. */
export function blockedReason(name: string, plain: boolean): `placeholder of ${string}` {
  return plain ? `placeholder of ${name} over plain text` : `placeholder of ${name} to another host`;
}
