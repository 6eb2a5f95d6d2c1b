/**
 * rustc (through cargo build, cargo check or clippy): a header
 * `error[E0308]: mismatched types` or `warning: unused variable: \`x\`` and,
 * on the next line, ` --> src/main.rs:3:5`. Headers without a location
 * (`error: could not compile …`, `warning: … generated 1 warning`) are
 * summaries of the ones before, not diagnostics; `note:`/`help:` are context.
 */
import { clipMessage, parseLocation } from './finding-text.js';
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { Diagnostic, FindingParser } from './finding-types.js';

const HEADER = /^(error|warning)(?:\[([A-Z]{1,3}\d{1,6})\])?: (.*)$/;
const ARROW = /^\s*--> (.*)$/;

export const parseRustc: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  let pending: Omit<Diagnostic, 'file' | 'line'> | null = null;
  for (const line of lines) {
    if (pending) {
      const arrow = ARROW.exec(line);
      const location = arrow ? parseLocation(arrow[1] ?? '') : null;
      if (location && location.line !== undefined) {
        const diagnostic: Diagnostic = { file: location.file, line: location.line, ...pending };
        if (location.col !== undefined) diagnostic.col = location.col;
        list.add(diagnostic);
      }
      pending = null;
      if (location) continue;
    }
    if (!line.startsWith('error') && !line.startsWith('warning')) continue;
    const header = HEADER.exec(line);
    if (!header) continue;
    pending = { severity: header[1] === 'warning' ? 'warning' : 'error', message: clipMessage(header[3] ?? '') };
    if (header[2] !== undefined) pending.code = header[2];
  }
  return list.toFinding('rustc');
};
