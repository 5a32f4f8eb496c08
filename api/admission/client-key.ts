import type { Request } from 'express';
import { clientBlock } from '../../shared/platform/net/client-block';

/**
 * The key a request's client is counted under by every per-address limit (the dashboard's rate limit, the
 * failed-authentication budget, the OAuth endpoints' limits): its address as Express resolves it behind
 * `TRUST_PROXY` hops, an IPv6 one reduced to its network (see {@link clientBlock}).
 */
export type ClientKey = (req: Request) => string;

/** The client key of a deployment whose IPv6 clients are counted by their network of `ipv6Prefix` bits. */
export function clientKeyOf(ipv6Prefix: number): ClientKey {
  return (req) => clientBlock(req.ip, ipv6Prefix);
}
