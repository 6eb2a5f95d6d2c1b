/**
 * The seccomp filter is an allow-list (#10 item 3), so a call it forgot
 * breaks real programs. Each of these runs inside a real native sandbox
 * under the `host` profile and must do its ordinary work: python3 with
 * threads, ssl, sqlite3 and a multiprocessing pool; python3 resolving
 * localhost (getaddrinfo with AI_ADDRCONFIG), UDP, a socketpair, asyncio,
 * fsync/fdatasync and sync (skipped, yet successful); node with a worker
 * thread and its network-interface list (route netlink); node serving HTTP
 * on loopback; gcc compiling and
 * linking a threaded C program that then runs; make; git init/add/commit;
 * pip's resolver over a local wheel directory (there is no network inside);
 * the sqlite3 CLI. A tool missing on the host skips its case with the
 * reason, except under CI=true, where every tool is expected (they are on
 * this machine kind's image).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const present = (path: string) => existsSync(path) || process.env.CI === 'true';

const PYTHON = `import ssl, sqlite3, multiprocessing, threading, socket
out = []
t = threading.Thread(target=lambda: out.append('thread'))
t.start(); t.join()
db = sqlite3.connect(':memory:'); db.execute('create table t(x)'); db.execute('insert into t values (41)')
ctx = ssl.create_default_context()
with multiprocessing.Pool(2) as pool: squares = pool.map(abs, [-3, -4])
print(out[0], db.execute('select x + 1 from t').fetchone()[0], ctx.protocol.name, squares, socket.if_nameindex()[0][1])`;

const NODE = `const { Worker } = require('node:worker_threads');
const os = require('node:os');
new Worker('require("node:worker_threads").parentPort.postMessage(6 * 7)', { eval: true })
  .on('message', (n) => console.log('worker', n, Object.keys(os.networkInterfaces()).join(',')));`;

/** An HTTP server on loopback and a request to it: TCP sockets made with SOCK_NONBLOCK | SOCK_CLOEXEC. */
const NODE_HTTP = `const http = require('node:http');
const server = http.createServer((req, res) => res.end('served ' + req.url));
server.listen(0, '127.0.0.1', () => {
  http.get({ host: '127.0.0.1', port: server.address().port, path: '/x' }, (res) => {
    let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => { console.log(body); server.close(); });
  });
});`;

/** getaddrinfo with AI_ADDRCONFIG (route netlink), UDP, a unix socketpair, asyncio's self-pipe socketpair, fsync and fdatasync. */
const PYTHON_NET = `import asyncio, os, socket
addrs = sorted({a[4][0] for a in socket.getaddrinfo('localhost', 80, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG)})
a, b = socket.socketpair(); a.sendall(b'pair'); got = b.recv(4).decode()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 0))
u.sendto(b'udp', u.getsockname()); got += ' ' + u.recv(3).decode()
async def main(): await asyncio.sleep(0); return 'asyncio'
with open('/tmp/durable', 'wb') as f: f.write(b'x'); f.flush(); os.fsync(f.fileno()); os.fdatasync(f.fileno())
os.sync()
print(addrs, got, asyncio.run(main()), 'synced')`;

const C_PROGRAM = String.raw`#include <pthread.h>
#include <stdio.h>
static int sum;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *add(void *arg) { pthread_mutex_lock(&lock); sum += *(int *)arg; pthread_mutex_unlock(&lock); return NULL; }
int main(void) {
  pthread_t threads[4]; int values[4] = {1, 2, 3, 4};
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, add, &values[i]);
  for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
  printf("threads summed %d\n", sum);
  return 0;
}`;

/** Two hand-made wheels, demo-a depending on demo-b, so the resolver has a dependency to follow. */
const WHEELS = `import os, zipfile
os.makedirs('/tmp/wheels', exist_ok=True)
def wheel(name, requires):
    dist = f'{name}-1.0.dist-info'
    files = {f'{name}/__init__.py': '', f'{dist}/METADATA': f'Metadata-Version: 2.1\\nName: {name.replace("_", "-")}\\nVersion: 1.0\\n' + ''.join(f'Requires-Dist: {r}\\n' for r in requires),
             f'{dist}/WHEEL': 'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}
    files[f'{dist}/RECORD'] = ''.join(f'{p},,\\n' for p in files) + f'{dist}/RECORD,,\\n'
    with zipfile.ZipFile(f'/tmp/wheels/{name}-1.0-py3-none-any.whl', 'w') as z:
        for p, text in files.items(): z.writestr(p, text)
wheel('demo_a', ['demo-b>=1.0']); wheel('demo_b', [])`;

describe.runIf(readiness.ready)(`real programs under the seccomp allow-list (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace();
  });
  afterAll(async () => {
    await ws.dispose();
  });

  const run = async (argv: string[]) => {
    const result = await ws.run(argv);
    // On failure, the output names the refused call (e.g. "Function not implemented").
    expect(result.outcome.exitCode, `${argv.join(' ').slice(0, 80)}\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout;
  };

  it.runIf(present('/usr/bin/python3'))('python3 runs threads, ssl, sqlite3 and a multiprocessing pool', async () => {
    expect(await run(['/usr/bin/python3', '-c', PYTHON])).toMatch(/^thread 42 PROTOCOL_TLS_CLIENT \[3, 4\] lo$/m);
  });

  it.runIf(present('/usr/bin/node'))('node runs a worker thread and lists its network interfaces', async () => {
    expect(await run(['node', '-e', NODE])).toContain('worker 42 lo');
  });

  it.runIf(present('/usr/bin/node'))('node serves HTTP on loopback and fetches from itself', async () => {
    expect(await run(['node', '-e', NODE_HTTP])).toContain('served /x');
  });

  it.runIf(present('/usr/bin/python3'))('python3 resolves localhost, talks UDP and through a socketpair, runs asyncio, and syncs its files', async () => {
    expect(await run(['/usr/bin/python3', '-c', PYTHON_NET])).toMatch(/^\['127\.0\.0\.1'(, '::1')?\] pair udp asyncio synced$/m);
  });

  it.runIf(present('/usr/bin/cc'))('cc compiles and links a threaded C program that then runs', async () => {
    const script = `cat > /tmp/t.c <<'EOF'\n${C_PROGRAM}\nEOF\ncc -O1 -pthread -o /tmp/t /tmp/t.c && /tmp/t`;
    expect(await run(['sh', '-c', script])).toContain('threads summed 10');
  });

  it.runIf(present('/usr/bin/make'))('make runs a recipe that depends on another target', async () => {
    const script = `mkdir -p /tmp/mk && cd /tmp/mk && printf 'all: a\\n\\techo made-all\\na:\\n\\ttouch a\\n' > Makefile && make -s`;
    expect(await run(['sh', '-c', script])).toContain('made-all');
  });

  it.runIf(present('/usr/bin/git'))('git initialises a repository, adds and commits', async () => {
    const script =
      'cd /tmp && git init -q repo && cd repo && echo hi > f && git add f && git -c user.name=t -c user.email=t@example.invalid commit -qm first && git log --format=%s';
    expect(await run(['sh', '-c', script])).toContain('first');
  });

  it.runIf(present('/usr/lib/python3/dist-packages/pip'))("pip's resolver follows a dependency through a local wheel directory", async () => {
    const script = `/usr/bin/python3 -c "${WHEELS.replaceAll('"', '\\"')}" && /usr/bin/python3 -m pip download -q --no-index --find-links /tmp/wheels -d /tmp/dl demo-a && ls /tmp/dl`;
    const out = await run(['sh', '-c', script]);
    expect(out).toContain('demo_a-1.0-py3-none-any.whl');
    expect(out).toContain('demo_b-1.0-py3-none-any.whl');
  });

  it.runIf(present('/usr/bin/sqlite3'))('the sqlite3 CLI creates, fills and queries a database file', async () => {
    expect(await run(['sh', '-c', "sqlite3 /tmp/db 'create table t(x); insert into t values (20), (22); select sum(x) from t;'"])).toContain('42');
  });
});
