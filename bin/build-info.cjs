// dist/cli-bundle/build.json (scripts/build-cli-bundle.mjs): this build's
// identity, sent by the thin client of `headspace serve`, and the bytes of
// `version`. Its own small file: `version` reads it without compiling the
// client or loading the bundle (#20).
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');

/** build.json, when no older than the per-file build (the rule bin/load-cli-bundle.cjs applies to the bundle); null otherwise. */
function buildInfo() {
  const file = join(dist, 'cli-bundle', 'build.json');
  const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (mtime(file) < mtime(join(dist, 'cli', 'main.js'))) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

module.exports = { buildInfo };
