/**
 * One job's egress, started before provider.run and closed after it (#18).
 * A real provider gets the proxy's socket; a simulating one (the fake) gets
 * the same allow-list decision without a socket (a simulated name is never
 * looked up, so the address-range check has nothing to check). Both
 * fill one ledger, which the engine journals and summarises.
 *
 * Self-contained on purpose: a detached run's supervisor starts and stops it
 * around provider.run exactly as the run verb does.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import type { JobUser } from '../job-identity.js';
import type { EgressChannel } from '../provider.js';
import { checkTarget, hostEvidence, normaliseHost, parsePattern, strictHost } from './allow-list.js';
import { makeEgressDir } from './egress-dirs.js';
import { EgressLedger } from './egress-ledger.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import { TEST_UPSTREAM_CA_ENV, createResolver, type EgressResolver } from './egress-resolver.js';
import { ensureWorkspaceCa, loadWorkspaceCa, trustBundle } from './egress-ca.js';
import { blockedReason, placeholdersIn, secretIsFor, type JobSecret } from './egress-secrets.js';

export interface EgressSession {
  channel: EgressChannel;
  ledger: EgressLedger;
  resolver: EgressResolver;
  close(): Promise<void>;
}

export async function openEgressSession(
  allow: readonly string[],
  options: {
    simulated: boolean;
    now?: () => number;
    env?: NodeJS.ProcessEnv;
    /** Where the socket goes (egress-dirs.ts): this home, this workspace, and as root the job's uid, the only one that may reach it (#18 F3). */
    socket?: { home: string; workspaceId: string; owner?: JobUser };
    /** The job's secrets (#18 item 3): their tunnels are TLS-terminated with the workspace's CA (under `socket.home`). */
    secrets?: readonly JobSecret[];
    /** The job's network was cut for probing the secret redactor: record it now (egress-proxy.ts onCut). */
    onCut?: (at: number, host: string, port: number) => void;
  },
): Promise<EgressSession> {
  const env = options.env ?? process.env;
  const testCa = env[TEST_UPSTREAM_CA_ENV];
  const found = createResolver(env);
  // A test upstream CA is test mode as much as the resolver map is: the run says so (#18 F4).
  const resolver: EgressResolver = testCa && !found.testMode ? { resolve: (h) => found.resolve(h), lookups: found.lookups, testMode: true } : found;
  const now = options.now ?? Date.now;
  const secrets = options.secrets ?? [];
  if (!options.simulated) {
    const socket = options.socket;
    if (secrets.length > 0 && socket === undefined) throw new Error('secrets at egress need the home that holds the workspace CA');
    const dir = socket === undefined ? undefined : makeEgressDir(socket.home, socket.workspaceId, socket.owner);
    let proxy: EgressProxy;
    let caBundlePath: string | null = null;
    try {
      let withSecrets = {};
      if (secrets.length > 0) {
        // A workspace made before secrets existed has no CA yet: made now, once, like create makes it.
        ensureWorkspaceCa(socket!.home, socket!.workspaceId);
        const ca = loadWorkspaceCa(socket!.home, socket!.workspaceId);
        // The certificate only, never the key: the job's private directory holds what the sandbox binds read-only.
        caBundlePath = join(dir!, 'ca-bundle.pem');
        writeFileSync(caBundlePath, trustBundle(ca.certPem), { mode: 0o444 });
        withSecrets = { secrets: { list: secrets, ca, upstreamCa: testCa ? [...rootCertificates, testCa] : undefined } };
      }
      proxy = await startEgressProxy({
        allow,
        resolver,
        now,
        ...(dir === undefined ? {} : { dir }),
        ...(socket?.owner === undefined ? {} : { owner: socket.owner }),
        ...withSecrets,
        ...(options.onCut === undefined ? {} : { onCut: options.onCut }),
      });
    } catch (error) {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return {
      ledger: proxy.ledger,
      resolver,
      close: () => proxy.close(),
      channel: {
        socketPath: proxy.socketPath,
        ...(caBundlePath === null ? {} : { caBundlePath }),
        simulate: async () => ({ allowed: false, reason: 'a real provider goes through the proxy socket' }),
      },
    };
  }
  const patterns = allow.map(parsePattern);
  const ledger = new EgressLedger();
  return {
    ledger,
    resolver,
    close: async () => {},
    channel: {
      socketPath: null,
      async simulate(rawHost, port, sent) {
        // The ledger keeps a host only as validated, or escaped when it is not one (#18 F1).
        const host = strictHost(normaliseHost(rawHost)) ?? hostEvidence(rawHost);
        const at = now();
        const deny = (reason: NonNullable<ReturnType<typeof checkTarget>['reason']>) => {
          ledger.record({ at, verdict: 'denied', host, port, via: 'simulated', reason, bytesUp: 0, bytesDown: 0 });
          return { allowed: false, reason };
        };
        const named = checkTarget(patterns, host, port);
        if (!named.allowed) return deny(named.reason!);
        ledger.record({ at, verdict: 'allowed', host, port, via: 'simulated', bytesUp: 0, bytesDown: 0 });
        // Secrets at egress (#18 item 3), the proxy's decision simulated: a placeholder over plain text, or to a host not its own, is blocked.
        const carried = sent === undefined ? [] : placeholdersIn(secrets, sent.header);
        const foreign = carried.find((s) => !sent!.tls || !secretIsFor(s, host, port));
        if (foreign) {
          const reason = blockedReason(foreign.name, !sent!.tls);
          ledger.record({ at, verdict: 'denied', host, port, via: 'simulated', reason, bytesUp: 0, bytesDown: 0 });
          return { allowed: false, reason };
        }
        for (const s of carried) ledger.substituted(s.name, host);
        return { allowed: true, substituted: carried.map((s) => s.name) };
      },
    },
  };
}
