/**
 * Core and the providers name no CLI flag and write no `headspace <verb>`
 * command line in any string they build (#11 item 3): a suggestion is a NextAction that each face
 * renders (the CLI as a shell command, MCP as a tool call), and a message
 * names an argument in plain words. Before, a model over MCP read
 * `--force` and `headspace export … --to PATH`, which it could not use.
 *
 * A provider's hint reaches an MCP client as it is, so src/providers is
 * held to the same rule as src/core.
 *
 * The scan reads every string and template literal in src/core and
 * src/providers (comments are not scanned). The allow-list says, for each
 * entry, why its text is not a suggestion to the caller: most are the argv a
 * provider gives bubblewrap or its own exec shim.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g;
// `list` is no verb (ls is), but a hint once named it; a command line ends at a space, a quote or punctuation (`run headspace doctor;`).
const COMMAND_LINE =
  /\bheadspace (?:create|run|stop|inspect|logs|ls-files|ls|list|status|destroy|gc|doctor|probe|put|declare|export|learn|explain|mcp|version)(?=$|[\s`'",;.)])/g;

interface Allowed {
  /** Path under src/, e.g. core/learn.ts. */
  file: string;
  /** The matched text. */
  text: string;
  why: string;
}

const ALLOWED: readonly Allowed[] = [
  ...['--memory-bytes', '--cpu-limit', '--pids-limit', '--storage-bytes', '--wall-clock-seconds', '--output-bytes', '--concurrency'].map((text) => ({
    file: 'core/policy/budget-fields.ts',
    text,
    why: 'the CLI flag column of the budget table the CLI builds its create options from; it moves to the verb table',
  })),
  ...argv(
    'core/manifest/git-input.ts',
    "the git argv of a manifest's repository input: resolving the ref, making the independent clone, comparing two commits",
    [
      '--verify',
      '--quiet',
      '--end-of-options',
      '--is-ancestor',
      '--no-local',
      '--no-hardlinks',
      '--no-checkout',
      '--detach',
      '--no-recurse-submodules',
      '--full-tree',
      '--name-status',
      '--no-renames',
      '--git-dir',
      '--null',
      '--list',
      '--no-includes',
    ],
  ),
  ...argv('core/run/detach-job.ts', "the shared supervisor's argv (bin/headspace-supervisor --shared <home>), started by a detached run", ['--shared']),
  ...argv('core/files/remove-unreachable-tree.ts', "coreutils rm's argv, removing a layer no job can reach", ['--one-file-system']),
  ...argv('providers/native/plan-bwrap.ts', 'the bubblewrap argv that builds the sandbox', [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    '--hostname',
    '--symlink',
    '--perms',
    '--file',
    '--proc',
    '--ro-bind',
    '--tmpfs',
    '--size',
    '--bind',
    '--chdir',
    '--seccomp',
    '--remount-ro',
    '--dev-bind',
  ]),
  ...argv('providers/native/probe.ts', "bubblewrap's argv for the readiness check (and its --version)", [
    '--version',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    '--ro-bind',
  ]),
  ...argv('providers/native/probe.ts', 'a host command for the operator who sets up cgroups (systemd-run), not a headspace call', ['--user', '--scope']),
  ...argv('providers/native/choose-cgroup-driver.ts', 'a host command for the operator who sets up cgroups (systemd-run), not a headspace call', [
    '--user',
    '--scope',
  ]),
  ...argv('providers/native/launch-job.ts', "the argv of the exec shim's launcher, bwrap's --args and setpriv", [
    '--launch',
    '--clearenv',
    '--setenv',
    '--args',
    '--reuid',
    '--regid',
    '--clear-groups',
  ]),
  ...argv('providers/native/plan-job-entry.ts', "the exec shim's Landlock rules and egress relay", [
    '--list',
    '--read',
    '--rx',
    '--rw',
    '--dev',
    '--landlock',
    '--relay',
  ]),
  ...argv('providers/native/plan-rlimits.ts', "the exec shim's rlimit and umask arguments", ['--rlimit', '--umask']),
  ...argv('providers/native/exec-helper.ts', 'the exec shim asked for its Landlock ABI', ['--abi']),
  ...argv('providers/native/layer-idmaps.ts', "the exec shim's idmapped bind of a fork's inherited layer", ['--idmap-bind']),
  ...argv('providers/native/reachable-paths.ts', "mount(8)'s bind argument", ['--bind']),
];

function argv(file: string, why: string, texts: readonly string[]): Allowed[] {
  return texts.map((text) => ({ file, text, why: `${why}: argv for another program, not a message` }));
}

/** Every string the file's literals hold, with its line. */
function literals(file: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line: match` for each flag or command line in `text`'s literals that the allow-list does not name. */
export function cliWordsIn(file: string, text: string, allowed: readonly Allowed[] = ALLOWED): string[] {
  return literals(file, text).flatMap(({ line, text: literal }) =>
    [...literal.matchAll(FLAG), ...literal.matchAll(COMMAND_LINE)]
      .map((m) => m[0])
      .filter((match) => !allowed.some((a) => a.file === file && a.text === match))
      .map((match) => `${file}:${line}: ${match}`),
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const SRC = join(REPO, 'src');
const SCANNED = ['core', 'providers'].map((dir) => join(SRC, dir));

describe('texts core and the providers write', () => {
  it('name no CLI flag and no headspace command line outside the allow-list', () => {
    const found = SCANNED.flatMap(sources).flatMap((path) => cliWordsIn(relative(SRC, path), readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });

  it('are scanned by a check that catches a planted flag and command line', () => {
    const planted =
      "const hint = 'pass --force';\nconst also = `run \\`headspace doctor\\` now`;\n// a comment saying --force is not a text\nconst more = 'run headspace doctor; or headspace list';\n";
    expect(cliWordsIn('providers/planted.ts', planted)).toEqual([
      'providers/planted.ts:1: --force',
      'providers/planted.ts:2: headspace doctor',
      'providers/planted.ts:4: headspace doctor',
      'providers/planted.ts:4: headspace list',
    ]);
    // A purpose naming the verb that made it ("headspace probe: …") is no command line.
    expect(cliWordsIn('core/planted.ts', "const purpose = 'headspace probe: containment scenarios';")).toEqual([]);
  });

  it('keep each allow-list entry in use, so a stale one cannot hide a new text', () => {
    const unused = ALLOWED.filter((a) => cliWordsIn(a.file, readFileSync(join(SRC, a.file), 'utf8'), []).every((f) => !f.endsWith(`: ${a.text}`)));
    expect(unused).toEqual([]);
  });
});
