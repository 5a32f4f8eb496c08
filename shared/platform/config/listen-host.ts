import net from 'node:net';
import { makeValidator } from 'envalid';
import { LOOPBACK_HOSTS } from './validators';

/** `HOST`: an IPv4 or IPv6 address to listen on, such as `127.0.0.1`, `::1`, `0.0.0.0` or `::`. */
export const listenHostAddress = makeValidator<string>((input) => {
  const address = String(input).trim();
  if (net.isIP(address) === 0) throw new Error('must be an IPv4 or IPv6 address, such as 127.0.0.1, ::1, 0.0.0.0 or ::');
  return address;
});

/**
 * The address the processes' listeners bind; undefined means every interface. `HOST` wins. Without it, a
 * loopback `PUBLIC_URL` (a developer's machine) binds the matching loopback address, so nothing is reachable
 * from the network; any other `PUBLIC_URL` binds every interface. `localhost` binds 127.0.0.1: clients that
 * try `::1` first fall back to it, while a machine without IPv6 could not bind `::1` at all.
 *
 * `::` becomes undefined, Node's own unspecified address: IPv6 and IPv4 together, and IPv4 alone on a kernel
 * without IPv6, where binding `::` itself would fail.
 */
export function resolveListenHost(host: string | undefined, publicUrl: string): string | undefined {
  if (host !== undefined) return host === '::' ? undefined : host;
  const hostname = new URL(publicUrl).hostname;
  if (!LOOPBACK_HOSTS.has(hostname)) return undefined;
  return hostname === '[::1]' ? '::1' : '127.0.0.1';
}

/** True when a listener bound to `host` can only be reached from this machine (127.0.0.0/8 or ::1). */
export function isLoopbackListener(host: string | undefined): boolean {
  if (host === undefined) return false;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1' || /^::ffff:127\./i.test(host);
}
