/** HTTP defaults and the loopback test, kept apart from http.ts so stdio mode never loads the HTTP stack. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7340;

/** localhost, ::1 or 127.x.y.z (brackets allowed). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
