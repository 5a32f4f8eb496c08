import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';

// Every IPv4 range that is not the public internet: "this network", private, shared (CGNAT), loopback,
// link-local (cloud metadata lives at 169.254.169.254), IETF protocol assignments, documentation, 6to4 relay
// anycast, benchmarking, multicast, reserved and broadcast.
const NON_PUBLIC_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// IPv6 ranges refused whatever they hold: IPv4-compatible (::/96, deprecated, which also holds :: and ::1),
// IPv4-translated (::ffff:0:0:0/96), local-use NAT64, discard, IETF protocol assignments (Teredo among them),
// documentation (both blocks), 6to4 (deprecated; a relay would reach whatever IPv4 address it embeds),
// unique-local, link-local, site-local and multicast.
const NON_PUBLIC_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

// IPv6 prefixes that carry an IPv4 address in their last 32 bits and reach it: IPv4-mapped (a dual-stack
// socket dials the IPv4 host) and well-known NAT64 (an IPv6-only cluster's DNS64 answers public IPv4 hosts
// this way, so only the non-public IPv4 ranges inside it are refused).
const EMBEDDING_V4 = ['::ffff:', '64:ff9b::'];

/**
 * The ranges as a `net.BlockList`, which parses every spelling of an address itself (hex or dotted tail,
 * zero runs, upper case), so no address is ever taken apart by hand here.
 */
const NON_PUBLIC = new net.BlockList();
for (const [prefix, bits] of NON_PUBLIC_V4) {
  NON_PUBLIC.addSubnet(prefix, bits, 'ipv4');
  for (const embedding of EMBEDDING_V4) NON_PUBLIC.addSubnet(`${embedding}${prefix}`, 96 + bits, 'ipv6');
}
for (const [prefix, bits] of NON_PUBLIC_V6) NON_PUBLIC.addSubnet(prefix, bits, 'ipv6');

/** True when `address` (an IP literal) is on the public internet; anything unparsable is not. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  // A zone index only ever names a link-scoped address, and the block list would not match it with one.
  if (family === 6 && address.includes('%')) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * True when a URL's host is non-public by itself, before any lookup: a non-public IP literal (brackets
 * allowed), or `localhost` and its subdomains (RFC 6761). Other names are judged by {@link checkedLookup}
 * when they resolve.
 */
export function isNonPublicHost(hostname: string): boolean {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal)) return !isPublicAddress(literal);
  const name = literal.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** How {@link checkedLookup} judges what a host name resolves to. */
export interface LookupPolicy {
  /** Host name → address: these hosts, and only these, may resolve to a non-public address (tests only). */
  testHosts?: Record<string, string>;
  /** Accepts non-public addresses too: the operator's explicit opt-in for a receiver inside their network. */
  allowPrivate?: boolean;
  /** The error reported for a host that does not resolve, or that resolves to a non-public address. */
  refuse(reason: 'unresolved' | 'not-public'): Error;
}

/**
 * A `lookup` for `http(s).request` that resolves every address of the host, refuses the lot if any is not
 * public (unless the policy allows private ones), and dials the first. The connection then goes to the very
 * address that was checked, so a second DNS answer cannot swap it (DNS rebinding).
 */
export function checkedLookup(policy: LookupPolicy): LookupFunction {
  const testHosts = policy.testHosts ?? {};
  return (hostname, options, callback) => {
    const done = (error: Error | null, address?: string, family?: number) => {
      if (error) return callback(error as NodeJS.ErrnoException, '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, [
          { address: address!, family: family! },
        ]);
      callback(null, address!, family!);
    };
    const mapped = testHosts[hostname];
    if (mapped) return done(null, mapped, mapped.includes(':') ? 6 : 4);
    dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error || addresses.length === 0) return done(policy.refuse('unresolved'));
      if (!policy.allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address))) return done(policy.refuse('not-public'));
      done(null, addresses[0].address, addresses[0].family);
    });
  };
}
