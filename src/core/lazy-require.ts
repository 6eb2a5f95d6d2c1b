/**
 * A package or Node built-in loaded when first used, not when the module that
 * needs it is. A static import is evaluated with its importer: the CLI's
 * `run` and `create` loaded node-forge (~40 ms of a call) and `node:tls` for
 * the egress CA, and re2js (~20 ms) for supervision rules, although most
 * workspaces have no allow-list and no rules (#20). Types stay static
 * (`import type`); only the value waits.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
