// Bundles the CLI (dist/cli/main.js and everything it imports, statically or
// lazily) into one file, dist/cli-bundle/main.cjs, and writes V8's code cache
// for it beside it (main.cjs.cache). Run after tsc and build-verb-manifest.
//
// Why (#20, measured in bench/README.md): a CLI call paid Node's ES module
// loader for ~40 files (`version`) to ~200 (`run`) before doing anything, and
// then V8 compiled them. One CommonJS file is read with one read; the code
// cache spares compiling it (bin/headspace loads both; a cache that this
// Node rejects only costs the compile). The library (dist/api) is not
// bundled: it stays the per-file tsc output that `exports` names.
//
// Nothing from node_modules is bundled but commander, and no built-in is
// imported at the top but those every call loads anyway (EVERY_CALL below):
// each other one is `require`d from a stub that esbuild wraps like any
// CommonJS module, so it loads when the code that needs it first runs.
// Hoisted to the top, node:http, node:tls, the MCP SDK, zod and dockerode
// would load on every call. better-sqlite3 is native and could not be bundled
// anyway; zod loading through `require` stays visible to the "the CLI never
// loads zod" test, which reads require's cache too.
//
// commander is bundled because every verb but `version` (which the bin
// answers alone) parses its argv with it: required from node_modules it was
// resolved through its package exports and compiled from source on every
// call; bundled, it comes from the code cache. Measured (session 10, n = 40
// interleaved): ~5 ms less CPU per `ls --json` and `run`, about 2% (#20).
// It stays a dependency, installed with its license.
//
// The built-ins of EVERY_CALL are plain `require`s instead of stubs: a stub
// is an ES module import of CommonJS to esbuild, which copies the module's
// every export onto a new object in each importing file (`__toESM`): 78
// files import node:fs, 73 node:path, 39 node:crypto, ~20,000 property
// definitions at each start. These are loaded by every CLI call already
// (Node's own start loads fs, path, url, util and module; the store and the
// ids need crypto, os and child_process, and child_process loads net).
//
// Source files that find their neighbours with `new URL('…', import.meta.url)`
// (the exec shim, the verb manifest, package.json, the supervisor bin) would
// resolve from the bundle's folder instead of their own: each one's
// import.meta.url becomes the URL its tsc output has, computed from the
// bundle's own (the bundle ships inside dist/, beside those files).
import { build } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const dist = `${repo}dist`;
const outdir = `${dist}/cli-bundle`;
const outfile = `${outdir}/main.cjs`;

const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\/dist\/.*\.js$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      if (contents.includes('import.meta.url')) {
        const back = relative(outdir, args.path);
        contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(back)}, __hsBundleUrl).href`);
      }
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** Built-ins every CLI call loads (see above): required directly, not through a stub. */
const EVERY_CALL = new Set(['fs', 'fs/promises', 'path', 'url', 'util', 'module', 'crypto', 'os', 'child_process', 'net'].map((name) => `node:${name}`));
/** Packages bundled (see above); everything else in node_modules is required at first use. */
const BUNDLED = new Set(['commander']);

const lazyRequire = {
  name: 'lazy-require',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      // The stub's own require() is Node's, left as written.
      if (args.namespace === 'lazy-require' || EVERY_CALL.has(args.path)) return { path: args.path, external: true };
      // undefined: esbuild resolves and bundles it as any file.
      if (BUNDLED.has(args.path)) return undefined;
      return { path: args.path, namespace: 'lazy-require' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${dist}/cli/main.js`],
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  banner: { js: "const __hsBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyRequire, ownImportMetaUrl],
  // Smaller source, less for V8 to scan when the cache is rejected; names are kept for readable traces.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// ASCII only (#20): the bin reads the bundle as latin1, which makes V8 a
// one-byte string in half the time of a UTF-8 decode, and V8 scans a one-byte
// source faster when it compiles a function lazily (measured: 27 ms less CPU
// for each `ls --json`, 20 calls × 3 rounds). A single non-ASCII character
// would make it a two-byte string. esbuild escapes every string, but leaves
// regular expression literals as written (evanw/esbuild#4205): write those
// characters as \uXXXX in the source. A bundle that is not ASCII fails the
// build here rather than being read wrongly.
{
  const text = await readFile(outfile, 'utf8');
  const at = text.search(/[^\x00-\x7f]/);
  if (at !== -1)
    throw new Error(
      `build-cli-bundle: the bundle holds a non-ASCII character (U+${text.codePointAt(at).toString(16).toUpperCase().padStart(4, '0')}) in \`${text.slice(Math.max(0, at - 60), at + 20)}\`: write it as a \\u escape in the source's regular expression`,
    );
}

// The code cache, written once a few verbs have run in this process so the
// functions they compiled lazily are in it too (a cache taken right after
// compiling holds little more than the top level). Their output goes nowhere.
const { loadCliBundle, writeCodeCache } = createRequire(import.meta.url)('../bin/load-cli-bundle.cjs');
const loaded = loadCliBundle();
if (loaded === null) throw new Error('build-cli-bundle: the bundle just written is older than dist/cli/main.js');
const home = await mkdtemp(join(tmpdir(), 'hs-bundle-warm-'));
const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const io = {
  stdout: sink(),
  stderr: sink(),
  stdoutIsTty: false,
  stderrIsTty: false,
  env: { HEADSPACE_HOME: home },
  cwd: home,
  readStdin: () => Buffer.alloc(0),
  onInterrupt: () => () => undefined,
};
try {
  for (const argv of [['version'], ['ls', '--json'], ['ls'], ['inspect', 'ws-none'], ['run', '--help']]) await loaded.exports.main(argv, io);
} finally {
  await rm(home, { recursive: true, force: true });
}
writeCodeCache(loaded.script);

// build.json (#20): this build's identity, which the thin client of
// `headspace serve` sends so that a server of another build never answers
// it, and what `version` prints (text and --json), captured from main()
// itself, so the bin answers `version` without loading the bundle and
// byte-identically. Written last: the bin trusts it only when it is no older
// than the per-file build, as it does the bundle.
const captured = async (argv) => {
  const chunks = [];
  const out = new Writable({ write: (chunk, _encoding, done) => (chunks.push(Buffer.from(chunk)), done()) });
  const code = await loaded.exports.main(argv, { ...io, stdout: out, env: {} });
  if (code !== 0) throw new Error(`build-cli-bundle: ${argv.join(' ')} exited ${code}`);
  return Buffer.concat(chunks).toString('utf8');
};
const buildInfo = {
  build: `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`,
  version: { text: await captured(['version']), json: await captured(['version', '--json']) },
};
await writeFile(`${outdir}/build.json.tmp`, `${JSON.stringify(buildInfo)}\n`);
await rename(`${outdir}/build.json.tmp`, `${outdir}/build.json`);
process.stderr.write(`build-cli-bundle: built ${relative(repo, outfile)} and its code cache\n`);
