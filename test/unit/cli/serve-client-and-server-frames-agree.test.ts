/**
 * The thin client (bin/serve-client.cjs, CommonJS, no bundle) and the server
 * (src/cli/serve/serve-frames.ts) each write the serve protocol's frames:
 * whatever one writes, the other reads back whole and in order, however the
 * socket splits the bytes.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frame, frameReader, type FrameType } from '../../../src/cli/serve/serve-frames.js';

const client = createRequire(import.meta.url)('../../../bin/serve-client.cjs') as {
  frame: (type: string, payload: Buffer) => Buffer;
  frameReader: (onFrame: (type: string, body: Buffer) => void) => (chunk: Buffer) => void;
};

const frames = fc.array(fc.tuple(fc.constantFrom<FrameType>('H', 'I', 'S', 'Q', 'O', 'E', 'X', 'K', 'D'), fc.uint8Array({ maxLength: 300 })), {
  maxLength: 12,
});

function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...at, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end));
}

describe('the serve frames', () => {
  it('written by either end are read back whole and in order by the other, however the bytes are split', () => {
    fc.assert(
      fc.property(frames, fc.array(fc.nat(), { maxLength: 8 }), (sent, cuts) => {
        const expected = sent.map(([type, body]) => [type, Buffer.from(body).toString('hex')]);
        const byServer = Buffer.concat(sent.map(([type, body]) => frame(type, Buffer.from(body))));
        const byClient = Buffer.concat(sent.map(([type, body]) => client.frame(type, Buffer.from(body))));
        expect(byClient.equals(byServer)).toBe(true);
        const readByClient: string[][] = [];
        const feedClient = client.frameReader((type, body) => readByClient.push([type, body.toString('hex')]));
        for (const chunk of split(byServer, cuts)) feedClient(chunk);
        const readByServer: string[][] = [];
        const feedServer = frameReader((type, body) => readByServer.push([type, body.toString('hex')]));
        for (const chunk of split(byClient, cuts)) expect(feedServer(chunk)).toBe(true);
        expect(readByClient).toEqual(expected);
        expect(readByServer).toEqual(expected);
      }),
      { seed: 20, numRuns: 200 },
    );
  });
});
