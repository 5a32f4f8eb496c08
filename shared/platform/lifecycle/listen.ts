import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on `port` (0 for any free one) at `host` (undefined: every interface) and resolves with the
 * port it is bound to.
 */
export function listen(server: http.Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
