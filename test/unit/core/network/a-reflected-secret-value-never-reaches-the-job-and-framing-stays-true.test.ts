/**
 * Reflection (#18 follow-up): whatever the secret's host sends back, the job
 * never sees a value — in the status line, a header, a Content-Length body,
 * a chunked body (a chunk boundary inside the value included), its
 * trailers, or a body without framing — however the upstream's bytes are
 * split across reads; and the job's HTTP client still reads the responses
 * as the upstream framed them (a body keeps its length, a chunked body
 * re-chunks to the same bytes with the value masked). A compressed response
 * is refused, not passed unscanned, whether or not a value went out on the
 * tunnel.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueMasker } from '../../../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';
import { redactInPieces } from '../../../helpers/response-redactor.js';

const secret = (name: string, value: string): JobSecret => ({ name, value, host: 'api.test', body: false, placeholder: `hs-secret-${name}-${'0'.repeat(32)}` });
const TOKEN = secret('TOKEN', 'sk-live-0123456789abcdef');
const SHORT = secret('PIN', 'q7Z');
const secrets = [TOKEN, SHORT];

const through = (bytes: string, cuts: number[], methods: string[] = []) => redactInPieces(secrets, bytes, cuts, methods);

/** Decodes a chunked body (what an HTTP client does), to check the job still reads what the upstream framed. */
function dechunk(text: string): string {
  let rest = text;
  let body = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const n = parseInt(rest.slice(0, eol), 16);
    rest = rest.slice(eol + 2);
    if (n === 0) return body;
    body += rest.slice(0, n);
    rest = rest.slice(n + 2);
  }
}

const V = TOKEN.value;
const mask = (s: JobSecret) => `[hs-redacted ${s.name}]${'*'.repeat(s.value.length)}`.slice(0, s.value.length);
const cuts = fc.array(fc.nat({ max: 4000 }), { maxLength: 12 });

describe('a response on a secret-bearing tunnel', () => {
  it('never shows a value in its head or a Content-Length body, however split, and keeps the body length', () => {
    fc.assert(
      fc.property(cuts, fc.string({ maxLength: 40 }), (at, filler) => {
        const body = `${filler}{"echo":"${V}","pin":"${SHORT.value}"}${filler}`;
        const response = `HTTP/1.1 200 ${V}\r\nAccess-Control-Allow-Origin: ${V}\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\n\r\n${body}`;
        const { text, refused } = through(response + response, at, ['GET', 'GET']);
        expect(refused).toBeUndefined();
        expect(text).not.toContain(V);
        expect(text).not.toContain(SHORT.value);
        expect(text).toContain(`Access-Control-Allow-Origin: ${TOKEN.placeholder}`);
        const second = text.slice(text.indexOf('HTTP/1.1', 1));
        expect(second.slice(second.indexOf('\r\n\r\n') + 4)).toBe(body.replace(V, mask(TOKEN)).replace(SHORT.value, mask(SHORT)));
      }),
      { seed: 18, numRuns: 200 },
    );
  });

  it('never shows a value in a chunked body split by its own chunk framing, nor in trailers, and re-chunks the same bytes', () => {
    fc.assert(
      fc.property(cuts, fc.integer({ min: 1, max: V.length - 1 }), (at, split) => {
        const chunks = ['{"echo":"', V.slice(0, split), V.slice(split), '"}'];
        const body = chunks.map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('');
        const response = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\nX-Trailer: ${V}\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n`;
        const { text, refused } = through(response, at, ['GET', 'GET']);
        expect(refused).toBeUndefined();
        expect(text).not.toContain(V);
        const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
        expect(dechunk(payload)).toBe(`{"echo":"${mask(TOKEN)}"}`);
        expect(text).toContain(`X-Trailer: ${TOKEN.placeholder}\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n`);
      }),
      { seed: 19, numRuns: 200 },
    );
  });

  it('masks a body without framing, an upgraded stream and a stream that is not HTTP, to the end, byte for byte', () => {
    const { text } = through(`HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsaw ${V} twice: ${V}`, [30, 41, 47]);
    expect(text).toBe(`HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsaw ${mask(TOKEN)} twice: ${mask(TOKEN)}`);
    const greeting = through(`220 mail.test ready ${V}\r\n`, [3]);
    expect(greeting).toEqual({ text: `220 mail.test ready ${mask(TOKEN)}\r\n`, refused: undefined, probes: 0 }); // not HTTP: never held for a head
    const up = through(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x18${V}`, [60]);
    expect(up.text).toBe(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x18${mask(TOKEN)}`);
  });

  it('is refused when compressed, on any tunnel of the job (a value stored through one tunnel can come back through another)', () => {
    const gz = `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\n\x1f\x8b\x08\x00`;
    expect(through(gz, [], ['GET']).refused).toBe('compressed: gzip');
    expect(through(gz.replace('Content-Encoding: gzip', 'Transfer-Encoding: br, chunked'), [], ['GET']).refused).toBe('compressed: br');
  });

  it('answers a HEAD request with a head only, so the next response is read as a head', () => {
    const response = `HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${V.length}\r\n\r\n${V}`;
    expect(through(response, [], ['HEAD', 'GET']).text).toBe(
      `HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${V.length}\r\n\r\n${mask(TOKEN)}`,
    );
  });

  it('is masked at equal length in a raw stream across any split', () => {
    fc.assert(
      fc.property(cuts, (at) => {
        const raw = `a${V}b${SHORT.value}c${V}`;
        const m = ValueMasker.of(secrets);
        const sorted = [...new Set(at.map((c) => c % (raw.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        let out = '';
        for (const to of [...sorted, raw.length]) {
          out += m.push(Buffer.from(raw.slice(from, to), 'latin1')).toString('latin1');
          from = to;
        }
        out += m.flush().toString('latin1');
        expect(out).toBe(`a${mask(TOKEN)}b${mask(SHORT)}c${mask(TOKEN)}`);
      }),
      { seed: 20, numRuns: 200 },
    );
  });
});
