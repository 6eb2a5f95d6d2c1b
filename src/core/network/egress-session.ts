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
import { rmSync } from 'node:fs';
import type { JobUser } from '../job-identity.js';
import type { EgressChannel } from '../provider.js';
import { checkTarget, hostEvidence, normaliseHost, parsePattern, strictHost } from './allow-list.js';
import { makeEgressDir } from './egress-dirs.js';
import { EgressLedger } from './egress-ledger.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import { createResolver, type EgressResolver } from './egress-resolver.js';

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
  },
): Promise<EgressSession> {
  const resolver = createResolver(options.env);
  const now = options.now ?? Date.now;
  if (!options.simulated) {
    const socket = options.socket;
    const dir = socket === undefined ? undefined : makeEgressDir(socket.home, socket.workspaceId, socket.owner);
    let proxy: EgressProxy;
    try {
      proxy = await startEgressProxy({
        allow,
        resolver,
        now,
        ...(dir === undefined ? {} : { dir }),
        ...(socket?.owner === undefined ? {} : { owner: socket.owner }),
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
      async simulate(rawHost, port) {
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
        return { allowed: true };
      },
    },
  };
}
