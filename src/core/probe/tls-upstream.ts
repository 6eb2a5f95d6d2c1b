/**
 * A loopback HTTPS "upstream" for the secrets-at-egress probes (#18
 * follow-ups): a TLS server on 127.0.0.1 whose certificate (IP SAN
 * 127.0.0.1) a throwaway CA signed — made with the workspace-CA code in a
 * temporary directory that is removed at once, so its key lives only in
 * this process. The side job's proxy trusts that CA for upstreams (test
 * mode, that job only: ProbeHost.tryNetworkWorkspace's `upstreamCa`), so
 * the server can stand for a secret's own host.
 *
 * It speaks raw bytes, not Node's HTTP server: a probe must see exactly what
 * the proxy sent (a second Host header, an absolute-form target) and answer
 * in pieces of its choosing (a value split across TLS records). One request
 * per connection: it reads a head, answers, and closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { ensureWorkspaceCa, loadWorkspaceCa } from '../network/egress-ca.js';

export interface ProbeUpstream {
  port: number;
  /** The throwaway CA's certificate: what the side job's proxy must trust for this server. */
  caPem: string;
  /** Each request head received (up to the blank line), as latin1 text. */
  heads(): string[];
  close(): Promise<void>;
}

const HEAD_MAX = 64 * 1024;
/** Between the pieces of an answer: long enough that each goes in a TLS record of its own. */
const PIECE_GAP_MS = 20;

/** `answer` gets a request head and returns the response's pieces, written in order, each in its own record. */
export async function openTlsUpstream(answer: (head: string) => Array<string | Buffer>): Promise<ProbeUpstream> {
  const dir = mkdtempSync(join(tmpdir(), 'hsprobe-upstream-'));
  let ca: { certPem: string; leaf: { cert: string; key: string } };
  try {
    ensureWorkspaceCa(dir, 'upstream');
    const loaded = loadWorkspaceCa(dir, 'upstream');
    ca = { certPem: loaded.certPem, leaf: await loaded.leafFor('127.0.0.1') };
    await loaded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer({ key: ca.leaf.key, cert: ca.leaf.cert, ALPNProtocols: ['http/1.1'] }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setTimeout(10_000, () => socket.destroy());
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        if (text.length > HEAD_MAX) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const head = text.slice(0, end);
      heads.push(head);
      void writePieces(socket, answer(head));
    };
    socket.on('data', onData);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    caPem: ca.certPem,
    heads: () => [...heads],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function writePieces(socket: Socket, pieces: Array<string | Buffer>): Promise<void> {
  for (const piece of pieces) {
    if (socket.destroyed) return;
    socket.write(typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece);
    await new Promise((r) => setTimeout(r, PIECE_GAP_MS));
  }
  socket.end();
}

/** The header lines of a head (after its request line), as [lower-case name, value]. */
export function headHeaders(head: string): Array<[string, string]> {
  return head
    .split('\r\n')
    .slice(1)
    .map((line): [string, string] => {
      const colon = line.indexOf(':');
      return colon < 0 ? [line.toLowerCase(), ''] : [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
}
