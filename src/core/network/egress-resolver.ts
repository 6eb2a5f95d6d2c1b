/**
 * How the egress proxy turns an allowed name into addresses. The proxy, not
 * the job, resolves: the job's network namespace has no route and no DNS
 * server, and a name the allow-list denies is never looked up at all.
 *
 * TEST MODE (for headspace's own tests and probes only): when the engine's
 * own environment has HEADSPACE_TEST_RESOLVER_MAP, a JSON object of
 * name → address, those names resolve to those addresses without DNS and
 * stand in for public hosts (their loopback addresses are not range-checked,
 * so a test server on 127.0.0.1 can play "api.test"). It is read from the
 * engine process's environment when a job starts: a job cannot set it (its
 * environment is built from nothing and never reaches the engine).
 */
import { lookup } from 'node:dns/promises';

export const TEST_RESOLVER_ENV = 'HEADSPACE_TEST_RESOLVER_MAP';

/**
 * TEST MODE for secrets at egress (#18 item 3): a PEM certificate the proxy trusts, besides Node's roots, as
 * the issuer of an upstream's certificate (a loopback HTTPS test server playing a public host). Read and
 * carried exactly as the resolver map is (the engine's own environment, a detached job's handover, never the
 * supervisor's environment). Verification itself stays on: NODE_TLS_REJECT_UNAUTHORIZED is never involved.
 */
export const TEST_UPSTREAM_CA_ENV = 'HEADSPACE_TEST_UPSTREAM_CA';

/** Appended to a job's recorded network summary when its proxy ran in test mode (#18 F4). */
export const TEST_MODE_NOTE = `[test mode: ${TEST_RESOLVER_ENV} answered names, loopback unchecked; never for real use]`;

export interface Resolution {
  addresses: string[];
  /** True when the answer came from the test map (a stand-in public host). */
  fromTestMap: boolean;
}

export interface EgressResolver {
  resolve(host: string): Promise<Resolution>;
  /** Every name this resolver was asked for, in order (bounded): what the DNS-exfiltration probe checks. */
  readonly lookups: readonly string[];
  /** True when the test map is in force (every result says so). */
  readonly testMode?: boolean;
}

const MAX_LOOKUPS_KEPT = 1000;
const LOOKUP_TIMEOUT_MS = 5000;

export function testResolverMap(env: NodeJS.ProcessEnv = process.env): Record<string, string> | null {
  const raw = env[TEST_RESOLVER_ENV];
  if (raw === undefined || raw === '') return null;
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${TEST_RESOLVER_ENV} must be a JSON object of name → address`);
  return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

export function createResolver(env: NodeJS.ProcessEnv = process.env): EgressResolver {
  const map = testResolverMap(env);
  const lookups: string[] = [];
  return {
    lookups,
    testMode: map !== null,
    async resolve(host) {
      if (lookups.length < MAX_LOOKUPS_KEPT) lookups.push(host);
      const mapped = map?.[host];
      if (mapped !== undefined) return { addresses: [mapped], fromTestMap: true };
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS);
      });
      try {
        const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
        return { addresses: found.map((a) => a.address), fromTestMap: false };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
