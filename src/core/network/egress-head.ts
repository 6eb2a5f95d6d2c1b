/**
 * A job's HTTP/1.x request head, parsed strictly (#18): CRLF lines, no
 * obsolete folding, token header names, a bounded count. Shared by the
 * proxy's own requests and the requests it reads inside a terminated TLS
 * tunnel (egress-intercept.ts), so both refuse the same smuggling shapes.
 */
export const HEADER_LINES = 100;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface ParsedHead {
  method: string;
  target: string;
  version: string;
  headers: Array<[string, string]>;
}

/** Strict: CRLF lines, no obsolete folding, token header names, bounded count. Null when malformed. */
export function parseHead(head: string): ParsedHead | null {
  const lines = head.split('\r\n');
  const requestLine = /^([A-Z]{1,16}) (\S{1,8000}) (HTTP\/1\.[01])$/.exec(lines[0] ?? '');
  if (!requestLine || lines.length - 1 > HEADER_LINES) return null;
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0 || /[\r\n\0]/.test(line)) return null;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return null; // also refuses a folded line (leading space) and "Name :"
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return { method: requestLine[1]!, target: requestLine[2]!, version: requestLine[3]!, headers };
}
