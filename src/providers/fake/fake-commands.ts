/**
 * The fake provider's scripted command language. Each command is a small,
 * deterministic behaviour so the whole engine is testable with no host
 * isolation. `a && b` runs b only when a succeeded.
 *
 *   echo WORDS…        print WORDS to stdout
 *   stderr WORDS…      print WORDS to stderr
 *   true | false       exit 0 | exit 1
 *   fail N | exit N    exit with status N
 *   sleep SECONDS      sleep on the engine's clock (virtual in tests)
 *   block              wait until stopped or aborted (real time); a stop reaches it as
 *                      TERM and it prints `block: TERM received from stop, ending`
 *   alloc BYTES        allocate and hold until the job ends; past the memory budget (which
 *                      the workspace's running jobs share) the "kernel" kills it (OOM)
 *   flood BYTES        print BYTES of output in lines
 *   trace N [K]        the seed's N-step LCG/Collatz trace, ending with answer=…;
 *                      with K, an `ERROR: checksum drift at step K` line at step K
 *   write PATH TEXT…   write TEXT to a workspace file (PATH relative to the job's cwd)
 *   cat PATH           print a workspace file (PATH relative to the job's cwd)
 *   rm PATH            remove a workspace file or directory tree (no error when missing)
 *   ln -s TARGET PATH  make a symbolic link (its text kept, never followed)
 *   chmod MODE PATH    set a file's permission bits (octal, e.g. 755)
 *   env NAME           print the value of NAME from the job's environment
 *   ls                 list workspace files
 *   fetch URL          a simulated HTTP(S) request to URL's host and port: the engine's
 *                      egress decision for it (#18) is taken and recorded; allowed prints
 *                      `fetch: 200 from HOST (simulated)`, denied prints the reason to
 *                      stderr and exits 56 (curl's "failure receiving"); without a
 *                      network allow-list there is no network: exit 6 (could not resolve)
 *   fetch URL NAME     the same, sending the value of the job's NAME as a header: the
 *                      secrets decision (#18 item 3) is simulated too: a placeholder to
 *                      its own host over https prints `(simulated; NAME substituted)`,
 *                      to another host or over http it is blocked (exit 56)
 * Anything else: 126 when it names an existing workspace file (fake files are
 * never executable), otherwise 127 (command not found).
 */
export const FAKE_COMMANDS = [
  'echo',
  'stderr',
  'true',
  'false',
  'fail',
  'exit',
  'sleep',
  'block',
  'alloc',
  'flood',
  'trace',
  'write',
  'cat',
  'rm',
  'ln',
  'chmod',
  'env',
  'ls',
  'fetch',
] as const;

/** Splits argv on `&&` tokens into a sequence of commands. */
export function splitSequence(argv: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const word of argv) {
    if (word === '&&') out.push([]);
    else out[out.length - 1]!.push(word);
  }
  return out.filter((c) => c.length > 0);
}

/**
 * The trace the seed's e2e test used: an LCG drives a Collatz walk per step;
 * about 86 bytes a line, so 20,000 steps is about 1.7 MB. The final line is
 * the answer a reader needs.
 */
export function* traceLines(steps: number, errorAt = -1): Generator<string> {
  let seed = 12345;
  let checksum = 0;
  for (let step = 0; step < steps; step++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    let n = (seed % 100000) + 1;
    let length = 0;
    while (n !== 1 && length < 1000) {
      n = n % 2 === 0 ? n / 2 : 3 * n + 1;
      length++;
    }
    checksum = (checksum + length * (step + 1)) % 1000000007;
    if (step === errorAt) yield `ERROR: checksum drift at step ${step}\n`;
    yield `trace step=${String(step).padStart(6, '0')} seed=${String(seed).padStart(10, '0')} unit=${(seed / 2147483648).toFixed(9)} collatz_len=${String(length).padStart(4, '0')} checksum=${String(checksum).padStart(10, '0')}\n`;
  }
  yield `answer=${checksum}\n`;
}
