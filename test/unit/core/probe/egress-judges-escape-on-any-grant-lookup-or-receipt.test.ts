/**
 * The network allow-list probes' judges (#18), on hand-written facts: an
 * attempt the proxy granted, a decision it allowed, a connection or datagram
 * a host listener received, a connect or UDP send that left the sandbox, a
 * unique name the job's resolver answered or the proxy went past the
 * allow-list for: each is an escape. An allow-list workspace refused at
 * create, or a provider without the feature, is skipped, never contained.
 */
import { describe, expect, it } from 'vitest';
import type { EgressDecision } from '../../../../src/core/network/egress-ledger.js';
import { whyNotApplicable } from '../../../../src/core/probe/run-probe.js';
import {
  egressDirectConnect,
  egressDisallowedDomain,
  egressDnsExfiltration,
  egressMalformedHost,
  egressUdp,
} from '../../../../src/core/probe/scenarios-egress.js';
import type { ProviderCapabilities } from '../../../../src/core/provider.js';
import { job } from './facts.js';

const main = job('probe-done\n');
const denied = (host: string, reason: EgressDecision['reason'] = 'not in allow-list'): EgressDecision => ({
  at: 0,
  verdict: 'denied',
  host,
  port: 443,
  via: 'http-connect',
  reason,
  bytesUp: 0,
  bytesDown: 0,
});
const side = (output: string, decisions: EgressDecision[] = []) => ({ output: `${output}probe-done\n`, exitCode: 0, decisions });

describe('the egress probe judges', () => {
  it('call a malformed host judged for any reason but its syntax an escape, and every one denied as malformed contained', () => {
    const malformed = denied('localhost\\x00.hsprobe.invalid', 'malformed host');
    expect(egressMalformedHost.judge(main, { side: side('', [malformed]), received: 0 }).verdict).toBe('contained');
    expect(
      egressMalformedHost.judge(main, { side: side('', [malformed, denied('localhost\\x00.hsprobe.invalid', 'private address')]), received: 0 }).verdict,
    ).toBe('escaped');
    expect(egressMalformedHost.judge(main, { side: side(''), received: 0 }).verdict).toBe('skipped');
  });

  it('call every attempt denied by the proxy contained', () => {
    const facts = { side: side('answer: connect=localhost:1 HTTP/1.1 403 Forbidden\n', [denied('localhost')]), received: 0 };
    expect(egressDisallowedDomain.judge(main, facts).verdict).toBe('contained');
  });

  it('call a granted CONNECT, an allowed decision or a host listener receipt an escape', () => {
    expect(egressDisallowedDomain.judge(main, { side: side('answer: connect=localhost:1 HTTP/1.1 200 Connection Established\n'), received: 0 }).verdict).toBe(
      'escaped',
    );
    expect(egressDisallowedDomain.judge(main, { side: side('', [{ ...denied('localhost'), verdict: 'allowed' }]), received: 0 }).verdict).toBe('escaped');
    expect(egressDisallowedDomain.judge(main, { side: side(''), received: 1 }).verdict).toBe('escaped');
  });

  it('call a direct connect or a UDP send that left the sandbox an escape', () => {
    expect(egressDirectConnect.judge(main, { side: side('connected: direct=1.1.1.1:443\n'), received: 0 }).verdict).toBe('escaped');
    expect(egressUdp.judge(main, { side: side('sent: udp=8.8.8.8:53\n'), received: 0 }).verdict).toBe('escaped');
    expect(egressUdp.judge(main, { side: side('failed: udp=8.8.8.8:53 Network is unreachable\n'), received: 0 }).verdict).toBe('contained');
  });

  it('call a unique name answered inside, or taken past the allow-list by the proxy, an escape', () => {
    const name = 'x1.hsprobe-exfil.example.com';
    expect(egressDnsExfiltration.judge(main, { side: side(`resolved: resolve=${name} ['1.2.3.4']\n`, [denied(name)]), received: 0, name }).verdict).toBe(
      'escaped',
    );
    expect(egressDnsExfiltration.judge(main, { side: side('', [denied(name, 'name did not resolve')]), received: 0, name }).verdict).toBe('escaped');
    expect(egressDnsExfiltration.judge(main, { side: side('failed: resolve Temporary failure\n', [denied(name)]), received: 0, name }).verdict).toBe(
      'contained',
    );
    expect(egressDnsExfiltration.judge(main, { side: side('failed: resolve Temporary failure\n'), received: 0, name }).verdict).toBe('skipped');
  });

  it('skip, never contain, when the allow-list workspace was refused or the provider lacks the feature', () => {
    expect(egressDisallowedDomain.judge(main, { side: { refused: 'POLICY_DENIED', at: 'create' }, received: 0 }).verdict).toBe('skipped');
    const caps = { provider: 'docker', enforces: { network: true }, reasons: {}, layers: [], features: [] } as unknown as ProviderCapabilities;
    expect(whyNotApplicable(egressUdp, 'docker', caps)).toMatch(/does not offer network-allowlist, which this scenario tests/);
  });
});
