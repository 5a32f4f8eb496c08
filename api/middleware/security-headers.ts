import helmet from 'helmet';

/**
 * helmet, configured for a JSON API rather than web pages: a content policy that forbids everything (a
 * response rendered by a browser can load and run nothing), no framing, no referrer, no MIME sniffing,
 * HSTS, and same-origin resources. The page-only headers are off: each costs bytes on every answer.
 */
export const securityHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: { policy: 'no-referrer' },
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: 'deny' },
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});
