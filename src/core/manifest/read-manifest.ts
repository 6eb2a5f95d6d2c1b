/**
 * Reads a `headspace.yml` (#17) and refuses it, before anything happens,
 * naming the key path and the line: YAML that does not parse, an unknown
 * key, a wrong type, and a path that escapes — absolute where relative is
 * required, `..`, a symbolic link on the way from the manifest's directory —
 * or a workspace path that leaves the workspace. What comes back holds every
 * host path resolved under the manifest's directory.
 */
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { LineCounter, parseDocument, isMap, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { EngineError } from '../errors.js';
import { normalizeWorkspacePath } from '../paths.js';
import type { GitSource } from './git-input.js';
import { isRemoteGitSource, redactGitUrl, remoteSourceProblem } from './git-url.js';
import { MANIFEST_SCHEMA_ID, ManifestSchema, type Manifest } from './manifest-schema.js';
import { splitCommandWords } from '../verification/command-words.js';
import { compilePattern, normalizeSha256, planChecks, type PlannedCheck, type VerificationRequest } from '../verification/verification.js';

/** A manifest larger than this is refused unread: a workspace description is a page, not a data file. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

export interface ManifestInput {
  /** The host path, absolute, under the manifest's directory. */
  hostPath: string;
  /** As written in the manifest. */
  path: string;
  /** The workspace destination, normalized. */
  to: string;
  /** Where it is written: `inputs[0]`. */
  key: string;
}

export interface ManifestRepository extends GitSource {
  ref: string;
  to: string;
}

export interface LoadedManifest {
  /** The manifest file, absolute. */
  file: string;
  dir: string;
  manifest: Manifest;
  /** sha256 of the manifest's meaning (its validated content as canonical JSON): comments and layout do not count. */
  digest: string;
  inputs: ManifestInput[];
  repositories: ManifestRepository[];
  /** Env files, absolute. */
  envFiles: Array<{ hostPath: string; path: string; key: string }>;
  artifacts: Array<{ name: string; purpose: string }>;
  /** The verify section (#16) as run takes it, each check validated; empty lists when there is none. */
  verification: Required<VerificationRequest>;
  /** The checks in the order a result lists them (planChecks). */
  checks: PlannedCheck[];
  /** The same checks in the manifest's order, `verify[i]` at index i. */
  verifyItems: PlannedCheck[];
  /** sha256 of the verify section alone, and of the manifest without it: a change to verify alone re-judges the checks without recreating. */
  verifyDigest: string;
  baseDigest: string;
}

/** Reads, validates and checks a manifest; every refusal is BAD_MANIFEST naming the key path and the line. */
export async function loadManifest(file: string): Promise<LoadedManifest> {
  const absolute = resolve(file);
  let text: string;
  try {
    const stats = await lstat(absolute);
    if (!stats.isFile()) throw bad(absolute, `it is not a regular file`, 'name the headspace.yml file itself');
    if (stats.size > MAX_MANIFEST_BYTES) throw bad(absolute, `it is ${stats.size} bytes; a manifest is at most ${MAX_MANIFEST_BYTES}`);
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError('FILE_NOT_FOUND', `no manifest at ${absolute}`, {
      hint: `write a ${MANIFEST_SCHEMA_ID} manifest there (see docs/headspace.workspace.v1.schema.json), or name one`,
    });
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  const parseError = doc.errors[0];
  if (parseError) {
    // With prettyErrors the first line of the message ends "at line L, column C:".
    throw bad(absolute, `not YAML: ${parseError.message.split('\n')[0]!.replace(/:$/, '')}`, 'fix the YAML syntax');
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    // The yaml package stops an alias bomb (aliases of aliases, a billion laughs) with a plain error: it is the manifest's fault, not ours.
    throw bad(
      absolute,
      `its aliases expand too far (${error instanceof Error ? error.message : String(error)})`,
      'write the values out, or use fewer nested aliases',
    );
  }
  const parsed = ManifestSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => describeIssue(doc, lines, issue));
    const more = parsed.error.issues.length > 5 ? ` (and ${parsed.error.issues.length - 5} more)` : '';
    throw bad(absolute, `${issues.join('; ')}${more}`);
  }
  const manifest = parsed.data;
  const dir = dirname(absolute);
  const at = (path: (string | number)[]) => `${keyPath(path)}, line ${lineOf(doc, lines, path)}`;

  const inputs: ManifestInput[] = [];
  for (const [i, input] of (manifest.inputs ?? []).entries()) {
    const hostPath = await checkHostPath(absolute, dir, input.path, at(['inputs', i, 'path']), { gitMetadata: 'refused' });
    const to = workspacePath(absolute, input.to ?? input.path, at(['inputs', i, input.to === undefined ? 'path' : 'to']));
    const clash = inputs.find((other) => other.to === to || to.startsWith(`${other.to}/`) || other.to.startsWith(`${to}/`));
    if (clash) throw bad(absolute, `${at(['inputs', i])}: lands at '${to}', overlapping ${clash.key} ('${clash.to}')`, 'give each input its own destination');
    inputs.push({ hostPath, path: input.path, to, key: `inputs[${i}]` });
  }
  const repositories: ManifestRepository[] = [];
  for (const [i, repo] of (manifest.repositories ?? []).entries()) {
    const where = at(['repositories', i, 'source']);
    let location: string;
    const remote = isRemoteGitSource(repo.source);
    if (remote) {
      const problem = remoteSourceProblem(repo.source);
      if (problem !== null)
        throw bad(absolute, `${where}: ${problem}`, 'name a remote as https://, ssh:// or user@host:path, or a local repository by its relative path');
      location = repo.source;
    } else location = await checkHostPath(absolute, dir, repo.source, where);
    const to = workspacePath(absolute, repo.to, at(['repositories', i, 'to']));
    const clash = [...inputs, ...repositories].find((other) => other.to === to || to.startsWith(`${other.to}/`) || other.to.startsWith(`${to}/`));
    if (clash)
      throw bad(absolute, `${at(['repositories', i])}: lands at '${to}', overlapping ${clash.key} ('${clash.to}')`, 'give each input its own destination');
    repositories.push({ key: `repositories[${i}]`, shown: remote ? redactGitUrl(repo.source) : repo.source, location, remote, ref: repo.ref, to });
  }
  const envFiles: LoadedManifest['envFiles'] = [];
  for (const [i, path] of (manifest.envFiles ?? []).entries()) {
    envFiles.push({ hostPath: await checkHostPath(absolute, dir, path, at(['envFiles', i]), { gitMetadata: 'refused' }), path, key: `envFiles[${i}]` });
  }
  const artifacts = (manifest.artifacts ?? []).map((a, i) => ({
    name: workspacePath(absolute, a.name, at(['artifacts', i, 'name'])),
    purpose: a.purpose.trim(),
  }));
  const { request: verification, ordered: verifyItems } = verifySection(absolute, manifest, at);
  const checks = refusedAs(absolute, at(['verify']), () => planChecks(verification));
  const { verify, ...base } = manifest;
  return {
    file: absolute,
    dir,
    manifest,
    digest: manifestDigest(manifest),
    inputs,
    repositories,
    envFiles,
    artifacts,
    verification,
    checks,
    verifyItems,
    verifyDigest: `sha256:${createHash('sha256')
      .update(canonicalJson(verify ?? []))
      .digest('hex')}`,
    baseDigest: manifestDigest(base),
  };
}

/**
 * The verify section as run's verification request, each check refused
 * here (naming its key path and line) the way run refuses a bad flag: a
 * command line that does not split into words, an empty argv, a pattern
 * RE2 cannot match, a path that leaves the workspace, a digest that is not
 * one. An output check needs a setup command: it judges that command's output.
 */
function verifySection(
  file: string,
  manifest: Manifest,
  at: (path: (string | number)[]) => string,
): { request: Required<VerificationRequest>; ordered: PlannedCheck[] } {
  const request: Required<VerificationRequest> = { verify: [], expectFiles: [], expectOutput: [] };
  const ordered: PlannedCheck[] = [];
  for (const [i, check] of (manifest.verify ?? []).entries()) {
    if ('command' in check) {
      const where = at(['verify', i, 'command']);
      const argv = typeof check.command === 'string' ? refusedAs(file, where, () => splitCommandWords(check.command as string, 'the command')) : check.command;
      if (argv[0] === '' || argv.some((a) => a.includes('\0')))
        throw bad(file, `${where}: a command's program may not be empty and no argument may hold a NUL byte`);
      request.verify.push(argv);
      ordered.push({ kind: 'verify', argv: [...argv] });
    } else if ('file' in check) {
      const path = workspacePath(file, check.file, at(['verify', i, 'file']));
      const sha256 = check.sha256 === undefined ? undefined : refusedAs(file, at(['verify', i, 'sha256']), () => normalizeSha256(check.sha256!));
      request.expectFiles.push(sha256 === undefined ? { path } : { path, sha256 });
      ordered.push({ kind: 'expect-file', path, sha256: sha256 ?? null });
    } else {
      const where = at(['verify', i, 'output']);
      if ((manifest.setup ?? []).length === 0)
        throw bad(
          file,
          `${where}: an output check judges the last setup command's output, and the manifest has no setup command`,
          'add the setup command whose output it checks, or check a file instead',
        );
      refusedAs(file, where, () => compilePattern(check.output));
      request.expectOutput.push(check.output);
      ordered.push({ kind: 'expect-output', pattern: check.output });
    }
  }
  return { request, ordered };
}

/** Runs a check of run's own, its refusal restated as the manifest's (BAD_MANIFEST, with the key path and line). */
function refusedAs<T>(file: string, where: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    throw bad(file, `${where}: ${error.message}`, error.hint);
  }
}

/** sha256 of the validated manifest as canonical JSON (keys sorted), `sha256:`-prefixed; a remote's password is redacted first (git-url.ts). */
export function manifestDigest(manifest: Manifest): string {
  const redacted = manifest.repositories
    ? { ...manifest, repositories: manifest.repositories.map((r) => ({ ...r, source: redactGitUrl(r.source) })) }
    : manifest;
  return `sha256:${createHash('sha256').update(canonicalJson(redacted)).digest('hex')}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A host path the manifest names: relative, no `..`, and no symbolic link at
 * any component from the manifest's directory down (lstat, never followed).
 * A path that does not exist yet passes here: plan reports it, prepare
 * refuses it.
 */
/**
 * A manifest path as a host path under the manifest's directory. `.git` is
 * refused where files are copied or read as they are (inputs, env files):
 * what lies there is the user's own git metadata, not the project's content
 * (.git/config may hold a remote URL with a token), and a manifest from
 * someone else's repository could otherwise name it. A repository source
 * may name it: a clone carries the history, never the configuration.
 */
async function checkHostPath(file: string, dir: string, raw: string, where: string, options: { gitMetadata?: 'refused' } = {}): Promise<string> {
  if (raw.includes('\0')) throw bad(file, `${where}: a path may not contain a NUL byte`);
  if (isAbsolute(raw)) throw bad(file, `${where}: '${shown(raw)}' is absolute; give a path relative to the manifest's directory`);
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw bad(file, `${where}: '${shown(raw)}' contains '..'; inputs stay under the manifest's directory`);
  if (options.gitMetadata === 'refused' && parts.some((p) => p.toLowerCase() === '.git'))
    throw bad(
      file,
      `${where}: '${shown(raw)}' is inside a .git directory, the user's git metadata (its config may hold credentials)`,
      'take the repository in as a repositories entry (a clone at a ref), or name the project files themselves',
    );
  if (parts.length === 0) throw bad(file, `${where}: '${shown(raw)}' names the manifest's directory itself; name a file or directory in it`);
  let at = dir;
  for (const part of parts) {
    at = join(at, part);
    const stats = await lstat(at).catch(() => null);
    if (stats === null) break;
    if (stats.isSymbolicLink())
      throw bad(file, `${where}: '${shown(raw)}' passes through a symbolic link (${shown(at.slice(dir.length + 1))})`, 'name the real file, not a link');
  }
  return join(dir, ...parts);
}

function workspacePath(file: string, raw: string, where: string): string {
  try {
    return normalizeWorkspacePath(raw);
  } catch (error) {
    throw bad(file, `${where}: ${(error as EngineError).message}`);
  }
}

function describeIssue(doc: Document, lines: LineCounter, issue: z.core.$ZodIssue): string {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(path);
    return issue.keys
      .map((key) => {
        const near = closestKey(key, known);
        return `${keyPath([...path, key])}, line ${lineOfKey(doc, lines, path, key)}: unknown key '${shown(key)}'${near === null ? '' : ` (did you mean '${near}'?)`}`;
      })
      .join('; ');
  }
  if (issue.code === 'invalid_union') {
    // A union (a verify check's kinds, a command's two forms): describe the one branch whose keys fit, else say what the choices are.
    const fitting = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.code !== 'unrecognized_keys'));
    if (fitting.length === 1) {
      const inner = fitting[0]![0]!;
      return describeIssue(doc, lines, { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
    }
    const choices =
      path[path.length - 1] === 'command'
        ? "must be one line of text, or a list of text arguments (an argv; quote a number or true: '126')"
        : path[0] === 'verify' && path.length === 2
          ? 'a check has exactly one of command:, file: (with an optional sha256:) or output:'
          : path[0] === 'policy' && path[1] === 'budget'
            ? `a whole number of bytes within the field's range, or one with a K, M, G or T suffix (powers of 1024), e.g. 512M; not '${shown(String(valueAt(doc, path)))}'`
            : issue.message;
    return `${keyPath(path)}, line ${lineOf(doc, lines, path)}: ${choices}`;
  }
  const where = path.length === 0 ? 'the manifest' : keyPath(path);
  const line = lineOf(doc, lines, path);
  const message = issue.code === 'invalid_value' && path[0] === 'schema' && path.length === 1 ? `must be ${MANIFEST_SCHEMA_ID}` : issue.message;
  // YAML reads a bare true, 126 or 1.5 as a boolean or a number: an argument must be quoted to stay text.
  const quote =
    issue.code === 'invalid_type' && issue.expected === 'string' && typeof path[path.length - 1] === 'number'
      ? ` (quote it to keep it text: '${shown(String(valueAt(doc, path)))}')`
      : '';
  return `${where}${line === undefined ? '' : `, line ${line}`}: ${message}${quote}`;
}

/** The keys the manifest's schema takes at `path` (an object's; through arrays by their element), for a did-you-mean. */
function knownKeysAt(path: readonly (string | number)[]): string[] {
  let schema: unknown = ManifestSchema;
  for (const step of path) {
    schema = unwrapped(schema);
    const def = (schema as { def?: { type?: string; element?: unknown; shape?: Record<string, unknown> } }).def;
    if (typeof step === 'number') schema = def?.type === 'array' ? def.element : undefined;
    else schema = def?.shape?.[step];
    if (schema === undefined) return [];
  }
  const shape = (unwrapped(schema) as { def?: { shape?: Record<string, unknown> } }).def?.shape;
  return shape === undefined ? [] : Object.keys(shape);
}

/** An optional, nullable or defaulted schema's inner one. */
function unwrapped(schema: unknown): unknown {
  let at = schema as { def?: { type?: string; innerType?: unknown } } | undefined;
  while (at?.def !== undefined && ['optional', 'nullable', 'default', 'prefault'].includes(at.def.type ?? '')) at = at.def.innerType as typeof at;
  return at;
}

/** The known key within two edits of `key` (case aside), or null. */
function closestKey(key: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= 2 && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

/** The value the document holds at a path, as given. */
function valueAt(doc: Document, path: ReadonlyArray<string | number>): unknown {
  return doc.getIn(path);
}

/** `inputs[2].path` */
export function keyPath(path: ReadonlyArray<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** The line of the node at a path, or of its nearest ancestor that exists (a missing key: the map that lacks it). */
function lineOf(doc: Document, lines: LineCounter, path: ReadonlyArray<string | number>): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

function lineOfKey(doc: Document, lines: LineCounter, path: ReadonlyArray<string | number>, key: string): number | undefined {
  const map: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (isMap(map)) {
    const pair = map.items.find((p) => (isNode(p.key) ? (p.key as { value?: unknown }).value : p.key) === key);
    if (pair && isNode(pair.key) && pair.key.range) return lines.linePos(pair.key.range[0]).line;
  }
  return lineOf(doc, lines, path);
}

function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** The published schema, shipped in the package beside dist/ (a relative docs/ path meant nothing after an npm install). */
const SCHEMA_FILE = fileURLToPath(new URL('../../../docs/headspace.workspace.v1.schema.json', import.meta.url));

function bad(file: string, detail: string, hint = `the ${MANIFEST_SCHEMA_ID} keys are in its JSON Schema, ${SCHEMA_FILE}`): EngineError {
  return new EngineError('BAD_MANIFEST', `${file} is refused: ${detail}; nothing was done`, { hint });
}
