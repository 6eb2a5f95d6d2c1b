/**
 * What a job with a network allow-list sees, the same on every provider
 * that lists `network-allowlist` (#18): the egress socket at a fixed path,
 * an HTTP proxy and a SOCKS5 proxy on its own loopback, and the proxy
 * variables most tools read. Tools that ignore them get no network at all:
 * the job's namespace has no route and no DNS server.
 */

/** Where the engine's egress socket appears inside the sandbox. */
export const SANDBOX_EGRESS_SOCKET = '/run/headspace-egress.sock';
/** The in-sandbox HTTP proxy port (HTTP_PROXY, HTTPS_PROXY), on 127.0.0.1. */
export const EGRESS_HTTP_PORT = 3128;
/** The in-sandbox SOCKS5 port (ALL_PROXY), on 127.0.0.1. */
export const EGRESS_SOCKS_PORT = 1080;

/** The proxy variables, upper- and lower-case (curl reads only http_proxy lower-case; npm, pip and git read either). */
export function egressEnv(): Record<string, string> {
  const http = `http://127.0.0.1:${EGRESS_HTTP_PORT}`;
  const socks = `socks5h://127.0.0.1:${EGRESS_SOCKS_PORT}`;
  const vars: Record<string, string> = { HTTP_PROXY: http, HTTPS_PROXY: http, ALL_PROXY: socks, NO_PROXY: 'localhost,127.0.0.1,::1' };
  return { ...vars, ...Object.fromEntries(Object.entries(vars).map(([k, v]) => [k.toLowerCase(), v])) };
}

/** Where the trust bundle (system roots + the workspace CA) appears inside the sandbox when the job has secrets (#18 item 3). */
export const SANDBOX_CA_BUNDLE = '/run/headspace-ca-bundle.pem';

/** The variables that point the common TLS stacks at the bundle: OpenSSL (curl, Python ssl), Node, requests, curl, git. */
export function caBundleEnv(): Record<string, string> {
  return {
    SSL_CERT_FILE: SANDBOX_CA_BUNDLE,
    NODE_EXTRA_CA_CERTS: SANDBOX_CA_BUNDLE,
    REQUESTS_CA_BUNDLE: SANDBOX_CA_BUNDLE,
    CURL_CA_BUNDLE: SANDBOX_CA_BUNDLE,
    GIT_SSL_CAINFO: SANDBOX_CA_BUNDLE,
  };
}
