/**
 * Red team (#18 reflection): a value must not come back to the job in parts.
 *  - An upstream that miscounts its Content-Length (characters for bytes)
 *    let the job pad its request so the proxy's end of body fell inside the
 *    reflected value: the first part went out unmasked at the body's end and
 *    the rest, not a response, was relayed as a stream of its own. Now the
 *    end of a body that could begin a value is masked (all but at most its
 *    first 3 bytes), and bytes after a complete response that are not a
 *    response are refused.
 *  - With two secrets where one value begins the other, the shorter was
 *    replaced first and the longer one's rest showed. Longer values go first.
 *  - A stream that ends inside a value shows no more than its first 3 bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueMasker } from '../../../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';
import { redactInPieces } from '../../../helpers/response-redactor.js';

const secret = (name: string, value: string): JobSecret => ({ name, value, host: 'api.test', body: false, placeholder: `hs-secret-${name}-${'0'.repeat(32)}` });
const SA = secret('SA', 'tok-1234567890abcdef');
const SB = secret('SB', 'tok-1234567890abcdef-SECRET/TAIL-XYZ');
const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 8 });

/** Whether `text` holds more than the first 3 bytes of `value` in a row, anywhere. */
function showsPart(text: string, value: string): boolean {
  for (let n = 4; n <= value.length; n++) for (let i = 0; i + n <= value.length; i++) if (text.includes(value.slice(i, i + n))) return true;
  return false;
}

describe('a reflected value', () => {
  it('cut by a miscounted Content-Length shows at most its first 3 bytes, and the rest of the body is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: SA.value.length - 1 }), cuts, (inside, at) => {
        // The job padded its request so the upstream's (miscounted) body ends `inside` bytes into the echoed value.
        const shown = `{"pad":"${'x'.repeat(7)}","key":"${SA.value.slice(0, inside)}`;
        const response = `HTTP/1.1 200 OK\r\nContent-Length: ${shown.length}\r\n\r\n${shown}${SA.value.slice(inside)}"}`;
        const { text, refused, probes } = redactInPieces([SA], response, at, ['GET']);
        // A masked end is a probe: nothing after it is relayed; an end too short to mask is followed by a refusal.
        if (probes > 0) expect(refused).toBeUndefined();
        else expect(refused).toBe('bytes after a complete response that are not a response');
        expect(showsPart(text, SA.value)).toBe(false);
        expect(text.length).toBe(response.length - (SA.value.length - inside) - 2); // the body keeps its length
      }),
      { seed: 2611, numRuns: 200 },
    );
  });

  it('that another value begins is masked whole, in a head and in a body, whatever the secrets order and the reads', () => {
    fc.assert(
      fc.property(fc.boolean(), cuts, (swap, at) => {
        const body = `A=${SA.value} B=${SB.value} A=${SA.value}`;
        const response = `HTTP/1.1 200 OK\r\nX-B: ${SB.value}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        const { text, refused } = redactInPieces(swap ? [SB, SA] : [SA, SB], response, at, ['GET']);
        expect(refused).toBeUndefined();
        expect(showsPart(text, SB.value)).toBe(false);
        expect(text).toContain(`X-B: ${SB.placeholder}\r\n`);
        expect(text.length).toBe(response.length + SB.placeholder.length - SB.value.length); // the body keeps its length
      }),
      { seed: 2612, numRuns: 300 },
    );
  });

  it('at the very end of a stream shows at most its first 3 bytes, and a plain end is left as it is', () => {
    for (let inside = 1; inside < SB.value.length; inside++) {
      const m = ValueMasker.of([SA, SB]);
      const out = Buffer.concat([m.push(Buffer.from(`saw ${SB.value.slice(0, inside)}`, 'latin1')), m.flush()]).toString('latin1');
      expect(out.length).toBe(4 + inside);
      expect(showsPart(out, SB.value)).toBe(false);
    }
    const m = ValueMasker.of([SA, SB]);
    expect(Buffer.concat([m.push(Buffer.from('the last word is tok', 'latin1')), m.flush()]).toString('latin1')).toBe('the last word is tok');
  });
});
