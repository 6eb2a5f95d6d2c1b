// The network allow-list's cost (#18): N sequential HTTPS GETs (a fresh
// connection each) of a 1 KiB and a 10 MiB body from a loopback HTTPS
// server, timed inside the client (node's start excluded), by three
// contenders interleaved:
//   - direct: the client on the host, straight to the server (the floor);
//   - host → egress proxy: the client on the host, CONNECT through the
//     engine's proxy on its unix socket (the proxy alone);
//   - workspace → relay → egress proxy: the client inside a native
//     workspace with `network allow=up.bench.test:PORT`, through
//     HTTPS_PROXY's port (the in-sandbox relay, the unix socket, the proxy):
//     what a job pays.
//   - host → egress proxy, TLS terminated: as the second, for a job with a
//     secret (#18 item 3): the proxy answers the client's TLS with a leaf
//     certificate from the workspace CA, verifies the server's own, reads
//     each request head and puts the secret's value in place of the
//     placeholder header the client sends, and scans the rest.
//   - workspace → … TLS terminated: the same from inside a native workspace
//     run with --secret (the CA trusted through NODE_EXTRA_CA_CERTS).
// The server is named through the proxy's test resolver map
// (HEADSPACE_TEST_RESOLVER_MAP, test-only), with a throwaway test CA.
// Aim: the workspace ≤ 1.3× direct for 10 MiB.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ms, summarize, table } from './lib/stats.mjs';

const NAME = 'up.bench.test';

export async function benchEgressOverhead({
  repo,
  gets = Number(process.env.HEADSPACE_BENCH_EGRESS_GETS ?? 200),
  rounds = Number(process.env.HEADSPACE_BENCH_EGRESS_ROUNDS ?? 3),
}) {
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-egress-'));
  const openssl = (...args) => execFileSync('openssl', args, { cwd: scratch, stdio: 'pipe' });
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
  openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=headspace bench CA', '-days', '2', '-out', 'ca.pem');
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key');
  openssl('req', '-new', '-key', 'server.key', '-subj', `/CN=${NAME}`, '-out', 'server.csr');
  writeFileSync(join(scratch, 'ext.cnf'), `subjectAltName=DNS:${NAME}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
    '-out',
    'server.pem',
  );
  // The upstream runs in its own process: in the same event loop as the proxy, the two would share one thread.
  const server = spawn(process.execPath, [join(repo, 'bench', 'lib', 'egress-server.mjs'), join(scratch, 'server.key'), join(scratch, 'server.pem')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    server.stdout.once('data', (d) => resolve(Number(/port=(\d+)/.exec(String(d))?.[1])));
    server.once('exit', () => reject(new Error('the bench upstream exited')));
  });
  process.env.HEADSPACE_TEST_RESOLVER_MAP = JSON.stringify({ [NAME]: '127.0.0.1' });
  // The workspace's TLS-terminated runs verify the bench server against its own test CA (test mode, #18 item 3).
  process.env.HEADSPACE_TEST_UPSTREAM_CA = (await import('node:fs')).readFileSync(join(scratch, 'ca.pem'), 'utf8');
  const client = join(repo, 'bench', 'lib', 'egress-client.mjs');
  const caFile = join(scratch, 'ca.pem');
  const api = await import(join(repo, 'dist', 'api', 'index.js'));
  const { PROVIDERS } = await import(join(repo, 'dist', 'providers', 'registry.js'));
  const { startEgressProxy } = await import(join(repo, 'dist', 'core', 'network', 'egress-proxy.js'));
  const { ensureWorkspaceCa, loadWorkspaceCa } = await import(join(repo, 'dist', 'core', 'network', 'egress-ca.js'));
  const { planSecrets } = await import(join(repo, 'dist', 'core', 'network', 'egress-secrets.js'));
  const home = join(scratch, 'home');
  // The TLS-terminating proxy: a workspace CA of its own, the bench server's CA as the upstream's trusted issuer (test mode).
  ensureWorkspaceCa(home, 'bench-host');
  const hostCa = loadWorkspaceCa(home, 'bench-host');
  const hostCaFile = join(scratch, 'workspace-ca.pem');
  writeFileSync(hostCaFile, hostCa.certPem);
  const secrets = planSecrets(
    [{ name: 'BENCH_TOKEN', value: 'bench-secret-value', host: `${NAME}:${port}` }],
    { network: 'allowlist', networkAllow: [`${NAME}:${port}`] },
    {},
  );
  const benchCa = (await import('node:fs')).readFileSync(join(scratch, 'ca.pem'), 'utf8');
  const terminating = await startEgressProxy({ allow: [`${NAME}:${port}`], secrets: { list: secrets, ca: hostCa, upstreamCa: [benchCa] } });
  const withHeader = { BENCH_HEADER: `Authorization: Bearer ${secrets[0].placeholder}` };
  const engine = api.createEngine({ home, providers: PROVIDERS, defaultProvider: 'native', version: 'bench' });
  const hostProxy = await startEgressProxy({ allow: [`${NAME}:${port}`] });
  // Asynchronous: the server runs in this very process, so a synchronous child would deadlock it.
  const hostNode = async (args, extraEnv = {}) =>
    elapsed((await promisify(execFile)(process.execPath, [client, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...extraEnv } })).stdout);
  try {
    const probe = await (await engine.provider('native')).probe();
    const nativeReady = probe.ready;
    if (nativeReady) {
      await engine.create({
        workspaceId: 'bench-egress',
        network: `allow=${NAME}:${port}`,
        budget: { wallClockSeconds: 600, cpuLimit: Number(process.env.HEADSPACE_BENCH_EGRESS_CPUS ?? 1) },
      });
      const put = await engine.run({
        workspaceId: 'bench-egress',
        argv: ['true'],
        inputs: [
          { destination: 'client.mjs', hostPath: client },
          { destination: 'ca.pem', hostPath: caFile },
        ],
      });
      if (put.status !== 'success') throw new Error(`staging job: ${put.status}`);
    }
    const inWorkspace = async (path, secret = false) => {
      const ran = await engine.run({
        workspaceId: 'bench-egress',
        // With a secret the job trusts the workspace CA (its bundle, SSL_CERT_FILE), and sends the placeholder it was given.
        argv: secret
          ? [
              'sh',
              '-c',
              `BENCH_CA_LAST=1 BENCH_HEADER="Authorization: Bearer $BENCH_TOKEN" exec node client.mjs proxy 127.0.0.1 3128 ${NAME} ${port} ${path} ${gets} "$SSL_CERT_FILE"`,
            ]
          : ['node', 'client.mjs', 'proxy', '127.0.0.1', '3128', NAME, String(port), path, String(gets), 'ca.pem'],
        ...(secret ? { secrets: [{ name: 'BENCH_TOKEN', value: 'bench-secret-value', host: `${NAME}:${port}` }] } : {}),
      });
      if (ran.status !== 'success') throw new Error(`workspace client: ${ran.status}: ${JSON.stringify(ran.evidence).slice(0, 300)}`);
      return elapsed(JSON.stringify(ran.evidence));
    };
    const rows = [];
    const result = { gets, rounds, nativeReady };
    for (const [size, path] of [
      ['1 KiB', '/small'],
      ['10 MiB', '/big'],
    ]) {
      const contenders = [
        ['direct (host → server)', () => hostNode(['direct', NAME, String(port), path, String(gets), caFile])],
        ['host → egress proxy', () => hostNode(['proxy', '-', `unix:${hostProxy.socketPath}`, NAME, String(port), path, String(gets), caFile])],
        ...(nativeReady ? [['workspace → relay → egress proxy', () => inWorkspace(path)]] : []),
        [
          'host → egress proxy, TLS terminated',
          () => hostNode(['proxy', '-', `unix:${terminating.socketPath}`, NAME, String(port), path, String(gets), hostCaFile], withHeader),
        ],
        ...(nativeReady ? [['workspace → … TLS terminated (--secret)', () => inWorkspace(path, true)]] : []),
      ];
      const samples = Object.fromEntries(contenders.map(([name]) => [name, []]));
      for (const [, run] of contenders) await run(); // warm-up
      for (let r = 0; r < rounds; r++) for (const [name, run] of contenders) samples[name].push(await run());
      const stats = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
      result[size] = stats;
      const floor = stats['direct (host → server)'].median;
      for (const [name, s] of Object.entries(stats))
        rows.push({
          body: size,
          contender: name,
          'median ms': ms(s.median),
          'p90 ms': ms(s.p90),
          'ms per GET': (s.median / gets).toFixed(2),
          'x direct': (s.median / floor).toFixed(2),
        });
    }
    const note = nativeReady
      ? ''
      : `\n\nThe workspace contender is skipped: the native provider is not ready here (${probe.checks
          .filter((c) => !c.ok)
          .map((c) => c.name)
          .join(', ')}).`;
    return {
      name: 'egress-overhead',
      result,
      markdown: `${gets} sequential HTTPS GETs (a new TCP + TLS connection each), timed inside the client, ${rounds} interleaved rounds after a warm-up\n\n${table(rows, ['body', 'contender', 'median ms', 'p90 ms', 'ms per GET', 'x direct'])}${note}`,
    };
  } finally {
    await hostProxy.close();
    await terminating.close();
    await engine.destroy({ workspaceId: 'bench-egress', force: true }).catch(() => undefined);
    engine.close();
    server.kill();
    delete process.env.HEADSPACE_TEST_RESOLVER_MAP;
    delete process.env.HEADSPACE_TEST_UPSTREAM_CA;
    rmSync(scratch, { recursive: true, force: true });
  }
}

function elapsed(text) {
  const m = /elapsed_ms=([\d.]+)/.exec(text);
  if (!m) throw new Error(`the client printed no timing: ${text.slice(0, 300)}`);
  return Number(m[1]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { dirname, resolve } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const out = await benchEgressOverhead({ repo: resolve(dirname(fileURLToPath(import.meta.url)), '..') });
  console.log(out.markdown);
}
