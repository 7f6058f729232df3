/**
 * What `npm start` tells a person beside the JSON log: one line with the URLs to open once the
 * service listens, and a plain sentence when it cannot listen (a busy port, a port it may not use).
 */

/** The base URL a person opens: PUBLIC_BASE_URL, else the listening address (a wildcard host shown as 127.0.0.1). */
export function serviceBaseUrl(host: string, port: number, publicBaseUrl?: string): string {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export function startLine(base: string): string {
  return `serving ${base} · dashboard ${base}/dashboard · documents ${base}/llms.txt (also /openapi.json, /AGENTS.md) · Ctrl-C stops\n`;
}

/** A listen failure a person can fix, in their words; undefined for anything else. */
export function listenErrorLine(error: unknown, host: string, port: number): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE')
    return `cannot listen on ${host}:${port}: the port is already in use (another process, perhaps another \`npm start\`). Stop it, or pick another port: PORT=${port + 1} npm start (PORT=0 takes any free port).\n`;
  if (code === 'EACCES')
    return `cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges). Pick another port, e.g. PORT=8402 npm start.\n`;
  if (code === 'EADDRNOTAVAIL')
    return `cannot listen on ${host}:${port}: this machine has no such address. Set HOST to one of its addresses, e.g. HOST=127.0.0.1.\n`;
  return undefined;
}
