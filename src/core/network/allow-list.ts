/**
 * The network allow-list (#18): what `create --network allow=PATTERN,…`
 * means, parsed once, and the pure decision the egress proxy (and the fake's
 * simulation) takes for each connection a job asks for.
 *
 * A pattern is `HOST[:PORT]`:
 *  - `api.example.com` — that host exactly;
 *  - `*.example.com`   — any subdomain of example.com (not example.com itself);
 *  - `203.0.113.7`, `[2001:db8::1]` — an IP literal: the only way a job may
 *    name an address rather than a host, and the only way to reach a
 *    loopback, link-local or private address (`127.0.0.1:8080` for a local
 *    test service);
 *  - no port means 80 and 443 (web traffic); `:PORT` means that port only.
 *
 * Names are matched before anything is resolved: a denied name is never
 * looked up, so a job cannot leak data through the names it asks for.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { EngineError } from '../errors.js';

export interface AllowPattern {
  /** Lower-case host, without the `*.` of a wildcard; an IPv6 literal without brackets. */
  host: string;
  wildcard: boolean;
  /** 4 or 6 for an IP literal, 0 for a name. */
  ip: 0 | 4 | 6;
  /** The one port allowed, or null for 80 and 443. */
  port: number | null;
}

/** Ports a pattern without `:PORT` allows. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

/** At most this many patterns: each is matched per connection, and the list is shown in every result. */
export const MAX_PATTERNS = 64;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Parses one pattern; throws BAD_ARGUMENT naming it. */
export function parsePattern(raw: string): AllowPattern {
  const text = raw.trim().toLowerCase();
  const bad = (why: string) =>
    new EngineError('BAD_ARGUMENT', `network allow-list pattern '${raw.slice(0, 80)}' ${why}`, {
      hint: 'give HOST, *.DOMAIN or an IP literal, each with an optional :PORT, e.g. allow=registry.npmjs.org,*.pythonhosted.org:443,127.0.0.1:8080',
    });
  // A URL pasted in (`allow=$(npm config get registry)`) read as "a port that is not a number": name the mistake and the host to give instead.
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/.exec(text);
  if (url) throw bad(`is a URL, not a host: give its host${url[1] ? `, e.g. allow=${url[1].replace(/^[^@]*@/, '')}` : ''}`);
  let hostPart = text;
  let port: number | null = null;
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  if (v6) {
    hostPart = v6[1]!;
    if (v6[2] !== undefined) port = Number(v6[2]);
    if (isIP(hostPart) !== 6) throw bad('is not a valid IPv6 literal');
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      if (!/^\d{1,5}$/.test(text.slice(colon + 1))) throw bad('has a port that is not a number');
      port = Number(text.slice(colon + 1));
      hostPart = text.slice(0, colon);
    }
  }
  if (port !== null && (port < 1 || port > 65535)) throw bad('has a port outside 1-65535');
  const ip = isIP(hostPart);
  if (ip !== 0) return { host: hostPart, wildcard: false, ip: ip as 4 | 6, port };
  const wildcard = hostPart.startsWith('*.');
  const name = wildcard ? hostPart.slice(2) : hostPart;
  if (name.length === 0 || name.length > 253) throw bad('has no host, or a host longer than 253 characters');
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l))) throw bad('is not a host name (letters, digits and - in dot-separated labels; a wildcard only as a leading *.)');
  // `*.com` would open a whole top-level domain: a wildcard needs a registrable-looking domain under it.
  if (wildcard && labels.length < 2) throw bad('wildcards a whole top-level domain; name a domain under it, e.g. *.example.com');
  return { host: name, wildcard, ip: 0, port };
}

export function formatPattern(p: AllowPattern): string {
  const host = p.ip === 6 ? `[${p.host}]` : `${p.wildcard ? '*.' : ''}${p.host}`;
  return p.port === null ? host : `${host}:${p.port}`;
}

/**
 * `allow=A,B` (one or several of them) → the normalised, sorted, de-duplicated
 * pattern texts. `allow=` alone is an empty allow-list: the proxy runs and
 * denies everything, with each denial in the result.
 */
export function parseAllowList(specs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const spec of specs) {
    if (!spec.startsWith('allow='))
      throw new EngineError('BAD_ARGUMENT', `'${spec.slice(0, 40)}' is not an allow-list`, { hint: 'write it as allow=HOST[,HOST…]' });
    for (const part of spec.slice('allow='.length).split(',')) if (part.trim() !== '') out.add(formatPattern(parsePattern(part)));
  }
  if (out.size > MAX_PATTERNS)
    throw new EngineError('BAD_ARGUMENT', `the network allow-list has ${out.size} patterns; at most ${MAX_PATTERNS}`, {
      hint: 'use a wildcard (*.example.com) for many hosts of one domain',
    });
  return [...out].sort();
}

/** `sha256:<hex>` of the normalised list: what the policy summary pins. */
export function allowListDigest(patterns: readonly string[]): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify([...patterns].sort()))
    .digest('hex')}`;
}

export type DenyReason = 'not in allow-list' | 'ip literal not in allow-list' | 'private address' | 'name did not resolve' | 'bad request' | 'malformed host';

export interface TargetCheck {
  allowed: boolean;
  reason?: DenyReason;
  /** The patterns that matched (IP-literal patterns also admit a private address). */
  matched: AllowPattern[];
}

/** Normalises what a job asked for: lower case, no trailing dot, brackets off an IPv6 literal. */
export function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/**
 * The one gate every host a job names passes before any matching or lookup
 * (CONNECT target, absolute URI, SOCKS5 domain or address): an LDH host name
 * (dot-separated labels of a-z, 0-9 and '-', 1-63 characters, not starting or
 * ending with '-', 253 in all; one trailing dot dropped) or a valid IPv4/IPv6
 * literal (brackets off). Anything else — a NUL, a control byte, a space, '%'
 * zone, '_' — is null: a C resolver would read "evil.org\0.example.com" as
 * "evil.org" while a suffix match reads it as under example.com (#18 F1).
 * Returns the normalised host (lower case).
 */
export function strictHost(raw: string): string | null {
  let h = raw.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) {
    h = h.slice(1, -1);
    return /^[0-9a-f:.]+$/.test(h) && isIP(h) === 6 ? h : null;
  }
  if (/^[0-9a-f:.]+$/.test(h) && isIP(h) !== 0) return h;
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h.length === 0 || h.length > 253) return null;
  // Address-shaped forms that are not a valid IPv4 literal (1.2.3, 0x7f.1, 2130706433) are refused: inet_aton reads them as addresses.
  if (/^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*$/.test(h)) return null;
  return h.split('.').every((l) => LABEL.test(l)) ? h : null;
}

/** A host as the ledger may keep it: what the job sent, with every byte outside printable ASCII escaped, bounded. */
export function hostEvidence(raw: string): string {
  const escaped = raw.slice(0, 255).replace(/[^\x21-\x7e]|\\/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return raw.length > 255 ? `${escaped}…` : escaped;
}

function portMatches(p: AllowPattern, port: number): boolean {
  return p.port === null ? DEFAULT_PORTS.includes(port) : p.port === port;
}

/** Step one, before any lookup: is HOST:PORT named by the allow-list? */
export function checkTarget(patterns: readonly AllowPattern[], rawHost: string, port: number): TargetCheck {
  const host = strictHost(rawHost.trim());
  if (!Number.isInteger(port) || port < 1 || port > 65535 || host === null) return { allowed: false, reason: 'malformed host', matched: [] };
  const ip = isIP(host);
  const matched = patterns.filter((p) => {
    if (!portMatches(p, port)) return false;
    if (ip !== 0) return p.ip !== 0 && canonicalIp(p.host) === canonicalIp(host);
    if (p.ip !== 0) return false;
    return p.wildcard ? host.endsWith(`.${p.host}`) : host === p.host;
  });
  if (matched.length > 0) return { allowed: true, matched };
  return { allowed: false, reason: ip !== 0 ? 'ip literal not in allow-list' : 'not in allow-list', matched: [] };
}

/**
 * The host's own interface addresses, canonical (`hostOwn` of checkAddress): a name resolving to one reaches
 * the host's own services as surely as loopback does, and a public address on an interface is in no private
 * range (red team, session 12, by reading).
 */
export function ownAddressesOf(interfaces: Record<string, Array<{ address: string }> | undefined>): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(interfaces)) for (const i of list ?? []) own.add(canonicalIp(i.address.replace(/%.*$/, '')));
  return own;
}

/**
 * Step two, after the proxy resolved a name: an address in a loopback,
 * link-local, private, shared, multicast or unspecified range is refused
 * — and so is any of the host's own interface addresses (hostOwn) —
 * unless an IP-literal pattern names that very address and port (DNS
 * rebinding, or a name an attacker controls pointing at 169.254.169.254,
 * must not reach the host's own network).
 */
export function checkAddress(patterns: readonly AllowPattern[], address: string, port: number, hostOwn: ReadonlySet<string> = new Set()): TargetCheck {
  if (!isPrivateAddress(address) && !hostOwn.has(canonicalIp(address))) return { allowed: true, matched: [] };
  const listed = patterns.filter((p) => p.ip !== 0 && canonicalIp(p.host) === canonicalIp(address) && portMatches(p, port));
  return listed.length > 0 ? { allowed: true, matched: listed } : { allowed: false, reason: 'private address', matched: [] };
}

export function canonicalIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  const groups = expandV6(address);
  // An IPv4-mapped address in any spelling (`::ffff:7f00:1`, `0:0:0:0:0:ffff:7f00:1`) is that IPv4 address: it
  // reaches it (red team 2).
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [hi, lo] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return groups.join(':');
}

function expandV6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g || '0', 16).toString(16));
}

/** Addresses a job must not reach by name: the host's own networks and the non-unicast ranges. */
export function isPrivateAddress(address: string): boolean {
  const c = canonicalIp(address);
  if (isIP(c) === 4) {
    const [a, b] = c.split('.').map(Number) as [number, number];
    return (
      a === 0 || // this network
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) || // shared address space (CGNAT)
      (a === 169 && b === 254) || // link-local, cloud metadata
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) || // IETF protocol assignments
      (a === 198 && (b === 18 || b === 19)) || // benchmarking
      a >= 224 // multicast, reserved, broadcast
    );
  }
  const groups = expandV6(c).map((g) => parseInt(g, 16));
  const first = groups[0]!;
  if (groups.every((g, i) => (i < 7 ? g === 0 : g <= 1))) return true; // :: and ::1
  return (
    (first & 0xfe00) === 0xfc00 || // unique local
    (first & 0xffc0) === 0xfe80 || // link-local
    (first & 0xff00) === 0xff00 || // multicast
    (first === 0x64 && groups[1] === 0xff9b) || // NAT64 can embed a private v4 address
    first === 0x2002 // 6to4 embeds any v4 address
  );
}
