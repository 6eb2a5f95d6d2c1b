/**
 * Shapes the red team found (session 8): a value that contains another
 * value, read one byte at a time, never shows its first bytes (the part held
 * back before the shorter value inside it was once released as it was); a
 * value whose end begins a form again, the reads split there, never shows
 * that end (its mask, carried while all that was held could still begin a
 * form, was once dropped); two values that overlap in a response head are both replaced,
 * neither one's rest left in the clear; and sixteen secrets of 8 KiB (the
 * most a job may carry) are masked in every form without the engine
 * failing (one pattern nested per character overflowed the stack).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueMasker } from '../../../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';
import { redactInPieces } from '../../../helpers/response-redactor.js';

const secret = (name: string, value: string): JobSecret => ({ name, value, host: 'api.test', body: false, placeholder: `hs-secret-${name}-${'0'.repeat(32)}` });

function maskInReads(secrets: readonly JobSecret[], text: string, size: number): string {
  const masker = ValueMasker.of(secrets);
  const out: Buffer[] = [];
  for (let at = 0; at < text.length; at += size) out.push(masker.push(Buffer.from(text.slice(at, at + size), 'latin1')));
  out.push(masker.flush());
  return Buffer.concat(out).toString('latin1');
}

describe('values inside, overlapping or long', () => {
  it('never shows the start of a value that contains another, in reads of any size', () => {
    const outer = secret('A', 'alice:hunter2hunter2');
    const inner = secret('B', 'hunter2');
    const secrets = [outer, inner];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.string({ maxLength: 12 }), (size, filler) => {
        const text = `${filler}{"auth":"${outer.value}"}${filler}`;
        const out = maskInReads(secrets, text, size);
        expect(out).toHaveLength(text.length);
        expect(out).not.toContain('alice');
        expect(out).not.toContain('hunter2');
      }),
      { seed: 8, numRuns: 120 },
    );
    expect(maskInReads([secret('A', 'xxabcdefgh'), secret('B', 'ab')], 'xxabcdefgh', 1)).not.toMatch(/^xx/);
  });

  it('never shows the end of a value that begins a form again, with the reads split there', () => {
    const read = (secrets: readonly JobSecret[], pieces: string[]) => {
      const masker = ValueMasker.of(secrets);
      return Buffer.concat([...pieces.map((p) => masker.push(Buffer.from(p, 'latin1'))), masker.flush()]).toString('latin1');
    };
    const own = read([secret('S', 'ab12cdef-ab')], ['ab12cdef-ab', '12', '!']);
    expect(own).toHaveLength(14);
    expect(own.slice(0, 11)).not.toContain('ab');
    const two = read([secret('A', 'tok-1234:HELLO'), secret('B', 'HELLOworld12')], ['tok-1234:HELLO', 'w', 'X']);
    expect(two).toHaveLength(16);
    expect(two).not.toContain('HELLO');
  });

  it('replaces two overlapping values in a head with both placeholders, as is and hex-encoded', () => {
    const a = secret('A', 'AAAAsharedsharedX');
    const b = secret('B', 'sharedsharedXBBBBB');
    for (const echoed of ['AAAAsharedsharedXBBBBB', Buffer.from('AAAAsharedsharedXBBBBB').toString('hex')]) {
      const { text } = redactInPieces([a, b], `HTTP/1.1 200 OK\r\nX-Echo: ${echoed}\r\nContent-Length: 0\r\n\r\n`, [], ['GET']);
      expect(text).toContain(`X-Echo: ${a.placeholder}${b.placeholder}\r\n`);
    }
  });

  it('masks every form of sixteen 8 KiB values', () => {
    const secrets = Array.from({ length: 16 }, (_, i) => secret(`S${i}`, `${randomBytes(6144).toString('base64')}/é`));
    const target = secrets[7]!.value;
    const body = `{"echo":"${encodeURIComponent(target)}","hex":"${Buffer.from(target).toString('hex')}"}`;
    const out = maskInReads(secrets, body, 16 * 1024);
    expect(out).toHaveLength(body.length);
    expect(out).not.toContain(encodeURIComponent(target).slice(0, 64));
    expect(out).not.toContain(Buffer.from(target).toString('hex').slice(0, 64));
  });
});
