/**
 * The wire of `headspace serve` (#20): frames of one type byte, a 32-bit
 * big-endian length and that many bytes, both ways on one unix socket. The
 * thin client (bin/serve-client.cjs) writes the same frames without loading
 * this bundle; a test pins that both ends agree.
 *
 * Client → server: H the request (JSON: build, argv, cwd, env, TTY facts),
 *   I the whole stdin (only when the header says one follows), S a signal
 *   name (SIGINT/SIGTERM), Q stop the server (`serve --stop`).
 * Server → client: O stdout bytes, E stderr bytes, X the exit code (decimal),
 *   K the server will not answer this build or environment and is going away
 *   (the client starts a new one), D no handler took the signal: die by it,
 *   as an in-process CLI would.
 */
export type FrameType = 'H' | 'I' | 'S' | 'Q' | 'O' | 'E' | 'X' | 'K' | 'D';

/** A request header, a stdin or a chunk of output larger than this is refused: the bound of one frame. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export function frame(type: FrameType, payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/**
 * Feeds bytes in, calls `onFrame` per complete frame; false once the peer sent a frame over the bound (the caller
 * drops it). A frame's chunks are joined once it is whole: joining the pending bytes with every chunk copied a big
 * frame over and over, and one client sending a 64 MiB header slowed every other call to seconds (red team,
 * session 11).
 */
export function frameReader(onFrame: (type: FrameType, body: Buffer) => void): (chunk: Buffer) => boolean {
  let chunks: Buffer[] = [];
  let total = 0;
  return (chunk) => {
    chunks.push(chunk);
    total += chunk.length;
    while (total >= 5) {
      if (chunks[0]!.length < 5) chunks = [Buffer.concat(chunks, total)];
      const length = chunks[0]!.readUInt32BE(1);
      if (length > MAX_FRAME_BYTES) return false;
      if (total < 5 + length) break;
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      const type = whole.toString('latin1', 0, 1) as FrameType;
      const body = whole.subarray(5, 5 + length);
      const rest = whole.subarray(5 + length);
      chunks = rest.length === 0 ? [] : [rest];
      total = rest.length;
      onFrame(type, body);
    }
    return true;
  };
}

/** What the client sends first. */
export interface ServeRequest {
  v: 1;
  /** The client's build identity (dist/cli-bundle/build.json): a server of another build does not answer. */
  build: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  stdoutColumns?: number;
  stderrColumns?: number;
  stdoutHasColors?: boolean;
  stderrHasColors?: boolean;
  /** An I frame follows with all of stdin (argv names `-`). */
  stdin?: boolean;
  /** The client could not read its stdin (the errno code): readStdin throws it, as readFileSync(0) would have. */
  stdinError?: string;
  /** The client's umask: files a call makes get the caller's modes, so a server of another umask does not answer. */
  umask?: number;
}

const isString = (x: unknown): x is string => typeof x === 'string';
const optional = (x: unknown, kind: 'boolean' | 'number' | 'string') => x === undefined || typeof x === kind;

/**
 * The first frame's body as a request, or null when any field is not what a client sends (red team: an `env` of
 * null passed a `typeof` check and threw later, in a socket handler, ending the server and every call in it).
 * Checked whole here, so nothing past it meets a field of the wrong type.
 */
export function parseServeRequest(body: Buffer): ServeRequest | null {
  let r: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    r = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const env = r.env;
  const plainEnv =
    env !== null && typeof env === 'object' && !Array.isArray(env) && Object.getPrototypeOf(env) === Object.prototype && Object.values(env).every(isString);
  const fits =
    r.v === 1 &&
    isString(r.build) &&
    Array.isArray(r.argv) &&
    r.argv.every(isString) &&
    isString(r.cwd) &&
    plainEnv &&
    typeof r.stdoutIsTty === 'boolean' &&
    typeof r.stderrIsTty === 'boolean' &&
    optional(r.stdoutColumns, 'number') &&
    optional(r.stderrColumns, 'number') &&
    optional(r.stdoutHasColors, 'boolean') &&
    optional(r.stderrHasColors, 'boolean') &&
    optional(r.stdin, 'boolean') &&
    optional(r.stdinError, 'string') &&
    optional(r.umask, 'number');
  return fits ? (r as unknown as ServeRequest) : null;
}
