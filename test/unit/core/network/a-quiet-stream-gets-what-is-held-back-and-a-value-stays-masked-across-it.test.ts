/**
 * Every read now holds back its last bytes whatever they are (the redactor
 * may not tell the job which bytes could begin a value). A server that sends
 * and then waits for the job — an SMTP greeting, a WebSocket message, a
 * stream's event — would have waited for ever, so once the upstream is quiet
 * for QUIET_FLUSH_MS the proxy flushes what is held, masked as at an end:
 * an end that encodes 4 of a value's bytes is masked and reported (a probe),
 * fewer go as they are — and the rest of such a value, if it follows, is
 * masked though no whole value is in the next read.
 */
import { describe, expect, it } from 'vitest';
import { ResponseRedactor, ValueMasker } from '../../../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';

const S: JobSecret = {
  name: 'TOK',
  value: 'Q_yrNX7nFEPFgNwWf3qIU4tHNmnZf8Dx_wtLILQH',
  host: 'api.test',
  body: false,
  placeholder: `hs-secret-TOK-${'0'.repeat(32)}`,
};
const text = (b: Buffer) => b.toString('latin1');

describe('a quiet flush', () => {
  it('releases a greeting that was held back, and the stream goes on', () => {
    const m = ValueMasker.of([S]);
    expect(text(m.push(Buffer.from('220 mail.test ready\r\n', 'latin1')))).toBe('');
    expect(m.holding()).toBe(true);
    expect(text(m.flush())).toBe('220 mail.test ready\r\n');
    expect(m.holding()).toBe(false);
    const later = text(Buffer.concat([m.push(Buffer.from('250 ok\r\n', 'latin1')), m.flush()]));
    expect(later).toBe('250 ok\r\n');
  });

  it('masks the rest of a value whose first 3 bytes it released as they were', () => {
    let probes = 0;
    const m = ValueMasker.of([S], undefined, () => void probes++);
    m.push(Buffer.from(`saw ${S.value.slice(0, 3)}`, 'latin1'));
    const first = text(m.flush());
    expect(first).toBe(`saw ${S.value.slice(0, 3)}`);
    const rest = text(Buffer.concat([m.push(Buffer.from(`${S.value.slice(3)} then more`, 'latin1')), m.flush()]));
    expect(rest).not.toContain(S.value.slice(3, 10));
    expect(rest.endsWith(' then more')).toBe(true);
    expect(rest.length).toBe(S.value.length - 3 + ' then more'.length);
    expect(probes).toBe(0);
  });

  it('masks and reports an end that encodes 4 of a value’s bytes, as at a stream’s end', () => {
    let probes = 0;
    const m = ValueMasker.of([S], undefined, () => void probes++);
    m.push(Buffer.from(`saw ${S.value.slice(0, 4)}`, 'latin1'));
    expect(text(m.flush())).toBe('saw ****');
    expect(probes).toBe(1);
  });

  it('frames what a response held back as its body is framed: a chunk of its own in a chunked body', () => {
    const r = new ResponseRedactor([S], { nextMethod: () => 'GET', redacted: () => undefined, probed: () => undefined });
    const head = text(r.push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nevent\n\r\n', 'latin1')).out);
    expect(head).toBe('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    expect(r.holding()).toBe(true);
    expect(text(r.quiet())).toBe('6\r\nevent\n\r\n');
    expect(r.holding()).toBe(false);
    const raw = new ResponseRedactor([S], { nextMethod: () => 'GET', redacted: () => undefined, probed: () => undefined });
    expect(text(raw.push(Buffer.from('* OK IMAP ready\r\n', 'latin1')).out)).toBe('');
    expect(text(raw.quiet())).toBe('* OK IMAP ready\r\n');
  });
});

describe('a quiet flush, then an end', () => {
  it('masks and reports a value’s start counted across the flush: 3 bytes let go there, the rest at the end (review)', () => {
    let probes = 0;
    const m = ValueMasker.of([S], undefined, () => void probes++);
    m.push(Buffer.from(`saw ${S.value.slice(0, 3)}`, 'latin1'));
    expect(text(m.flush())).toBe(`saw ${S.value.slice(0, 3)}`);
    m.push(Buffer.from(S.value.slice(3, 35), 'latin1'));
    const end = text(m.flush());
    expect(end).toBe('*'.repeat(32));
    expect(probes).toBe(1);
  });

  it('relays nothing of a pipelined response after one that probed, in the same read (review)', () => {
    let probes = 0;
    const r = new ResponseRedactor([S], { nextMethod: () => 'GET', redacted: () => undefined, probed: () => void probes++ });
    const answer = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const out = text(r.push(Buffer.from(answer(`echo:${S.value.slice(0, 5)}`) + answer('echo:second') + answer(`echo:${S.value.slice(0, 6)}`), 'latin1')).out);
    expect(probes).toBe(1);
    expect(out).toContain('echo:*****');
    expect(out).not.toContain('echo:second');
  });
});
