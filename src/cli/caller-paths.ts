/**
 * Host paths a user types are relative to the CALLER's directory. The engine
 * resolves a relative one against its process's directory, which under
 * `headspace serve` (#20) is the server's, not the caller's: so the CLI makes
 * every host path of an engine verb's input absolute against `io.cwd` before
 * the call, in both modes (the in-process CLI's io.cwd is process.cwd(), so
 * nothing changes there but the absolute form the path is recorded in).
 * Manifests, receipts, env files and batch specs are resolved where their
 * adapters read them (verb-adapters*.ts, run-inputs.ts).
 */
import { resolve } from 'node:path';

/** Per verb (the table's name): the input keys holding host paths, and how to reach them. */
const HOST_PATH_KEYS: Readonly<Record<string, (input: Record<string, unknown>, cwd: string) => Record<string, unknown>>> = {
  put: (input, cwd) => withAbsolute(input, 'hostPath', cwd),
  export: (input, cwd) => withAbsolute(input, 'to', cwd),
  run: (input, cwd) =>
    Array.isArray(input.inputs)
      ? { ...input, inputs: (input.inputs as Array<Record<string, unknown>>).map((item) => withAbsolute(item, 'hostPath', cwd)) }
      : input,
};

/** `io.cwd` is read only for a verb with host paths (a process whose directory was removed still answers the others). */
export function withCallerPaths(verb: string, input: Record<string, unknown>, io: { cwd: string }): Record<string, unknown> {
  return HOST_PATH_KEYS[verb]?.(input, io.cwd) ?? input;
}

/** A non-empty string without NUL made absolute; anything else is left for the verb to refuse with its own message. */
function withAbsolute(input: Record<string, unknown>, key: string, cwd: string): Record<string, unknown> {
  const value = input[key];
  if (typeof value !== 'string' || value === '' || value.includes('\0')) return input;
  // resolve() drops a trailing slash, which says "into this directory" (export --to DIR/): kept.
  const absolute = resolve(cwd, value);
  return { ...input, [key]: value.endsWith('/') && !absolute.endsWith('/') ? `${absolute}/` : absolute };
}
