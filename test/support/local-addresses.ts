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
