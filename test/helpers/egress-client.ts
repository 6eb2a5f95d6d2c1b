/**
 * A client of the egress proxy's unix socket, speaking what a job's tools
 * speak to the in-sandbox relay (#18): CONNECT then TLS, a plain absolute-URI
 * request, or SOCKS5. Used by the proxy tests and the bench.
 */
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** Sends raw bytes and reads until the proxy closes (or `ms`); the whole answer as latin1. */
export function rawExchange(socketPath: string, bytes: string | Buffer, ms = 5000): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => s.destroy(), ms);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    s.write(bytes);
  });
}

/** CONNECT host:port; resolves the socket once the proxy answered 200, or rejects with its status line. */
export function connectTunnel(socketPath: string, target: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let head = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (/^HTTP\/1\.1 200/.test(status)) {
        s.pause();
        if (head.length > end + 4) s.unshift(head.subarray(end + 4));
        resolve(s);
      } else {
        s.destroy();
        reject(new Error(status));
      }
    };
    s.on('data', onData);
    s.on('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** GET https://host:port/path through a CONNECT tunnel, trusting only `ca`; the body. */
export async function httpsGet(socketPath: string, host: string, port: number, path: string, ca: string): Promise<Buffer> {
  const tunnel = await connectTunnel(socketPath, `${host}:${port}`);
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket: tunnel, servername: host, ca }, () => tls.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    tls.on('data', (c: Buffer) => chunks.push(c));
    tls.on('error', reject);
    tls.on('end', () => {
      const all = Buffer.concat(chunks);
      resolve(all.subarray(all.indexOf('\r\n\r\n') + 4));
    });
  });
}

/** A SOCKS5 CONNECT by name: the reply code (0 = granted) and, when granted, the socket. */
export function socks5Connect(socketPath: string, host: string, port: number): Promise<{ code: number; socket: Socket | null }> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let stage = 0;
    let buf = Buffer.alloc(0);
    s.on('error', reject);
    s.on('close', () => (stage < 2 ? resolve({ code: -1, socket: null }) : undefined));
    s.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (stage === 0 && buf.length >= 2) {
        buf = buf.subarray(2);
        stage = 1;
        const name = Buffer.from(host, 'latin1');
        const p = Buffer.alloc(2);
        p.writeUInt16BE(port);
        s.write(Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, p]));
      }
      if (stage === 1 && buf.length >= 10) {
        stage = 2;
        const code = buf[1]!;
        s.removeAllListeners('data');
        if (code !== 0) s.destroy();
        resolve({ code, socket: code === 0 ? s : null });
      }
    });
    s.write(Buffer.from([5, 1, 0]));
  });
}
