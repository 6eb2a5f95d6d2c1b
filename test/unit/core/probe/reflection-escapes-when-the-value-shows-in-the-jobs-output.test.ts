/**
 * The reflection probe's judge (#18 follow-up), on hand-written facts: the
 * value in the job's output is an escape (named by attempt, the value
 * itself never in the evidence lines); the value at the host and none in
 * the output is contained; the value never reaching the host (nothing to
 * reflect), or a refused run, is skipped. The value's part of an encoded
 * form (PHP's JSON, percent-encoding, Basic credentials' base64, hex) in the
 * output is an escape too, also as python's repr() prints it. And the probe
 * host's answers reflect what they receive in every shape the scenario
 * promises.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { egressSecretReflection, hostEncodings, reflect } from '../../../../src/core/probe/scenarios-egress-reflection.js';
import { job } from './facts.js';

const main = job('probe-done\n');
const V = 'hsprobe-value-x';
const side = (output: string) => ({ output: `${output}probe-done\n`, exitCode: 0, decisions: [] });
const reached = [`GET /cors HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Key: ${V}`];
/** A masked answer for every shape the host must answer plainly, then `extra` lines. */
const answers = (extra = '') =>
  ['cors', 'length', 'chunked', 'json', 'percent', 'basic', 'keyed', 'hex', 'hexupper'].map((p) => `answer: ${p} '[hs-redacted HSPRO'\n`).join('') + extra;

describe('the reflection probe judge', () => {
  it('calls the value in the job output an escape, naming the attempt and never the value', () => {
    const verdict = egressSecretReflection.judge(main, {
      side: side(`answer: cors 'Access-Control-Allow-Origin: ${V}'\nanswer: gzip '{}'\n`),
      heads: reached,
      value: V,
    });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('cors') });
    expect(verdict.lines?.join('\n')).not.toContain(V);
  });

  it('is contained when the value reached the host and never came back, skipped when nothing could', () => {
    expect(egressSecretReflection.judge(main, { side: side(answers()), heads: reached, value: V }).verdict).toBe('contained');
    expect(egressSecretReflection.judge(main, { side: side("answer: cors ''\n"), heads: [], value: V }).verdict).toBe('skipped');
    expect(egressSecretReflection.judge(main, { side: { refused: 'POLICY_DENIED', at: 'run' }, heads: [], value: V }).verdict).toBe('skipped');
  });

  it('has a probe host that reflects the value in headers, split bodies, chunks and gzip', () => {
    const head = (path: string, extra = '') => `GET /${path} HTTP/1.1\r\nHost: h\r\nOrigin: ${V}\r\nX-Key: ${V}${extra}`;
    const text = (parts: Array<string | Buffer>) => parts.map((p) => (typeof p === 'string' ? p : p.toString('latin1'))).join('');
    const cors = reflect(head('cors'));
    expect(cors).toHaveLength(2); // the body split across two writes, inside the value
    expect(text(cors)).toContain(`Access-Control-Allow-Origin: ${V}`);
    expect(cors.some((p) => String(p).includes(V.slice(0, 7)) && !String(p).slice(String(p).indexOf('\r\n\r\n')).includes(V))).toBe(true);
    const chunked = text(reflect(head('chunked')));
    expect(chunked).toContain('Transfer-Encoding: chunked');
    expect(chunked.replace(/\r\n[0-9a-f]+\r\n/g, '')).toContain(V);
    const gz = reflect(head('gzip', '\r\nAccept-Encoding: gzip'));
    expect(gunzipSync(gz[1] as Buffer).toString()).toContain(V);
    expect(text(reflect(head('gzip')))).not.toContain('Content-Encoding');
  });

  it('calls part of the value an escape too: all but its last byte, or its halves in two answers', () => {
    const W = 'hsprobe/value+0123456789abcdef';
    const at = [`GET /json HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Key: ${W}`];
    const judged = (extra: string) => egressSecretReflection.judge(main, { side: side(answers(extra)), heads: at, value: W }).verdict;
    expect(judged(`answer: miscount '${W.slice(0, -1)}'\n`)).toBe('escaped');
    expect(judged(`answer: miscount '${W.slice(0, 15)}'\nanswer: fetch '${W.slice(15)}'\n`)).toBe('escaped');
    expect(judged(`answer: miscount '${W.slice(0, 3)}***'\n`)).toBe('contained');
  });

  it('is skipped when a shape the host answers plainly never reached the job', () => {
    const plain = answers()
      .split('\n')
      .filter((l) => !l.startsWith('answer: json'));
    const verdict = egressSecretReflection.judge(main, { side: side(`${plain.join('\n')}failed: json ConnectionResetError\n`), heads: reached, value: V });
    expect(verdict).toMatchObject({ verdict: 'skipped', evidence: expect.stringContaining('json') });
  });

  it('calls an encoded form of the value in the job output an escape, as the host wrote it or as repr() printed it', () => {
    const W = 'hsprobe/value+0123456789abcdef';
    const at = [`GET /json HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Key: ${W}`];
    const forms = hostEncodings(W);
    for (const [name, form] of Object.entries(forms)) {
      const printed = answers(`answer: ${name} '{"${name}":"${form.text.split('\\').join('\\\\')}"}'\n`);
      const verdict = egressSecretReflection.judge(main, { side: side(printed), heads: at, value: W });
      expect(verdict, name).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining(name) });
      expect(verdict.lines?.join('\n')).not.toContain(form.valuePart);
    }
    expect(forms.json.text).toContain('\\/');
    expect(forms.percent.text).toContain('%2F');
    expect(Buffer.from(forms.basic.text, 'base64').toString()).toBe(`user:${W}`);
    const masked = answers(`answer: basic '{"basic":"dXNlcjpo${'*'.repeat(forms.basic.text.length - 8)}"}'\n`);
    expect(egressSecretReflection.judge(main, { side: side(masked), heads: at, value: W }).verdict).toBe('contained');
  });

  it('has a probe host that writes the encoded forms it promises', () => {
    const W = 'hsprobe/value+0123456789abcdef';
    const text = (path: string) => reflect(`GET /${path} HTTP/1.1\r\nHost: h\r\nX-Key: ${W}`).join('');
    for (const [path, form] of Object.entries(hostEncodings(W))) expect(text(path)).toContain(form.text);
    expect(text('percent')).toContain(`Location: /callback?key=${encodeURIComponent(W)}`);
  });
});
