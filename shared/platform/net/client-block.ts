import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The key a per-address limit counts a client under. An IPv4 address is counted as it is. An IPv6 one is
 * counted by its network of `ipv6Prefix` bits (`2001:db8:1:2::/64`): one IPv6 host is given a whole /64 and
 * can change its address inside it at will, so a limit per exact address would give it 2^64 budgets. An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, how a dual-stack listener sees an IPv4 client) is the IPv4
 * address, never the mapped /64, which would put every IPv4 client in one budget.
 *
 * Every spelling of one IPv6 address gives the same key: compressed or not, upper or lower case, with a zone
 * id or an IPv4 tail. What is not an address (only a proxy trusted by mistake could hand one on, and such a
 * caller chooses its address anyway) is its own key; none at all is `unknown`.
 */
export function clientBlock(address: string | undefined, ipv6Prefix: number): string {
  if (address === undefined || address === '') return 'unknown';
  if (net.isIPv4(address)) return address;
  // The zone id (`fe80::1%eth0`) names the receiving interface, not the client.
  const bare = address.replace(/%.*$/s, '');
  if (!net.isIPv6(bare)) return address;
  const parsed = ipaddr.IPv6.parse(bare);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${bare}/${ipv6Prefix}`).toString()}/${ipv6Prefix}`;
}
