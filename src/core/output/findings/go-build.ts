/**
 * Go compile and vet errors, as `go build`, `go vet` and `go test` print them:
 * a `# example.com/pkg` header, then `./calc.go:4:9: undefined: x` lines with
 * no severity word (all of them stop the build). Only lines in such a block
 * count, so a test's own log lines (indented, without a column) never do.
 */
import { clipMessage } from './finding-text.js';
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { FindingParser } from './finding-types.js';

const DIAGNOSTIC = /^([^\s:][^:]*\.go):(\d{1,9}):(\d{1,9}): (.*)$/;

export const parseGoBuild: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  let inBlock = false;
  for (const line of lines) {
    if (line.startsWith('# ')) {
      inBlock = true;
      continue;
    }
    if (!inBlock) continue;
    const match = DIAGNOSTIC.exec(line);
    if (!match) {
      inBlock = false;
      continue;
    }
    list.add({ file: match[1] ?? '', line: Number(match[2]), col: Number(match[3]), severity: 'error', message: clipMessage(match[4] ?? '') });
  }
  return list.toFinding('go');
};
