import type { CheckResult } from './check-result';
import type { DoctorContext } from './context';
import { creditChecks } from './credit-checks';
import { limitChecks } from './limit-checks';
import { linkChecks, revokeChecks } from './link-checks';
import { llmsTxtChecks } from './llms-txt-checks';
import { mcpChecks } from './mcp-checks';
import { oauthChecks } from './oauth-checks';
import { openApiChecks } from './openapi-checks';
import type { DoctorOptions } from './options';
import { headerChecks, probeChecks } from './probe-checks';
import { secretChecks } from './secret-checks';
import { Target } from './target';

/**
 * Runs every rule group against the connector, in an order where each finds what it needs: the document
 * before llms.txt and MCP, the throwaway token before the rules that use it, its revocation after them,
 * and the header rules last, over every response seen.
 */
export async function runDoctor(options: Omit<DoctorOptions, 'json'>): Promise<CheckResult[]> {
  const ctx: DoctorContext = { target: new Target(options.url, options.publicUrl, options.timeoutMs), linkSecret: options.linkSecret };
  const results: CheckResult[] = [];
  results.push(...(await probeChecks(ctx)));
  results.push(...(await openApiChecks(ctx)));
  results.push(...(await llmsTxtChecks(ctx)));
  results.push(...(await linkChecks(ctx)));
  results.push(...(await limitChecks(ctx)));
  results.push(...(await mcpChecks(ctx, options.timeoutMs)));
  results.push(...(await oauthChecks(ctx)));
  results.push(...(await revokeChecks(ctx)));
  results.push(...(await creditChecks(ctx)));
  results.push(...(await secretChecks(ctx, options.metricsUrl)));
  results.push(...headerChecks(ctx));
  return results;
}
