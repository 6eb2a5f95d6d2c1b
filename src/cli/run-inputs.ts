import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { readRange } from '../core/files/read-range.js';
import { EngineError } from '../core/errors.js';
import { isEnvName, parseEnvFile } from '../core/files/env-file.js';
import { SECRET_NAME, type SecretInput } from '../core/network/egress-secrets.js';

/**
 * Turns run's --input, --env, --env-file and --declare flags into engine
 * input. Values of --env come from the CALLER's environment, so a secret
 * never travels through argv (which is recorded verbatim). Error messages
 * name variables and files, never values or file lines.
 */
export function envFromFlags(names: string[], files: string[], callerEnv: NodeJS.ProcessEnv, cwd: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const file of files) {
    Object.assign(env, parseEnvFile(readEnvFile(file, resolve(cwd, file)), file));
  }
  for (const name of names) {
    if (name.includes('=')) {
      // Never echo what follows '=': it is exactly the value this flag keeps out of argv.
      throw new EngineError('BAD_ARGUMENT', `--env takes a variable NAME, not NAME=VALUE (${name.slice(0, name.indexOf('=')).slice(0, 40)}=…)`, {
        hint: 'export the variable in your shell and pass --env NAME, or put it in a file for --env-file',
      });
    }
    if (!isEnvName(name))
      throw new EngineError('BAD_ARGUMENT', `--env ${name.slice(0, 40)}: not a valid variable name`, {
        hint: 'a name is letters, digits and _, not starting with a digit, e.g. --env API_TOKEN',
      });
    const value = callerEnv[name];
    if (value === undefined)
      throw new EngineError('BAD_ARGUMENT', `--env ${name}: the variable is not set in your environment`, { hint: `export ${name}=… first, or drop the flag` });
    env[name] = value;
  }
  return env;
}

/** An env file is small text: larger than this is not one (and /dev/zero would exhaust the heap). */
const ENV_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Reads an --env-file as a regular file of at most ENV_FILE_MAX_BYTES,
 * opened non-blocking so a FIFO cannot hang the CLI and /dev/zero cannot
 * crash it out of memory (red team round 3: exit 134). Never echoes content.
 */
function readEnvFile(file: string, path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new EngineError('BAD_ARGUMENT', `--env-file ${file}: cannot be read`, { hint: 'check the path and its permissions' });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new EngineError('BAD_ARGUMENT', `--env-file ${file}: not a regular file`, { hint: 'give a file of NAME=VALUE lines' });
    if (info.size > ENV_FILE_MAX_BYTES)
      throw new EngineError('BAD_ARGUMENT', `--env-file ${file}: ${info.size} bytes is more than an env file holds (at most ${ENV_FILE_MAX_BYTES})`, {
        hint: 'give a file of NAME=VALUE lines',
      });
    return readRange(fd, 0, info.size).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export function splitAssignment(flag: string, raw: string, what: [string, string]): [string, string] {
  const eq = raw.indexOf('=');
  if (eq <= 0 || eq === raw.length - 1) {
    throw new EngineError('BAD_ARGUMENT', `${flag} takes ${what[0]}=${what[1]}, not '${raw.slice(0, 60)}'`, {
      hint: `for example ${flag} ${flag === '--input' ? 'data.csv=./data.csv' : 'report.json="the final report"'}`,
    });
  }
  return [raw.slice(0, eq), raw.slice(eq + 1)];
}

/** `NAME@HOST[:PORT][:body]`, as the CLI's --secret gives it; the value comes from `callerEnv`. */
export function secretFromFlag(spec: string, callerEnv: NodeJS.ProcessEnv): SecretInput {
  const at = spec.indexOf('@');
  const bad = (why: string) =>
    new EngineError('BAD_ARGUMENT', `--secret '${spec.slice(0, 80)}' ${why}`, {
      hint: 'give NAME@HOST, e.g. --secret API_TOKEN@api.example.com (add :body to substitute in request bodies too)',
    });
  if (at <= 0) throw bad('needs NAME@HOST');
  const name = spec.slice(0, at);
  let host = spec.slice(at + 1);
  const body = host.endsWith(':body');
  if (body) host = host.slice(0, -':body'.length);
  if (!SECRET_NAME.test(name)) throw bad('has a NAME that is not a variable name (letters, digits and _, not starting with a digit)');
  if (host === '') throw bad('has no HOST after @');
  const value = callerEnv[name];
  // Fail closed before anything runs: an unset secret would reach the job as an empty placeholder's promise.
  if (value === undefined)
    throw new EngineError('POLICY_DENIED', `--secret ${name}: the variable is not set in your environment, so there is no value to keep from the job`, {
      hint: `export ${name}=… first, or drop the flag`,
    });
  return { name, value, host, ...(body ? { body: true } : {}) };
}
