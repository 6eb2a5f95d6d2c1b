/**
 * Reflection (#18 follow-up): HOST receives a secret's value and may send it
 * back — an echo endpoint, a CORS `Origin` answered in
 * `Access-Control-Allow-Origin`, an error page quoting a header — and the job
 * would then hold the value it was kept from. So on a tunnel of a job with
 * secrets everything the proxy hands back to the job passes through here,
 * and every secret's value in it is replaced, in each form a host may send
 * it back in (secret-value-forms.ts: as is, JSON-escaped, percent-encoded,
 * base64, hex):
 *
 *   - in a response head (status line, headers, chunked trailers) by the
 *     secret's placeholder: a head is re-serialised, its length free;
 *   - in a body or any other stream by a mask of the value's exact byte
 *     length (`[hs-redacted NAME]***…`, cut to length), so Content-Length,
 *     chunk sizes, WebSocket frames and anything else that counts bytes stay
 *     true; a chunked body is decoded first (a chunk boundary inside the
 *     value must not hide it) and re-chunked.
 *
 * A value split across reads is still caught: each stream keeps the last
 * (longest form − 1) bytes back until the next read or its end — always
 * that many, whatever they are. Held only when they could begin a value,
 * the hold itself answered the job's question "do these bytes begin a
 * value?" one character at a time, in when its bytes came back and in where
 * a re-chunked body's chunks ended (red team, session 12). Where bytes must
 * go without seeing what follows (a body's end, the stream's end), an end
 * that could begin a value (as many characters as encode 4 of its bytes) is
 * masked too (red team: an upstream that miscounts its Content-Length let
 * the job place a body's end inside the value, so its first half went
 * unmasked and its second half was the next stream's start). That mask is
 * an answer too — the job may have chosen those bytes through an echo, and
 * walked to a whole 40-character value in 5,248 requests (red team, session
 * 12) — so each one is reported (`probed`) and the proxy cuts the job's
 * network at the first. And after a complete response only another response
 * may follow: anything else (a miscounted body's rest) is refused, never
 * relayed as a stream of its own. Longer values are matched first, so a
 * value that begins another never leaves the longer one's rest in the clear.
 *
 * A compressed body cannot be scanned. Every request in a secret-bearing
 * job's tunnel asks for `Accept-Encoding: identity` (egress-intercept.ts), and
 * a response with a Content-Encoding (or a Transfer-Encoding other than
 * chunked) is refused (502 to the job, recorded) on every such tunnel,
 * whether or not the tunnel itself carried a value: the secret's host knows
 * the value anyway (it is its credential), and a value stored through one
 * tunnel can come back compressed through another (red team).
 * Anything this parser does not follow (an upgrade, a body without framing,
 * a stream that does not start as an HTTP response) is masked byte for byte
 * to the end; a response head it cannot read is refused.
 */
import type { JobSecret } from './egress-secrets.js';
import { occurrences, partialValueAtEnd, valueSetOf, type ValueSet } from './value-matcher.js';

export const RESPONSE_HEAD_MAX = 64 * 1024;
const CHUNK_LINE_MAX = 1024;

/**
 * A head's values replaced by their placeholders: the union of every occurrence (two values that overlap, or
 * one inside another, must not leave one's rest in the clear: red team), each stretch of overlapping
 * occurrences replaced by the placeholders of the secrets in it. Calls `seen` once per occurrence's secret.
 */
function replaceInHead(text: string, set: ValueSet, seen: (name: string) => void): string {
  let out = '';
  let at = 0;
  let stretch: { from: number; to: number; placeholders: string[] } | undefined;
  const close = () => {
    if (stretch === undefined) return;
    out += text.slice(at, stretch.from) + stretch.placeholders.join('');
    at = stretch.to;
    stretch = undefined;
  };
  for (const { at: from, value } of occurrences(text, set)) {
    seen(value.name);
    const to = from + value.bytes.length;
    if (stretch !== undefined && from < stretch.to) {
      stretch.to = Math.max(stretch.to, to);
      if (!stretch.placeholders.includes(value.placeholder)) stretch.placeholders.push(value.placeholder);
      continue;
    }
    close();
    stretch = { from, to, placeholders: [value.placeholder] };
  }
  close();
  return out + text.slice(at);
}

/**
 * A byte stream's values masked at equal length, across reads. Every occurrence of every value is masked, the
 * union of them where two overlap (so neither a value that begins another nor two that share bytes leave a part
 * in the clear). Bytes from the first place where a value may still be under way (the stream so far ends with a
 * value's first part) wait for the next read; so do the rest of an occurrence already begun, as mask.
 */
export class ValueMasker {
  /** Bytes not yet released (latin1). */
  private held = '';
  /**
   * Occurrences released in part, their rest in what is held (offsets into it, with that rest's mask): masked
   * whatever the next read brings, and carried on for as long as they reach past what is released. An
   * occurrence wholly in what is held is not carried: the next read's scan finds it again (carrying it as
   * rendered text let a longer value's start, held in the clear before a shorter value inside it, win over the
   * longer value's mask: red team).
   */
  private carried: Array<{ from: number; to: number; mask: string }> = [];
  /**
   * The last (longest form − 1) bytes released, as they came: after a quiet flush released a value's first bytes
   * (fewer than a probe's), the rest of that value in the next read is masked though no whole value is in it.
   */
  private context = '';
  private readonly set: ValueSet;
  private readonly seen: (name: string) => void;
  private readonly probed: () => void;
  /** `probed`: a flush masked an end that could begin a value (see the file's comment). */
  constructor(set: ValueSet, seen: (name: string) => void, probed: () => void = () => undefined) {
    this.set = set;
    this.seen = seen;
    this.probed = probed;
  }
  static of(secrets: readonly JobSecret[], seen: (name: string) => void = () => undefined, probed: () => void = () => undefined): ValueMasker {
    return new ValueMasker(valueSetOf(secrets), seen, probed);
  }
  push(chunk: Buffer): Buffer {
    return this.release(this.held + chunk.toString('latin1'), false);
  }
  /**
   * What is held back, now: at a stream's end, or when it has been quiet for QUIET_FLUSH_MS (a server that speaks
   * and waits for an answer must not wait for ever). An end that could begin a value is masked (the bytes that
   * would complete it may never come here); the stream may go on after a quiet flush.
   */
  flush(): Buffer {
    return this.release(this.held, true);
  }
  /** Whether bytes are held back: what a quiet flush would release. */
  holding(): boolean {
    return this.held.length > 0;
  }

  private release(text: string, final: boolean): Buffer {
    const carried = new Set(this.carried);
    const spans = [...this.carried];
    // Counted over what a quiet flush already released too: a value's first 3 bytes let go there, its next 30 here
    // must still count as one possible start, or they went unmasked and unreported (review, session 12).
    const partial = final ? Math.min(text.length, partialValueAtEnd(this.context + text, this.set)) : 0;
    // Whatever the bytes: a hold that depended on them told the job whether they begin a value (the file's comment).
    const hold = final ? text.length : Math.max(0, text.length - (this.set.longest - 1));
    if (partial > 0) spans.push({ from: text.length - partial, to: text.length, mask: '*'.repeat(partial) });
    // An end inside a whole value begun before this window (carried in) is covered as well (red team 2: an honest
    // body ending in a value whose tail begins a form cut the job's network).
    let covered = partial > 0 && this.carried.some((sp) => sp.from <= text.length - partial && sp.to >= text.length);
    for (const { at, value: v } of occurrences(text, this.set)) {
      spans.push({ from: at, to: at + v.bytes.length, mask: v.mask });
      if (at < hold) this.seen(v.name); // one at or after hold is found again with the next read
      if (at <= text.length - partial && at + v.bytes.length >= text.length) covered = true;
    }
    // A possible start masked anyway as a whole value (one value beginning another) answers nothing: no probe.
    if (partial > 0 && !covered) this.probed();
    // A value whose first bytes a quiet flush released: its rest here is masked. (Nothing to learn from it: the bytes
    // complete a whole value, which only a job already holding the value could have chosen.)
    const c = this.context.length;
    if (c > 0)
      for (const { at, value: v } of occurrences(this.context + text.slice(0, this.set.longest - 1), this.set))
        if (at < c && at + v.bytes.length > c) {
          spans.push({ from: 0, to: at + v.bytes.length - c, mask: v.mask.slice(c - at) });
          if (!this.carried.some((sp) => sp.from === 0)) this.seen(v.name);
        }
    spans.sort((a, b) => a.from - b.from);
    // The released part with every span masked (their union where they overlap).
    let out = '';
    let at = 0;
    for (const sp of spans) {
      if (sp.from >= hold) break;
      if (sp.to <= at) continue;
      if (sp.from > at) out += text.slice(at, sp.from);
      const from = Math.max(at, sp.from);
      const to = Math.min(sp.to, hold);
      out += sp.mask.slice(from - sp.from, to - sp.from);
      at = to;
    }
    if (at < hold) out += text.slice(at, hold);
    this.context = (this.context + text.slice(0, hold)).slice(-Math.max(0, this.set.longest - 1));
    this.held = text.slice(hold);
    // Every span that reaches past hold goes on, at the held text's offsets — one carried in whole too, when the
    // held text is still all a form's possible start (hold 0): dropping it let its bytes go in the clear once a
    // later read showed they began no form (red team, second pass).
    // (An occurrence wholly in the held text is not carried: the next read's scan finds it again.)
    this.carried = spans
      .filter((sp) => sp.to > hold && (sp.from < hold || carried.has(sp)))
      .map((sp) => ({ from: Math.max(0, sp.from - hold), to: sp.to - hold, mask: sp.mask.slice(Math.max(0, hold - sp.from)) }));
    return Buffer.from(out, 'latin1');
  }
}

export interface ResponseHooks {
  /** The method of the request the next final response answers (HEAD has no body); undefined when unknown. */
  nextMethod(): string | undefined;
  redacted(name: string): void;
  /** A flush masked an end that could begin a value, bytes the job may have chosen: a probe of the redactor (the file's comment). */
  probed(): void;
}

type Mode =
  | { kind: 'head' }
  | { kind: 'length'; left: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; left: number }
  | { kind: 'chunk-end' }
  | { kind: 'trailers' }
  | { kind: 'raw' };

/** What one read of the upstream gives the job: bytes to send, or a refusal that ends the tunnel. */
export type Redacted = { out: Buffer; refused?: undefined } | { out: Buffer; refused: string };

/** The upstream → job side of one secret-bearing TLS tunnel: HTTP/1.x responses, one after another. */
export class ResponseRedactor {
  private buffered = '';
  private mode: Mode = { kind: 'head' };
  /** Whether a response head came: only the stream's very start may be something other than a response. */
  private answered = false;
  private readonly set: ValueSet;
  private body: ValueMasker;
  private readonly hooks: ResponseHooks;
  /** A probe was made: nothing after the probing response is relayed (a pipelined second answer in the same read was one more). */
  private probedAt = false;
  constructor(secrets: readonly JobSecret[], hooks: ResponseHooks) {
    this.hooks = {
      ...hooks,
      probed: () => {
        this.probedAt = true;
        hooks.probed();
      },
    };
    this.set = valueSetOf(secrets);
    this.body = this.masker();
  }

  private masker(): ValueMasker {
    return new ValueMasker(
      this.set,
      (n) => this.hooks.redacted(n),
      () => this.hooks.probed(),
    );
  }

  push(chunk: Buffer): Redacted {
    this.buffered += chunk.toString('latin1');
    const out: string[] = [];
    const emit = (b: Buffer | string) => out.push(typeof b === 'string' ? b : b.toString('latin1'));
    const done = (): Buffer => Buffer.from(out.join(''), 'latin1');
    while (this.buffered.length > 0 && !this.probedAt) {
      const m = this.mode;
      if (m.kind === 'head') {
        // Not HTTP at the start (a server that speaks first, another protocol in the tunnel): masked byte for byte
        // from here on, never held waiting for a head that will not come. After a response, only a response may
        // follow: anything else is the rest of a body the upstream miscounted, whose start may complete a value.
        if (!'HTTP/'.startsWith(this.buffered.slice(0, 5))) {
          if (this.answered) return { out: done(), refused: 'bytes after a complete response that are not a response' };
          this.mode = { kind: 'raw' };
          continue;
        }
        this.answered = true;
        const end = this.buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.buffered.length > RESPONSE_HEAD_MAX) return { out: done(), refused: 'response head too large' };
          break;
        }
        const head = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 4);
        const next = this.onHead(head);
        if (typeof next === 'string') return { out: done(), refused: next };
        emit(`${this.redactHead(head)}\r\n\r\n`);
        this.mode = next;
      } else if (m.kind === 'length' || m.kind === 'chunk-data') {
        const piece = this.buffered.slice(0, m.left);
        this.buffered = this.buffered.slice(piece.length);
        m.left -= piece.length;
        const masked = this.body.push(Buffer.from(piece, 'latin1'));
        if (m.kind === 'length') {
          emit(masked);
          if (m.left === 0) {
            emit(this.body.flush());
            this.mode = { kind: 'head' };
          }
        } else {
          if (masked.length > 0) emit(chunkOf(masked));
          if (m.left === 0) this.mode = { kind: 'chunk-end' };
        }
      } else if (m.kind === 'chunk-size' || m.kind === 'chunk-end') {
        const eol = this.buffered.indexOf('\r\n');
        if (eol < 0) {
          if (this.buffered.length > CHUNK_LINE_MAX) return { out: done(), refused: 'malformed chunked response' };
          break;
        }
        const line = this.buffered.slice(0, eol);
        this.buffered = this.buffered.slice(eol + 2);
        if (m.kind === 'chunk-end') {
          if (line !== '') return { out: done(), refused: 'malformed chunked response' };
          this.mode = { kind: 'chunk-size' };
          continue;
        }
        const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(line);
        if (!size) return { out: done(), refused: 'malformed chunked response' };
        const n = parseInt(size[1]!, 16);
        if (n > 0) this.mode = { kind: 'chunk-data', left: n };
        else {
          const rest = this.body.flush();
          if (rest.length > 0) emit(chunkOf(rest));
          this.mode = { kind: 'trailers' };
        }
      } else if (m.kind === 'trailers') {
        if (this.buffered.startsWith('\r\n')) {
          this.buffered = this.buffered.slice(2);
          emit('0\r\n\r\n');
          this.mode = { kind: 'head' };
          continue;
        }
        const end = this.buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.buffered.length > RESPONSE_HEAD_MAX) return { out: done(), refused: 'response trailers too large' };
          break;
        }
        emit(`0\r\n${this.redactHead(this.buffered.slice(0, end))}\r\n\r\n`);
        this.buffered = this.buffered.slice(end + 4);
        this.mode = { kind: 'head' };
      } else {
        emit(this.body.push(Buffer.from(this.buffered, 'latin1')));
        this.buffered = '';
      }
    }
    if (this.probedAt) this.buffered = '';
    return { out: done() };
  }

  /** Whether a body's bytes are held back (a quiet flush would release them); a head waits to be whole. */
  holding(): boolean {
    return this.mode.kind !== 'head' && this.mode.kind !== 'trailers' && this.body.holding();
  }

  /**
   * The upstream has been quiet for QUIET_FLUSH_MS with body bytes held back: they go now, framed as the body is
   * (a chunk of their own in a chunked body), masked as at an end. A server that sends and then waits for the
   * job (a greeting, a WebSocket message, an event of a stream) would otherwise wait for ever.
   */
  quiet(): Buffer {
    if (!this.holding()) return Buffer.alloc(0);
    const rest = this.body.flush();
    if (rest.length === 0) return rest;
    const chunked = this.mode.kind === 'chunk-data' || this.mode.kind === 'chunk-size' || this.mode.kind === 'chunk-end';
    return chunked ? Buffer.from(chunkOf(rest), 'latin1') : rest;
  }

  /** The upstream ended: whatever is held back goes (masked), and a head never completed goes redacted, a value's possible first part at its end masked. */
  end(): Buffer {
    // The possible first part is found in the bytes as they came: redacting first could hide a longer value's start.
    const partial = partialValueAtEnd(this.buffered, this.set);
    if (partial > 0 && (this.mode.kind === 'head' || this.mode.kind === 'trailers')) this.hooks.probed();
    const held =
      this.mode.kind === 'head' || this.mode.kind === 'trailers'
        ? this.redactHead(this.buffered.slice(0, this.buffered.length - partial)) + '*'.repeat(partial)
        : '';
    this.buffered = '';
    return Buffer.concat([this.body.flush(), Buffer.from(held, 'latin1')]);
  }

  private redactHead(text: string): string {
    return replaceInHead(text, this.set, (n) => this.hooks.redacted(n));
  }

  /** The body framing a response head announces, or why the response is refused. */
  private onHead(head: string): Mode | string {
    const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(head);
    if (!status) return 'malformed response head';
    const code = Number(status[1]);
    const headers = head
      .split('\r\n')
      .slice(1)
      .map((line) => {
        const colon = line.indexOf(':');
        return [
          line.slice(0, Math.max(0, colon)).trim().toLowerCase(),
          line
            .slice(colon + 1)
            .trim()
            .toLowerCase(),
        ] as const;
      });
    const all = (name: string) =>
      headers
        .filter(([n]) => n === name)
        .flatMap(([, v]) =>
          v
            .split(',')
            .map((c) => c.trim())
            .filter((c) => c !== ''),
        );
    if (code === 101) return { kind: 'raw' };
    if (code >= 100 && code < 200) return { kind: 'head' };
    const method = this.hooks.nextMethod();
    this.body = this.masker();
    const codings = all('transfer-encoding');
    const encoded = all('content-encoding').filter((c) => c !== 'identity');
    const compressed = [...encoded, ...codings.filter((c) => c !== 'chunked')];
    // Named only from a fixed list: the host's own words here may be a value it reflects (red team, session 12: a
    // value copied into Content-Encoding reached the job in this refusal, and the record, in the clear).
    if (compressed.length > 0) return `compressed: ${KNOWN_CODINGS.has(compressed[0]!) ? compressed[0] : 'a coding not listed here'}`;
    if (method === 'HEAD' || code === 204 || code === 304) return { kind: 'head' };
    if (codings.length > 0) return codings[codings.length - 1] === 'chunked' ? { kind: 'chunk-size' } : { kind: 'raw' };
    const lengths = all('content-length');
    if (lengths.length === 0) return { kind: 'raw' };
    if (new Set(lengths).size !== 1 || !/^\d{1,15}$/.test(lengths[0]!)) return 'ambiguous response framing';
    const left = Number(lengths[0]);
    return left === 0 ? { kind: 'head' } : { kind: 'length', left };
  }
}

/**
 * How long a stream may be quiet with bytes held back before they go (ValueMasker.flush): long enough that a value
 * arriving in two reads is seldom split by it, short enough that a server waiting for the job is answered.
 */
export const QUIET_FLUSH_MS = 50;

/** Content and transfer codings a refusal names as they are; any other is named by none of its characters. */
const KNOWN_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'compress', 'x-compress', 'zstd', 'dcb', 'dcz', 'exi', 'pack200-gzip', 'aes128gcm']);

function chunkOf(bytes: Buffer): string {
  return `${bytes.length.toString(16)}\r\n${bytes.toString('latin1')}\r\n`;
}
