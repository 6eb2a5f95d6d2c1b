/**
 * A Python program that dies reports the last traceback's exception with its
 * innermost frame; of chained tracebacks, the last one printed. A script
 * that does not parse reports its SyntaxError as a diagnostic at file:line.
 */
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

const DIR = '/tmp/headspace-findings/python';

describe('python exception findings', () => {
  it('names the exception and the innermost frame', () => {
    const findings = parseFindings(readFixture('python', 'crash'), { maxItems: 5 });
    expect(findings).toEqual([
      { kind: 'exception', language: 'python', type: 'ZeroDivisionError', message: 'division by zero', location: { file: `${DIR}/stats.py`, line: 2 } },
    ]);
    expect(findingLines(findings)).toEqual([`exception ZeroDivisionError: division by zero at ${DIR}/stats.py:2`]);
  });

  it('takes the last of chained tracebacks', () => {
    expect(parseFindings(readFixture('python', 'chained'), { maxItems: 5 })).toEqual([
      { kind: 'exception', language: 'python', type: 'RuntimeError', message: 'could not parse the header', location: { file: `${DIR}/crash.py`, line: 7 } },
    ]);
  });

  it('reports a SyntaxError as a diagnostic', () => {
    expect(parseFindings(readFixture('python', 'syntax'), { maxItems: 5 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'python',
        errors: 1,
        warnings: 0,
        more: 0,
        items: [{ file: `${DIR}/broken.py`, line: 3, severity: 'error', code: 'SyntaxError', message: "expected ':'" }],
      },
    ]);
  });

  it('keeps a dotted exception type and one without a message', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "<string>", line 1, in <module>',
      'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
    ].join('\n');
    expect(parseFindings(log, { maxItems: 5 })).toMatchObject([
      { type: 'json.decoder.JSONDecodeError', message: 'Expecting value: line 1 column 1 (char 0)', location: { file: '<string>', line: 1 } },
    ]);
    const interrupted = ['Traceback (most recent call last):', '  File "loop.py", line 3, in <module>', '    time.sleep(1)', 'KeyboardInterrupt'].join('\n');
    expect(parseFindings(interrupted, { maxItems: 5 })).toMatchObject([{ type: 'KeyboardInterrupt', message: '', location: { file: 'loop.py', line: 3 } }]);
  });
});
