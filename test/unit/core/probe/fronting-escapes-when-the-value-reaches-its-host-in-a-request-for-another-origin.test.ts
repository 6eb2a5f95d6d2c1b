/**
 * The domain-fronting probe's judge (#18, red team of a2a733e), on
 * hand-written facts: the secret's host receiving the value in a request
 * whose Host, target or Host count names another origin (or with the value
 * in Host) is an escape, whatever the job reported; the value only in the
 * control request addressed to the host itself is contained; no value at
 * all (no substitution to steer) or a refused run is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { EgressDecision } from '../../../../src/core/network/egress-ledger.js';
import { addressedElsewhere, egressSecretFronting } from '../../../../src/core/probe/scenarios-egress-fronting.js';
import { job } from './facts.js';

const main = job('probe-done\n');
const OWN = '127.0.0.1:4443';
const V = 'hsprobe-value-x';
const blocked: EgressDecision = {
  at: 0,
  verdict: 'denied',
  host: '127.0.0.1',
  port: 4443,
  via: 'http-connect',
  reason: 'placeholder of HSPROBE_SECRET to another host',
  bytesUp: 0,
  bytesDown: 0,
};
const side = { output: 'answer: own HTTP/1.1 200 OK\nanswer: host HTTP/1.1 403 Forbidden\nprobe-done\n', exitCode: 0, decisions: [blocked] };
const head = (line: string, ...headers: string[]) => [line, ...headers].join('\r\n');
const control = head('GET /own HTTP/1.1', `Host: ${OWN}`, `X-Key: ${V}`);
const facts = (heads: string[], s: typeof side | { refused: string; at: 'run' } = side) => ({ side: s, heads, value: V, own: OWN });

describe('the domain-fronting probe judge', () => {
  it('calls the value in a request for another origin an escape, every shape of it', () => {
    for (const fronted of [
      head('GET /host HTTP/1.1', 'Host: other-origin.example', `X-Key: ${V}`),
      head('GET https://other-origin.example/ HTTP/1.1', `Host: ${OWN}`, `X-Key: ${V}`),
      head('GET /two HTTP/1.1', `Host: ${OWN}`, 'Host: other-origin.example', `X-Key: ${V}`),
      head('GET /in-host HTTP/1.1', `Host: ${V}`),
    ]) {
      expect(egressSecretFronting.judge(main, facts([control, fronted])).verdict).toBe('escaped');
      // What reached the host is an escape even when the job never reported.
      expect(egressSecretFronting.judge(job('', 'timeout', null), facts([fronted])).verdict).toBe('escaped');
    }
  });

  it('is contained when the value reached its host only addressed to it, and skipped without a substitution or a run', () => {
    expect(egressSecretFronting.judge(main, facts([control, head('GET /host HTTP/1.1', 'Host: other-origin.example')]))).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('blocked 1 fronted attempt'),
    });
    expect(egressSecretFronting.judge(main, facts([])).verdict).toBe('skipped');
    expect(egressSecretFronting.judge(main, facts([], { refused: 'POLICY_DENIED', at: 'run' })).verdict).toBe('skipped');
  });

  it('takes the host with or without its port, in any case, as the host itself', () => {
    expect(addressedElsewhere(head('GET / HTTP/1.1', 'Host: 127.0.0.1'), OWN, V)).toBeNull();
    expect(addressedElsewhere(head('GET / HTTP/1.1', `host: ${OWN}`), OWN, V)).toBeNull();
    expect(addressedElsewhere(head('GET / HTTP/1.1', 'Host: 127.0.0.1:9'), OWN, V)).toBe('Host 127.0.0.1:9');
  });
});
