import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { networkInterfaces } from 'node:os';

/**
 * This machine's own addresses that are not loopback (link-local IPv6 left out: it needs a zone to dial).
 * A listener bound to loopback must refuse connections to these, one bound to every interface accepts them.
 */
export function nonLoopbackAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && !entry.address.toLowerCase().startsWith('fe80:'))
    .map((entry) => entry.address);
}

/**
 * Adds each address to the loopback interface (`ip -6 addr add <a>/128 dev lo nodad`) so that a test can
 * send from it; true when every one was added, false (having added none) where the machine does not allow
 * it (not root, or no iproute2). {@link removeLoopbackAddresses} takes them away again.
 */
export function addLoopbackAddresses(addresses: readonly string[]): boolean {
  const added: string[] = [];
  for (const address of addresses) {
    const run = spawnSync('ip', ['-6', 'addr', 'add', `${address}/128`, 'dev', 'lo', 'nodad'], { encoding: 'utf8' });
    if (run.status !== 0) {
      removeLoopbackAddresses(added);
      return false;
    }
    added.push(address);
  }
  return true;
}

/** Takes addresses added by {@link addLoopbackAddresses} off the loopback interface. */
export function removeLoopbackAddresses(addresses: readonly string[]): void {
  for (const address of addresses) spawnSync('ip', ['-6', 'addr', 'del', `${address}/128`, 'dev', 'lo'], { encoding: 'utf8' });
}

/** One request sent from a given local address (the socket's source), with its answer's status. */
export function requestFrom(
  localAddress: string,
  url: string,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        localAddress,
        agent: false,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
