// The client of the egress-overhead benchmark: N sequential HTTPS GETs of
// one path, each on a fresh connection (TCP + TLS, as a tool that does not
// pool would), either straight to the server or through an HTTP proxy's
// CONNECT. Runs on the host and inside a workspace alike (node only).
// Prints `elapsed_ms=… bytes=…`, timing only the GETs, not node's start.
//   node egress-client.mjs direct HOST PORT PATH N CA_FILE [SERVERNAME]
//   node egress-client.mjs proxy PROXY_HOST PROXY_PORT|unix:PATH HOST PORT PATH N CA_FILE
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const [mode, ...rest] = process.argv.slice(2);
let open;
let host, port, path, n, caFile;
if (mode === 'direct') {
  [host, port, path, n, caFile] = rest;
  open = () => Promise.resolve(connect({ host: '127.0.0.1', port: Number(port) }));
} else {
  const [proxyHost, proxyPort] = rest;
  [host, port, path, n, caFile] = rest.slice(2);
  open = () =>
    new Promise((resolve, reject) => {
      const s = proxyPort.startsWith('unix:') ? connect(proxyPort.slice(5)) : connect({ host: proxyHost, port: Number(proxyPort), noDelay: true }); // as curl does (TCP_NODELAY)
      let head = Buffer.alloc(0);
      const onData = (c) => {
        head = Buffer.concat([head, c]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        s.off('data', onData);
        if (!head.subarray(0, 12).toString().includes(' 200')) return reject(new Error(head.toString('latin1').split('\r\n')[0]));
        s.pause();
        resolve(s);
      };
      s.on('data', onData);
      s.on('error', reject);
      s.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    });
}
// BENCH_CA_LAST: only the file's last certificate (a job's trust bundle ends with its workspace CA), so a
// contender that reads a whole system bundle does not pay for parsing it on every connection.
const caText = readFileSync(caFile, 'utf8');
const ca = process.env.BENCH_CA_LAST ? caText.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g).at(-1) : caText;

async function get() {
  const socket = await open();
  return new Promise((resolve, reject) => {
    // BENCH_HEADER (secrets at egress, #18 item 3): one extra header line, e.g. a placeholder the proxy substitutes.
    const extra = process.env.BENCH_HEADER ? `${process.env.BENCH_HEADER}\r\n` : '';
    const tls = tlsConnect({ socket, servername: host, ca }, () => tls.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`));
    let bytes = 0;
    tls.on('data', (c) => (bytes += c.length));
    tls.on('error', reject);
    tls.on('end', () => resolve(bytes));
  });
}

const t0 = process.hrtime.bigint();
let total = 0;
for (let i = 0; i < Number(n); i++) total += await get();
console.log(`elapsed_ms=${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} bytes=${total}`);
