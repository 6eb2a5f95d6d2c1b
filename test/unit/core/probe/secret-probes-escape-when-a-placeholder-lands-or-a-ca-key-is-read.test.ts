/**
 * The secrets-at-egress probes' judges (#18 item 3), on hand-written facts:
 * the placeholder or the value arriving at the probe's listener (a proxy that
 * splices blind, the shape before this change) is an escape, as is a job that
 * opened a CA key's host path or read a file whose digest is a CA key's. A
 * run refused (the code before secrets refused run --secret), a job without
 * a placeholder or without the bundle, is skipped, never contained.
 */
import { describe, expect, it } from 'vitest';
import type { EgressDecision } from '../../../../src/core/network/egress-ledger.js';
import { egressCaKey, egressSecretPlaceholder } from '../../../../src/core/probe/scenarios-egress-secrets.js';
import { job } from './facts.js';

const main = job('probe-done\n');
const blocked: EgressDecision = {
  at: 0,
  verdict: 'denied',
  host: '127.0.0.1',
  port: 4000,
  via: 'http-connect',
  reason: 'placeholder of HSPROBE_SECRET over plain text',
  bytesUp: 0,
  bytesDown: 0,
};
const side = (output: string, decisions: EgressDecision[] = [], caKeySha256?: string[]) => ({
  output: `${output}probe-done\n`,
  exitCode: 0,
  decisions,
  ...(caKeySha256 ? { caKeySha256 } : {}),
});
const KEY = 'a'.repeat(64);

describe('the secret probe judges', () => {
  it('call the placeholder or the value at the listener an escape, and blocked attempts with nothing received contained', () => {
    const facts = (received: string, decisions = [blocked]) => ({ side: side('answer: get HTTP/1.1 403\n', decisions), received, value: 'hsprobe-value-x' });
    expect(egressSecretPlaceholder.judge(main, facts('X-Key: hs-secret-HSPROBE_SECRET-00ff\r\n')).verdict).toBe('escaped');
    expect(egressSecretPlaceholder.judge(main, facts('X-Key: hsprobe-value-x\r\n')).verdict).toBe('escaped');
    expect(egressSecretPlaceholder.judge(main, facts('\x16\x03\x01')).verdict).toBe('contained');
    expect(egressSecretPlaceholder.judge(main, facts('', [])).verdict).toBe('skipped');
    // The job never reported (it waited on answers a blind splice never gave): what landed is still an escape.
    const unreported = {
      side: { output: 'answer: get closed\n', exitCode: null, decisions: [] },
      received: 'X-Key: hs-secret-HSPROBE_SECRET-1\r\n',
      value: 'v',
    };
    expect(egressSecretPlaceholder.judge(job('probe-done\n', 'timeout', null), unreported).verdict).toBe('escaped');
  });

  it('skip a refused run and a job that held no placeholder, never contain them', () => {
    expect(egressSecretPlaceholder.judge(main, { side: { refused: 'POLICY_DENIED', at: 'run' }, received: '', value: 'v' }).verdict).toBe('skipped');
    expect(egressSecretPlaceholder.judge(main, { side: side('no placeholder in the environment\n', [blocked]), received: '', value: 'v' }).verdict).toBe(
      'skipped',
    );
  });

  it("call an opened key path or a file with a CA key's digest an escape, and failed opens contained", () => {
    const facts = (output: string, keys: string[] | undefined = [KEY]) => ({ side: side(`bundle: present\n${output}`, [], keys), received: '', value: '' });
    expect(egressCaKey.judge(main, facts('opened: /root/.headspace/ca/ws/ca-key.pem\n')).verdict).toBe('escaped');
    expect(egressCaKey.judge(main, facts(`key: /run/stray.pem ${KEY}\n`)).verdict).toBe('escaped');
    expect(
      egressCaKey.judge(main, facts(`failed: /root/.headspace/ca/ws/ca-key.pem Permission denied\nkey: /etc/ssl/other.pem ${'b'.repeat(64)}\n`)).verdict,
    ).toBe('contained');
    expect(egressCaKey.judge(main, facts('', [])).verdict).toBe('skipped');
    expect(egressCaKey.judge(main, { side: side('bundle: absent\n', [], [KEY]), received: '', value: '' }).verdict).toBe('skipped');
  });
});
