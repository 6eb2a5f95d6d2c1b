/**
 * The redactor as an oracle (red team, session 12): on every tunnel of a job
 * with secrets the proxy masks an answer's end that could begin a secret's
 * value, so an answer ending in bytes the job chose (an echo, on any allowed
 * host) told it whether they begin the value. Extending a guess a character
 * at a time walked a 40-character value whole in 5,248 requests. Here the
 * job is given the value's first 4 characters (as a job knows `sk-p` or
 * `ghp_` of a real key) and guesses the next two, 16 candidates each
 * (the probe's value is hex after them), through a loopback HTTPS echo that
 * ends its answer with the guess. Escaped when it learns both characters;
 * contained when it learns one at most (the proxy cuts its network at the
 * first masked end).
 */
import { linesStartingWith, type JobFacts, type Judgement, type NetworkSideOutcome, type ProbeHost, type Scenario } from './probe-types.js';
import { TUNNEL_PY } from './scenarios-egress-fronting.js';
import { sideFirst } from './scenarios-egress-secrets.js';
import { openTlsUpstream } from './tls-upstream.js';

const DONE = 'probe-done';
const MAIN_ARGV = ['python3', '-c', `print('${DONE}')`];
/** What the job is told of the value: its first characters, as a key's well-known prefix. */
const KNOWN = 4;
const HEX = '0123456789abcdef';

const ORACLE_SCRIPT = `${TUNNEL_PY}
known = sys.argv[2]
def masked(guess):
    got = exchange('GET /echo?g=%s HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' % (guess, own))
    body = got.partition('\\r\\n\\r\\n')[2]
    if not body.startswith('echo:'): return None
    return body.endswith('*')
learned = ''
for step in range(2):
    found = '?'
    for c in '${HEX}':
        try: answer = masked(known + learned + c)
        except Exception as e: answer = None
        print('answer:', step, c, answer)
        if answer: found = c; break
    learned += found
    if found == '?': break
print('learned:', learned)
print('${DONE}')`;

export interface OracleFacts {
  side: NetworkSideOutcome | undefined;
  value: string;
}

export function judgeOracle(job: JobFacts, facts: OracleFacts): Judgement {
  const first = sideFirst(job, facts?.side, true);
  if ('verdict' in first) return first;
  const value = facts.value;
  const learned = linesStartingWith(first.side.output, 'learned:')[0] ?? '';
  const truth = value.slice(KNOWN, KNOWN + 2);
  if (learned.length >= 2 && learned.slice(0, 2) === truth)
    return {
      verdict: 'escaped',
      evidence: `the job learned the 2 characters of the secret's value after the ${KNOWN} it was given, one masked answer at a time`,
      lines: linesStartingWith(first.side.output, 'learned:').map(() => 'learned: <two characters of the value>'),
    };
  // Answers that never came back tested nothing: the first guesses must have been answered, masked or not.
  const answered = linesStartingWith(first.side.output, 'answer: 0 ').filter((l) => / (True|False)$/.test(l)).length;
  if (answered === 0) return { verdict: 'skipped', evidence: "no guess was answered by the echo: the redactor's answers were not tested" };
  return {
    verdict: 'contained',
    evidence: `the job learned ${learned.replace(/\?/g, '').length} character(s) past the ${KNOWN} it was given, never two: its network was cut at the first masked answer`,
  };
}

/** The echo's answer: `echo:` and the guess, at the very end of a Content-Length body. */
function echo(head: string): string[] {
  const guess = decodeURIComponent(/[?&]g=([^ &]*)/.exec(head)?.[1] ?? '');
  const body = `echo:${guess}`;
  return [`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`];
}

export const egressRedactorOracle: Scenario<OracleFacts> = {
  requires: ['network'],
  requiresFeatures: ['network-allowlist'],
  id: 'egress-redactor-oracle',
  title: "a secret's value guessed a character at a time from which echoed answers the redactor masks",
  attempts: `with a secret for a loopback HTTPS host that echoes a guess at the very end of its answer, and told the value's first ${KNOWN} characters, guess the next two (16 candidates each), taking an answer whose end came back masked for a right guess. A proxy whose masking answers that question more than once reads escaped`,
  async prepare(host: ProbeHost) {
    const upstream = await openTlsUpstream(echo);
    host.defer(() => upstream.close());
    const own = `127.0.0.1:${upstream.port}`;
    const token = host.token().replace(/[^0-9a-f]/g, '');
    const value = `hsor${(token + 'c0ffee0123456789').slice(0, 24)}`;
    const side = await host.tryNetworkWorkspace([own], ['python3', '-c', ORACLE_SCRIPT, String(upstream.port), value.slice(0, KNOWN)], {
      secrets: [{ name: 'HSPROBE_SECRET', value, host: own }],
      upstreamCa: upstream.caPem,
    });
    return { argv: MAIN_ARGV, observe: async () => ({ side, value }) };
  },
  judge: judgeOracle,
};
