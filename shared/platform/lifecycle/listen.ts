import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on `port` (0 for any free one) and resolves with the port it is bound to. */
export function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
