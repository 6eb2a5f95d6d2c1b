/**
 * Where better-sqlite3's compiled addon is, handed to each `new Database` as
 * its `nativeBinding`. Without it, better-sqlite3 finds the addon through the
 * `bindings` package, which builds an Error stack to find its caller's package
 * and tries a dozen candidate paths: about 8 ms of CPU of every CLI call on
 * the session-10 machine (#20). Both install routes (a prebuilt download or a
 * node-gyp build) put it at build/Release/better_sqlite3.node; anywhere else
 * (undefined here), better-sqlite3 searches as it always did.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let found: { path: string | undefined } | undefined;

export function sqliteAddonPath(): string | undefined {
  if (found === undefined) {
    // lib/index.js: the package's main, already resolved by the import that loaded it.
    const main = createRequire(import.meta.url).resolve('better-sqlite3');
    const addon = join(dirname(main), '..', 'build', 'Release', 'better_sqlite3.node');
    found = { path: existsSync(addon) ? addon : undefined };
  }
  return found.path;
}
