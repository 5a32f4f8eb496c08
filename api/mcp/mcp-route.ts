import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { mcpBodyLimit } from '../../shared/contract/operations/body-limit';
import type { Operation } from '../../shared/contract/operations/operation';
import { resourceMetadataUrl } from '../../shared/domain/oauth/resource-metadata-url';
import type { QuoteNonceStore } from '../../shared/domain/spend/quote-nonce-store';
import { SpendQuotes } from '../../shared/domain/spend/spend-quote';
import type { Config } from '../../shared/platform/config/config';
import { ForbiddenError, MethodNotAllowedError, UnauthorizedError } from '../../shared/platform/errors/problems';
import { KeyRing } from '../../shared/platform/secrets/key-ring';
import { admittedPrincipal, state } from '../http/locals';
import { chain } from '../http/middleware-chain';
import { setHeldRateLimitHeaders } from '../http/rate-limit-headers';
import { writeMcpJson } from '../http/write-operation-answer';
import { jsonBody } from '../middleware/json-body';
import { echoRequestId } from '../middleware/request-context';
import { setOperationAnswerHeaders } from '../middleware/security-headers';
import { answerDirectCall, directCallMatcher } from './direct-tool-call';
import type { McpCaller, McpDependencies } from './mcp-context';
import { mcpErrorLog } from './mcp-error-log';
import { mcpHttpHandler } from './mcp-http-handler';
import { mcpServerFactory } from './mcp-server-factory';
import { serveFetchHandler } from './serve-fetch-handler';
import { SpendConfirmation } from './spend-confirmation';
import { compileArgumentChecks } from './tool-calls';
import { openToPayers, payableTool } from './x402-tool-call';

/**
 * Sets the head an answer the SDK writes starts with: the security headers, `Cache-Control: no-store`, the
 * request id and the RateLimit fields admission held. (A direct answer writes them with its head.)
 */
function setMcpAnswerHeaders(res: Response): void {
  setOperationAnswerHeaders(res);
  echoRequestId(res);
  setHeldRateLimitHeaders(res);
}

/** The principal of an agent without a token until it pays: no subject; a paid call runs as the payer's account. */
const AGENT = { subject: '', connectionId: 'x402', issuedAt: 0, expiresAt: 0 };

/** The MCP endpoint's path on the API port. */
export const MCP_PATH = '/mcp';

/**
 * What the admission step and the body parser see of `/mcp`: not a registry operation, but admitted exactly
 * like one with bearer auth, and its body limit that of the largest tool's call. A call of a tool that shows
 * the caller's charges has its usage read by admission too.
 */
function mcpEndpoints(bodyLimitBytes: number): { plain: Operation; readingUsage: Operation; payable: Operation } {
  const plain = { operationId: 'mcp', auth: 'bearer', bodyLimitBytes } as Operation;
  // Seen by admission as a paid operation, so that a call without a token is let on to be paid with x402
  // (under the address rate limit); which calls it may make is decided once the body is read.
  const payable = { ...plain, job: 'mcp', price: { kind: 'credits', credits: 0 } } as unknown as Operation;
  return { plain, readingUsage: { ...plain, readsUsage: true } as Operation, payable };
}

/** The spend confirmation of this configuration: quotes signed with the connector secret's key ring. */
function spendConfirmation({ config, quoteNonces, services }: McpRouteOptions): SpendConfirmation {
  const quotes = new SpendQuotes(KeyRing.fromSecrets(config.connectorSecret, config.connectorSecretPrevious));
  return new SpendConfirmation(config.billing, quotes, quoteNonces, services.jobs);
}

/** What the MCP route needs besides the per-request dependencies (the spend confirmation it builds itself). */
export interface McpRouteOptions extends Omit<McpDependencies, 'spend'> {
  config: Config;
  /** Where used spend quotes are remembered: the backend's, so a quote is used once across replicas. */
  quoteNonces: QuoteNonceStore;
  /** The admission step (token, failure budget, revocation, rate limit), shared with the REST chain. */
  admit: RequestHandler;
  /**
   * Serve plain 2026-07-28 tool calls without the SDK's web layer (`direct-tool-call.ts`); default on. Off,
   * the SDK serves every request: the reference the direct path is tested against.
   */
  directCalls?: boolean;
}

/**
 * `POST /mcp`: Streamable HTTP with JSON responses, stateless, served by the SDK. The request goes through
 * the same admission step and JSON body parser as REST; request id, access log and HTTP metrics wrap it in
 * the app. GET and DELETE (session streams and teardown) do not exist here: 405.
 */
export function mcpRoute(routeOptions: McpRouteOptions): Router {
  const { config, logger } = routeOptions;
  const options: McpRouteOptions & McpDependencies = { ...routeOptions, spend: spendConfirmation(routeOptions) };
  const allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.mcpAllowedOrigins]);
  const metadataUrl = resourceMetadataUrl(config.publicUrl);
  const errorLog = mcpErrorLog(logger);
  const checks = compileArgumentChecks(options.tools);
  const bodyLimit = mcpBodyLimit(options.tools.map((tool) => tool.operation));
  const endpoints = mcpEndpoints(bodyLimit);
  const handler = errorLog.around(
    mcpHttpHandler(mcpServerFactory(options, checks), { maxRequestBodySize: bodyLimit, onerror: errorLog.onerror }),
  );
  const matchDirect = options.directCalls === false ? () => undefined : directCallMatcher(options.tools, checks);
  const usageTools = new Set(options.tools.filter((tool) => tool.operation.readsUsage).map((tool) => tool.name));
  // A 2026-07-28 call names its method and tool in headers, which are known before the body is read (and
  // the SDK refuses a call whose body names another tool); the tool call checks the name again.
  const usageToolNamed = (req: Request): string | undefined => {
    const name = req.headers['mcp-name'];
    return req.headers['mcp-method'] === 'tools/call' && typeof name === 'string' && usageTools.has(name) ? name : undefined;
  };

  const payable = new Set(options.tools.filter(payableTool).map((tool) => tool.name));
  const x402 = options.services.x402 !== undefined && payable.size > 0;
  const endpointOf = (req: Request): Operation => {
    if (x402 && !req.get('authorization')) return endpoints.payable;
    return usageToolNamed(req) ? endpoints.readingUsage : endpoints.plain;
  };
  // Who the request acts for: the admitted person, or an agent without a token whose body x402 may serve
  // (undefined otherwise: the 401 every other call without a token gets).
  const callerOfRequest = (req: Request, res: Response): McpCaller | undefined => {
    const { requestId, usage, x402: paying } = state(res);
    if (paying) return openToPayers(req.body, payable) ? { principal: AGENT, requestId, payer: true } : undefined;
    // Usage was read only because the `Mcp-Name` header named a tool that shows it (checked above).
    return {
      principal: admittedPrincipal(res),
      requestId,
      ...(usage ? { usage: { tool: req.headers['mcp-name'] as string, snapshot: usage } } : {}),
    };
  };

  const router = express.Router();
  router.all(
    MCP_PATH,
    chain(
      (req: Request, res: Response, next: NextFunction) => {
        const locals = state(res);
        locals.route = MCP_PATH;
        if (req.method !== 'POST') return next(new MethodNotAllowedError(['POST']));
        // A browser page on another origin must not reach a local or intranet connector (DNS rebinding).
        const origin = req.get('origin');
        if (origin !== undefined && !allowedOrigins.has(origin))
          return next(new ForbiddenError('This origin may not call the MCP endpoint.'));
        locals.operation = endpointOf(req);
        next();
      },
      options.admit,
      jsonBody,
      async (req: Request, res: Response, next: NextFunction) => {
        const caller = callerOfRequest(req, res);
        if (!caller) return next(new UnauthorizedError('missing', 'bearer'));
        try {
          const direct = caller.payer ? undefined : matchDirect(req);
          if (direct) {
            // The whole head in one call, as an operation's answer (docs/decisions/mcp-head-and-submit-path.md).
            writeMcpJson(res, await answerDirectCall(options, direct, caller));
            return;
          }
          setMcpAnswerHeaders(res);
          // The token itself stays out: the per-request server needs only who the caller is.
          await serveFetchHandler(handler, req, res, { token: '', clientId: caller.principal.connectionId, scopes: [], extra: { caller } });
        } catch (error) {
          next(error);
        }
      },
    ),
  );
  // MCP clients find the authorization server through the RFC 9728 metadata named in the challenge.
  router.use(MCP_PATH, (error: unknown, _req: Request, _res: Response, next: NextFunction) => {
    next(
      error instanceof UnauthorizedError && error.reason !== 'bad_link_secret'
        ? new UnauthorizedError(error.reason, 'bearer', metadataUrl)
        : error,
    );
  });
  return router;
}
