/**
 * Remote git URLs in a manifest (#17): which forms are taken, and how one is
 * shown. Taken: `https://`, `ssh://` and the scp-like `user@host:path`; also
 * `http://` and `git://`, but only towards a loopback host (a local mirror,
 * the tests), because neither authenticates the server. Refused: every other
 * scheme (`file://` would reach outside the manifest's directory, `ext::`
 * runs a command). A URL's password (or token) is a secret: it is replaced
 * by `***` wherever the URL is shown or recorded (plan, prepare, the receipt,
 * the store, the clone's own configuration keeps the URL without it), and the
 * manifest's digest is taken over the redacted form, so rotating a token is
 * not a change.
 */

/** The scp-like form git reads as ssh: `user@host:path`, no `/` before the colon. */
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)[^\0]+$/;
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True when a repository source is a remote URL rather than a path relative to the manifest. */
export function isRemoteGitSource(source: string): boolean {
  return URL_LIKE.test(source) || SCP_LIKE.test(source) || source.includes('::');
}

/** Why a remote source is refused, or null when it is taken. */
export function remoteSourceProblem(source: string): string | null {
  if (/[\0\s]/.test(source)) return 'a URL may not contain spaces or control characters';
  // A user or host that starts with '-' would reach ssh as an option (CVE-2017-1000117's class); git refuses it too, this says why first.
  if (/^(?:[a-z+]+:\/\/)?-|@-|^[a-z+]+:\/\/[^/]*@-/i.test(source)) return "a URL's user or host may not start with '-'";
  if (SCP_LIKE.test(source)) return null;
  if (!URL_LIKE.test(source)) return `'${shownUrl(source)}' is not a URL git may fetch from (https://, ssh:// or user@host:path)`;
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return `'${shownUrl(source)}' is not a valid URL`;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https' || scheme === 'ssh') return url.hostname === '' ? 'the URL names no host' : null;
  if (scheme === 'http' || scheme === 'git') {
    return LOOPBACK.has(url.hostname)
      ? null
      : `${scheme}:// does not authenticate the server; it is taken only towards a loopback host (use https:// or ssh://)`;
  }
  return `the ${scheme}:// scheme is not taken (use https://, ssh:// or user@host:path; a local repository is a path relative to the manifest)`;
}

/** The URL with any password replaced by `***`; what is ever shown or recorded. */
export function redactGitUrl(source: string): string {
  return source.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@:]*):[^@/]*@/, '$1:***@');
}

/** The URL a clone keeps as its origin: the user stays, the password goes. */
export function urlForClone(source: string): string {
  return source.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@:]*):[^@/]*@/, '$1@');
}

function shownUrl(text: string): string {
  const redacted = redactGitUrl(text);
  return redacted.length > 80 ? `${redacted.slice(0, 80)}…` : redacted;
}
