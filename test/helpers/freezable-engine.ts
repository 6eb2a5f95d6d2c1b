/**
 * A Docker Engine that stops answering, for the tests of the providers'
 * bounds: a byte-level relay on a unix socket in front of the real engine
 * (every call, hijacked exec streams included, passes through unchanged)
 * that can go silent — a connection it holds gets no further byte either
 * way and is never closed, and a connection made after it went silent is
 * accepted and never answered: what a hung dockerd looks like from outside.
 * It can also go silent for one kind of call only (`holdWhen`): a
 * connection whose request bytes match is held from then on, the others
 * pass.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface FreezableEngine {
  /** The relay's address, for DOCKER_HOST. */
  host: string;
  /** Stops answering: every connection, held or new, gets no byte more. */
  freeze(): void;
  /**
   * Resolves once what the engine has sent on one connection matches `said` (a string: contains it), then the relay
   * freezes: every connection it has is held from then on, so not even an engine's close gets through.
   */
  freezeAfterEngineSays(said: string | RegExp): Promise<void>;
  /** From now on a connection is held (never answered) once its request bytes match `pattern`. */
  holdWhen(pattern: RegExp): void;
  /** How many connections it has held unanswered so far (a held one its client gave up on counts too). */
  heldEver(): number;
  close(): Promise<void>;
}

export async function freezableEngine(socketPath: string, engineHost: string): Promise<FreezableEngine> {
  if (!engineHost.startsWith('unix://')) throw new Error(`the relay needs a unix engine address, not ${engineHost}`);
  const upstreamPath = engineHost.slice('unix://'.length);
  let frozen = false;
  let holdPattern: RegExp | null = null;
  const waiters: Array<{ said: string | RegExp; resolve: () => void }> = [];
  const clients = new Set<Socket>();
  const sockets = new Set<Socket>();
  const heldOnes = new Set<Socket>();
  let heldCount = 0;

  const hold = (client: Socket, upstream: Socket | null) => {
    if (!heldOnes.has(client)) heldCount += 1;
    heldOnes.add(client);
    client.pause();
    upstream?.pause();
  };

  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.on('close', () => {
      sockets.delete(client);
      heldOnes.delete(client);
    });
    if (frozen) return hold(client, null);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    let heard = '';
    const upstream = connect(upstreamPath);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!heldOnes.has(client)) client.destroy();
    });
    client.on('close', () => upstream.destroy());
    client.on('data', (bytes: Buffer) => {
      if (frozen || heldOnes.has(client)) return hold(client, upstream);
      if (holdPattern !== null && holdPattern.test(bytes.toString('latin1'))) return hold(client, upstream);
      upstream.write(bytes);
    });
    upstream.on('data', (bytes: Buffer) => {
      if (frozen || heldOnes.has(client)) return hold(client, upstream);
      client.write(bytes);
      // What this connection has heard, kept to its last 64 KiB: an answer's head can come in several chunks.
      heard = (heard + bytes.toString('latin1')).slice(-64 * 1024);
      for (const w of [...waiters])
        if (typeof w.said === 'string' ? heard.includes(w.said) : w.said.test(heard)) {
          waiters.splice(waiters.indexOf(w), 1);
          frozen = true;
          for (const c of clients) if (!heldOnes.has(c)) hold(c, null);
          w.resolve();
        }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));

  return {
    host: `unix://${socketPath}`,
    freeze: () => {
      frozen = true;
      for (const c of clients) if (!heldOnes.has(c)) hold(c, null);
    },
    freezeAfterEngineSays: (said) => new Promise<void>((resolve) => waiters.push({ said, resolve })),
    holdWhen: (pattern) => {
      holdPattern = pattern;
    },
    heldEver: () => heldCount,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
