/**
 * An allow-list that names one of the host's own addresses by IP literal
 * (`allow=127.0.0.1:5432`, a private or link-local range) opens the host's
 * loopback and local services to the job: the very exposure that refusing
 * `network enabled` prevents. An operator may choose that; an agent over MCP
 * may not (red team, host surfaces: a model talked into it would hand its
 * jobs the user's local database, the dashboard or the MCP server itself).
 * Names are unaffected: the proxy refuses a name that resolves to such an
 * address unless an IP literal names it.
 */
import { networkInterfaces } from 'node:os';
import { EngineError } from '../errors.js';
import { canonicalIp, isPrivateAddress, ownAddressesOf, parsePattern } from './allow-list.js';

/**
 * Throws POLICY_DENIED, before anything is made, when a pattern names a
 * loopback, private, link-local or other non-public address, or one of the
 * host's own (a public address of an interface reaches what listens on
 * 0.0.0.0 just as well: red team round 2).
 */
export function refusePrivateTargets(patterns: readonly string[] | undefined, own: ReadonlySet<string> = ownAddressesOf(networkInterfaces())): void {
  const named = (patterns ?? []).filter((text) => {
    const pattern = parsePattern(text);
    return pattern.ip !== 0 && (isPrivateAddress(pattern.host) || own.has(canonicalIp(pattern.host)));
  });
  if (named.length === 0) return;
  throw new EngineError(
    'POLICY_DENIED',
    `the network allow-list names the host's own or a private address (${named.join(', ')}): that opens the host's local services to the job, which only the operator may do; nothing was created`,
    { hint: 'name public hosts only, or ask the operator to create the workspace (the CLI takes such an allow-list)' },
  );
}
