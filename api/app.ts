import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { buildLlmsTxt } from '../shared/contract/description/llms-txt';
import { buildOpenApiDocument } from '../shared/contract/description/openapi-document';
import { withX402, x402LlmsSection } from '../shared/contract/description/x402-description';
import { buildToolDefinitions } from '../shared/contract/mcp/tool-definitions';
import type { Operation } from '../shared/contract/operations/operation';
import { OPERATIONS, publishedOperations } from '../shared/contract/operations/registry';
import type { Backend } from '../shared/domain/backend';
import type { TokenService } from '../shared/domain/connections/token-service';
import type { Services } from '../shared/domain/services';
import type { Config } from '../shared/platform/config/config';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { KeyRing } from '../shared/platform/secrets/key-ring';
import { admission } from './admission/admission';
import { oauthFailureBudget } from './admission/oauth-failures';
import { admitPutOff } from './admission/put-off-admission';
import { chain } from './http/middleware-chain';
import { holdRateLimitHeaders, setHeldRateLimitHeaders } from './http/rate-limit-headers';
import { mcpRoute } from './mcp/mcp-route';
import { accessLog } from './middleware/access-log';
import { errorHandler } from './middleware/error-handler';
import { httpMetrics } from './middleware/http-metrics';
import { jsonBody } from './middleware/json-body';
import { matchOperation } from './middleware/match-operation';
import { stripPublicPath } from './middleware/public-path';
import { echoRequestId, requestContext } from './middleware/request-context';
import { requestOutcome } from './middleware/request-outcome';
import { requestValidator } from './middleware/request-validator';
import { requireHost } from './middleware/require-host';
import { setOperationAnswerHeaders, setSecurityHeaders } from './middleware/security-headers';
import { descriptionRoutes } from './routes/description-routes';
import { devConsentRoutes } from './routes/dev-consent-routes';
import { dispatchOperation } from './routes/dispatch-operation';
import { healthRoutes } from './routes/health-routes';
import { oauthRoutes } from './routes/oauth-routes';
import { rootPageRoutes } from './routes/root-page-routes';

/** `/v1` and below, matched as `app.use('/v1')` would (case-insensitive, whole segments). */
const V1_PATH = /^\/v1(?:\/|$)/i;

/** The MCP endpoint, matched as its router matches it (case-insensitive, with or without a trailing slash). */
const MCP_ENDPOINT = /^\/mcp\/?$/i;

/** What the HTTP app is built from; the process entry (or a test) supplies it. */
export interface AppDependencies {
  config: Config;
  backend: Backend;
  services: Services;
  tokens: TokenService;
  metrics: Metrics;
  logger: Logger;
  operations?: readonly Operation[];
  /** True once the process is shutting down: `/readyz` then answers 503 whatever the backend says. */
  stopping?: () => boolean;
  /** MCP: serve plain 2026-07-28 tool calls directly (default); false leaves every request to the SDK. */
  mcpDirectCalls?: boolean;
  /** Serve the dev consent page (`npm run dev` only; decided by `startApi`). */
  devConsent?: boolean;
}

/**
 * Builds the API's Express app (it does not listen). The registry is the route table: one chain matches,
 * admits (rate limits, authentication and the failed-authentication budget, in `api/admission/`), parses,
 * validates against the generated document, and dispatches.
 */
export function createApp({
  config,
  backend,
  services,
  tokens,
  metrics,
  logger,
  operations = OPERATIONS,
  stopping = () => false,
  mcpDirectCalls = true,
  devConsent = false,
}: AppDependencies): Express {
  const published = publishedOperations(operations);
  const openApiJson = JSON.stringify(withX402(buildOpenApiDocument(published, config.publicUrl), published, config.x402));
  const llmsTxt =
    buildLlmsTxt(published, { publicUrl: config.publicUrl, dashboardUrl: config.dashboardUrl }) + x402LlmsSection(published, config.x402);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  // The resources x402 payments name (api/routes/dispatch-operation.ts).
  app.set('public url', config.publicUrl.replace(/\/$/, ''));

  // First of all: with a PUBLIC_URL path, everything below sees `/v1/...` whether the prefix was kept or not.
  const publicPath = stripPublicPath(config.publicUrl);
  if (publicPath) app.use(publicPath);
  const admitted = admission({ config, tokens, backend, metrics, claimsAdmit: services.jobs.admitsWithClaim });
  const { admit, admitOperation, failures, clientKey, operationRate } = admitted;
  // Everything served outside /v1/ (descriptions, probes, OAuth, MCP) in one router that /v1/ requests
  // skip with one prefix test instead of walking its routers route by route.
  // MCP first: it is the busiest path here, and no other route shares its path.
  const site = express.Router();
  site.use(
    mcpRoute({
      config,
      admit,
      services,
      metrics,
      logger,
      directCalls: mcpDirectCalls,
      tools: buildToolDefinitions(published),
      taskTtlMs: config.idempotencyTtlSeconds * 1000,
      quoteNonces: backend.quoteNonces,
      operationRate,
    }),
  );
  site.use(
    descriptionRoutes(openApiJson, llmsTxt),
    healthRoutes(async () => !stopping() && backend.ready()),
  );
  site.use(rootPageRoutes(config.publicUrl));
  site.use(
    oauthRoutes({
      oauth: services.oauth,
      publicUrl: config.publicUrl,
      rateLimits: backend.rateLimits,
      clientKey,
      perMinute: config.rateLimitPerMinute,
      credentialFailures: oauthFailureBudget(failures),
    }),
  );
  if (devConsent)
    site.use(
      devConsentRoutes(
        services.oauth.consent,
        config.publicUrl,
        KeyRing.fromSecrets(config.connectorSecret, config.connectorSecretPrevious),
      ),
    );
  const operationChain = chain(
    matchOperation(operations),
    admitOperation,
    jsonBody,
    requestValidator(buildOpenApiDocument(operations, '/')),
    dispatchOperation(services),
  );
  // One app layer for every request: each layer the router walks costs its own matching and bookkeeping.
  // A path outside /v1/ that the site does not serve still ends in the operations' 404.
  app.use(
    chain(requestContext, requestOutcome(httpMetrics(metrics), accessLog(logger)), requireHost, (req, res, next) => {
      if (!V1_PATH.test(req.path)) {
        // MCP writes its head as its answer is written, as an operation does (api/mcp/mcp-route.ts).
        if (MCP_ENDPOINT.test(req.path)) holdRateLimitHeaders(res);
        else {
          echoRequestId(res);
          setSecurityHeaders(res);
        }
        site(req, res, (error?: unknown) => (error ? next(error) : operationChain(req, res, next)));
        return;
      }
      // An operation's id, fixed headers and RateLimit fields are written with its answer's head
      // (dispatchOperation, or just below).
      holdRateLimitHeaders(res);
      operationChain(req, res, next);
    }),
  );
  app.use(admitPutOff);
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!res.headersSent) {
      // A request refused before the branch above (requireHost) has no id in its answer yet.
      echoRequestId(res);
      setHeldRateLimitHeaders(res);
      if (V1_PATH.test(req.path)) setOperationAnswerHeaders(res);
      else if (MCP_ENDPOINT.test(req.path)) setSecurityHeaders(res);
    }
    next(error);
  });
  app.use(errorHandler(logger));
  return app;
}
