/**
 * Supervision rules (#16) as text, one form on every face:
 *
 *   deny-command:WORDS        refuse a job whose program is WORDS[0] and
 *                             whose arguments include each further word
 *   stuck:K[:block]           the same command failing the same way K times
 *                             in a row
 *   error-rate:X/N[:block]    X or more of the last N jobs failed
 *
 * WORDS are split like a --verify command (no shell, quotes only) and each
 * word is a glob: `*` any run of characters, `?` one character, everything
 * else literal. What a deny-command rule matches, and what it does not:
 * - the program: WORDS[0] against argv[0] and against its resolved name,
 *   the base name of argv[0] (`/usr/bin/rm` and `./rm` are `rm`);
 * - each further word against the arguments one by one, in any position
 *   (`deny-command:rm -rf` matches `rm -rf x` and `rm x -rf`, not
 *   `rm -r -f x` or `rm -fr x`: deny `rm` itself to cover every spelling);
 * - NOT inside a shell's script: `sh -c 'rm -rf x'` is the program `sh`
 *   with the arguments `-c` and one string. headspace does not parse shell
 *   and will not pretend to: deny `sh` (and `bash`, …) to keep scripts out,
 *   and a job run through a shell in a workspace with deny rules carries a
 *   warning saying its script was not inspected;
 * - NOT through wrappers (`env rm`, `nice rm`, `timeout 5 rm`, `busybox
 *   rm`, an interpreter's os.system): the program is the wrapper. Deny the
 *   wrapper too when that matters.
 * A deny rule is a tripwire for honest mistakes and obvious destruction,
 * not a sandbox: the sandbox is the workspace's isolation.
 */
import { re2 } from '../re2.js';
import { EngineError } from '../errors.js';
import { shellJoin } from '../result/markdown-sections.js';
import { splitCommandWords } from '../verification/command-words.js';

export type Rule =
  | { kind: 'deny-command'; words: string[]; text: string }
  | { kind: 'stuck'; count: number; block: boolean; text: string }
  | { kind: 'error-rate'; failures: number; window: number; block: boolean; text: string };

const MAX_COUNT = 1000;

const SYNTAX_HINT =
  "a rule is deny-command:WORDS (e.g. 'deny-command:rm -rf'), stuck:K[:block] (e.g. stuck:3) or error-rate:X/N[:block] (e.g. error-rate:5/10:block)";

/** Parses a rule's text into its canonical form (its `text` is what is stored and shown). */
export function parseRule(raw: string): Rule {
  if (typeof raw !== 'string' || raw.trim() === '') throw bad('a rule must be non-empty text');
  const text = raw.trim();
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const spec = colon < 0 ? '' : text.slice(colon + 1);
  switch (kind) {
    case 'deny-command': {
      const words = splitCommandWords(spec, 'deny-command');
      return { kind, words, text: `deny-command:${shellJoin(words)}` };
    }
    case 'stuck': {
      const match = /^(\d{1,4})(:block)?$/.exec(spec);
      const count = Number(match?.[1]);
      if (!match || count < 2 || count > MAX_COUNT) throw bad(`stuck takes K from 2 to ${MAX_COUNT}, optionally :block, not '${clip(spec)}'`);
      const block = match[2] !== undefined;
      return { kind, count, block, text: `stuck:${count}${block ? ':block' : ''}` };
    }
    case 'error-rate': {
      const match = /^(\d{1,4})\/(\d{1,4})(:block)?$/.exec(spec);
      const failures = Number(match?.[1]);
      const window = Number(match?.[2]);
      if (!match || failures < 1 || window < failures || window > MAX_COUNT)
        throw bad(`error-rate takes X/N with 1 ≤ X ≤ N ≤ ${MAX_COUNT}, optionally :block, not '${clip(spec)}'`);
      const block = match[3] !== undefined;
      return { kind, failures, window, block, text: `error-rate:${failures}/${window}${block ? ':block' : ''}` };
    }
    default:
      throw bad(`unknown rule kind '${clip(kind)}'`);
  }
}

/** True when the deny rule's words match this argv (see the module comment for exactly what is compared). */
export function denyMatches(words: readonly string[], argv: readonly string[]): boolean {
  const [program, ...required] = words;
  const first = argv[0] ?? '';
  const resolved = first.slice(first.lastIndexOf('/') + 1);
  const matchesProgram = globMatcher(program!);
  if (!matchesProgram(first) && !matchesProgram(resolved)) return false;
  const args = argv.slice(1);
  return required.every((word) => {
    const matches = globMatcher(word);
    return args.some((arg) => matches(arg));
  });
}

/** Programs whose `-c` argument is a script headspace does not parse. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox', 'fish']);

/** True for `sh -c …` and its kin: the script is one opaque argument to a deny rule. */
export function runsShellScript(argv: readonly string[]): boolean {
  const first = argv[0] ?? '';
  return SHELLS.has(first.slice(first.lastIndexOf('/') + 1)) && argv.slice(1).some((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
}

/** A glob as an RE2 pattern (linear time even on a huge argument). */
function globMatcher(glob: string): (text: string) => boolean {
  const pattern = [...glob].map((c) => (c === '*' ? '(?s:.*)' : c === '?' ? '(?s:.)' : re2().RE2JS.quote(c))).join('');
  const compiled = re2().RE2JS.compile(`^${pattern}$`);
  return (text) => compiled.matches(text);
}

function bad(message: string): EngineError {
  return new EngineError('BAD_ARGUMENT', message, { hint: SYNTAX_HINT });
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
