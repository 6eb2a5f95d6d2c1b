/**
 * The HTTP face parses nothing of a request before its bearer token is
 * checked (red team round 3): a request target that is not a URL, sent
 * without a token, is 401 like any other, and the server logs no stack
 * (it used to print a TypeError with the install's host paths).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startHttp } from '../../helpers/mcp.js';

function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => socket.write(text));
    let got = '';
    socket.on('data', (chunk) => (got += chunk.toString()));
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
    setTimeout(() => socket.end(), 1000);
  });
}

describe('the HTTP face', () => {
  it('answers a malformed target without a token with 401 and logs no stack', async () => {
    const http = await startHttp();
    try {
      const answer = await rawRequest(http.url, 'GET http://[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 (401|400)/);
      expect(http.stderr()).not.toMatch(/TypeError|\n\s+at /);
    } finally {
      await http.close();
    }
  });
});
