import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OAuth client's redirect URI that a browser can land on: it answers every request with a small page, so
 * the test reads `code`, `state` and `iss` from the address the browser ends at.
 */
export async function startRedirectTarget(): Promise<{ url: string; origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>App</title><p>Back in the app.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/callback`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
