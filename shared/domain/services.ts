import type { Config } from '../platform/config/config';
import type { Metrics } from '../platform/metrics/metrics';
import { KeyRing } from '../platform/secrets/key-ring';
import type { Backend } from './backend';
import { IdentityService } from './connections/identity-service';
import { LinkService } from './connections/link-service';
import { TokenService } from './connections/token-service';
import { CreditService } from './credits/credit-service';
import { StoredJobIdKey } from './jobs/job-id-key';
import type { JobService } from './jobs/job-service';
import { JobViewer } from './jobs/job-viewer';
import { DailyBudget } from './ledger/daily-budget';
import { UsageService } from './ledger/usage-service';
import type { CimdFetchOptions } from './oauth/cimd-fetcher';
import type { OAuthServices } from './oauth/oauth-services';
import { createOAuthServices } from './oauth/oauth-services';
import { ThingService } from './things/thing-service';
import { withConnectionEvents } from './webhooks/connection-events';
import { creditEventsOn } from './webhooks/credit-events';
import { type EventTypeEntry, eventCatalogue } from './webhooks/event-catalogue';
import { type PaymentFacilitator, X402Checkout } from './x402/x402-checkout';

/** The domain functions handlers call; built once per process. */
export interface Services {
  links: LinkService;
  identity: IdentityService;
  usage: UsageService;
  credits: CreditService;
  things: ThingService;
  jobs: JobService;
  oauth: OAuthServices;
  /** Every event type this connector can send, with its data's schema: what `GET /v1/link/event-types` answers. */
  eventTypes: readonly EventTypeEntry[];
  /** x402 payments of paid calls; undefined when `X402` is off. */
  x402?: X402Checkout;
}

/** The domain services plus the token verifier the HTTP layer uses. */
export interface ServiceContainer {
  services: Services;
  tokens: TokenService;
  /** The connector secret's keys (current and, during a rotation, previous) for the few HTTP-side checks. */
  keys: KeyRing;
}

/** What the domain is built from. */
export interface ServicesDeps {
  config: Config;
  backend: Backend;
  metrics: Metrics;
  /** Tests only: lets the Client ID Metadata Document fetcher reach a local https server. */
  cimd?: CimdFetchOptions;
  /** The views of the registry's paid jobs, which shape the jobs the services hand out (default: as stored). */
  viewer?: JobViewer;
  /** The event catalogue of the registry's paid jobs (default: the connector's own events only). */
  eventTypes?: readonly EventTypeEntry[];
  /** The clock the daily budgets read their UTC day from (tests move it); default `Date.now`. */
  now?: () => number;
  /** The x402 facilitator (`X402_FACILITATOR_URL`), when `X402=on`. */
  facilitator?: PaymentFacilitator;
}

/** Builds the domain once per process from the configuration and a backend. Keys are derived here, once. */
export function createServices(deps: ServicesDeps): ServiceContainer {
  const { config, backend, metrics, cimd = {}, viewer = new JobViewer(), eventTypes = eventCatalogue([]) } = deps;
  const keys = KeyRing.fromSecrets(config.connectorSecret, config.connectorSecretPrevious);
  const tokens = new TokenService({
    keys,
    issuer: config.publicUrl,
    connections: backend.connections,
    onPreviousKey: () => metrics.previousSecretUses.inc({ secret: 'connector' }),
  });
  // Every path that creates or revokes a connection records its event; token checks read the plain store.
  const connections = withConnectionEvents(backend.connections, backend.events);
  const budget = new DailyBudget(config.dailyCreditLimit, deps.now);
  const credits = new CreditService(backend.credits, creditEventsOn(backend.events), config.billing, {
    onGranted: (granted) => metrics.creditsGranted.inc(granted),
    onExpired: (expired) => metrics.creditsExpired.inc(expired),
    onVoided: (voided) => metrics.creditsVoided.inc(voided),
  });
  const jobs = backend.jobService({
    jobIdKey: new StoredJobIdKey(backend.jobIdKeys, keys.current.jobIdKey),
    hooks: {
      onSubmitted: (operation, cost) => {
        metrics.jobsSubmitted.inc({ operation });
        metrics.creditsCharged.inc({ operation }, cost);
      },
      onReplayed: (operation) => metrics.jobsReplayed.inc({ operation }),
      onConflict: (operation) => metrics.idempotencyConflicts.inc({ operation }),
      onOverBudget: (operation) => metrics.jobsOverBudget.inc({ operation }),
      onInsufficient: (operation) => metrics.spendsRefused.inc({ operation }),
    },
    budget,
    viewer,
    billing: credits,
  });
  const x402 = x402Checkout(deps, credits);
  return {
    tokens,
    keys,
    services: {
      ...(x402 ? { x402 } : {}),
      links: new LinkService({
        connections,
        tokens,
        tokenTtlSeconds: config.tokenTtlSeconds,
        revokeUrl: config.dashboardUrl,
        hooks: {
          onIssued: () => metrics.tokensIssued.inc(),
          onRevoked: (count) => metrics.connectionsRevoked.inc(count),
        },
      }),
      identity: new IdentityService(backend.ledger, config.dashboardUrl, budget, credits),
      usage: new UsageService(backend.ledger, budget),
      credits,
      things: new ThingService(backend.things),
      jobs,
      eventTypes,
      oauth: createOAuthServices({
        config,
        stores: { oauth: backend.oauth, connections },
        tokens,
        hooks: {
          onIssued: () => metrics.tokensIssued.inc(),
          onRevoked: (count) => metrics.connectionsRevoked.inc(count),
        },
        cimd,
      }),
    },
  };
}

/** The x402 checkout, when `X402=on` and a facilitator is given: on the same credit store, events and metrics as every account. */
function x402Checkout({ config, backend, metrics, facilitator }: ServicesDeps, credits: CreditService): X402Checkout | undefined {
  if (!config.x402 || !facilitator) return undefined;
  const { lowThreshold } = credits;
  return new X402Checkout({
    settings: config.x402,
    facilitator,
    credits: backend.credits,
    events: creditEventsOn(backend.events),
    ...(lowThreshold === undefined ? {} : { lowThreshold }),
    hooks: {
      onGranted: (granted) => metrics.creditsGranted.inc(granted),
      onSettled: () => metrics.x402Payments.inc({ outcome: 'settled' }),
      onRefused: () => metrics.x402Payments.inc({ outcome: 'refused' }),
      onAccount: () => metrics.x402Payments.inc({ outcome: 'account' }),
    },
  });
}
