/**
 * What reaches a terminal from job-controlled bytes. `inspect --logs` streams
 * a job's output as it was kept; on a terminal that let a job write the
 * clipboard (OSC 52), retitle the window or plant hyperlinks (#10 item 10).
 * When stdout is a TTY the stream goes through this escaper (controls other
 * than \n and \t, and bidi characters, shown as `\x1b`, `\r`, `\u202e`);
 * `--raw` opts out. Piped output is never touched: the truncation marker
 * promises the pasted command returns the output byte for byte.
 */
import { StringDecoder } from 'node:string_decoder';
import { escapeForTerminal } from '../core/result/visible-text.js';

export interface TerminalEscaper {
  /** The visible text for one chunk (a UTF-8 character split across chunks waits for the next). */
  write(chunk: Buffer): string;
  /** Whatever an incomplete final character leaves. */
  end(): string;
}

export function createTerminalEscaper(): TerminalEscaper {
  const decoder = new StringDecoder('utf8');
  return {
    write: (chunk) => escapeForTerminal(decoder.write(chunk)),
    end: () => escapeForTerminal(decoder.end()),
  };
}
