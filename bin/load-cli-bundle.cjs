// Loads the CLI bundle (dist/cli-bundle/main.cjs, scripts/build-cli-bundle.mjs)
// with V8's code cache beside it, so a CLI call neither resolves ~200 module
// files nor compiles a megabyte of JavaScript before it starts (#20). Returns
// null when the bundle is missing or older than the per-file build (tsc ran,
// the bundle step did not): the caller then runs the per-file build, slower
// and current, never stale code.
'use strict';
const { readFileSync, statSync, writeFileSync, renameSync } = require('node:fs');
const { join } = require('node:path');
const Module = require('node:module');

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'cli-bundle', 'main.cjs');
const cacheFile = `${bundle}.cache`;
const perFile = join(dist, 'cli', 'main.js');

function mtime(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
}

/**
 * The bundle's exports and its compiled script (for writing the cache), or null.
 * Read as latin1: the build makes it ASCII only (build-cli-bundle.mjs), and
 * latin1 gives V8 a one-byte string in half the time of a UTF-8 decode.
 */
function loadCliBundle() {
  if (mtime(bundle) < mtime(perFile)) return null;
  const vm = require('node:vm');
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (or unreadable): compile from source.
  }
  const script = new vm.Script(Module.wrap(readFileSync(bundle, 'latin1')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(bundle), mod, bundle, join(dist, 'cli-bundle'));
  return { exports: mod.exports, script };
}

/** Writes the code cache of a script loaded by loadCliBundle, after the verbs worth caching have run (build time only). */
function writeCodeCache(script) {
  writeFileSync(`${cacheFile}.tmp`, script.createCachedData());
  renameSync(`${cacheFile}.tmp`, cacheFile);
}

module.exports = { loadCliBundle, writeCodeCache };
