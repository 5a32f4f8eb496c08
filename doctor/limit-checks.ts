import { allOf, type CheckResult, pass, warn } from './check-result';
import type { DoctorContext } from './context';
import { type DocumentOperation, documentOperations, label, type OpenApiJson } from './context';
import { describeError } from './target';

/** The connector's own limits as a caller sees them: the subject's window and the daily budget (null: none). */
export interface ConnectorLimits {
  perMinute?: number;
  dailyCredits?: number | null;
}

/** An operation with the limits it publishes (`x-limits`). */
interface Limited {
  op: DocumentOperation;
  perMinute?: number;
  dailyCredits?: number;
  text?: string;
}

/** The operations of a document that publish limits of their own. */
function limitedOperations(document: OpenApiJson): Limited[] {
  return documentOperations(document).flatMap((op) => {
    const limits = op.operation['x-limits'];
    if (!limits || typeof limits !== 'object') return [];
    return [{ op, perMinute: limits.per_minute, dailyCredits: limits.daily_credits, text: limits.text }];
  });
}

/**
 * A daily cap the price cannot meet: below the lowest price no job is ever accepted (FAIL); below the highest,
 * the largest jobs never are (WARN).
 */
function priceFits(limited: readonly Limited[]): CheckResult[] {
  const never: string[] = [];
  const largest: string[] = [];
  for (const { op, dailyCredits } of limited) {
    const cost = op.operation['x-cost'];
    if (dailyCredits === undefined || !cost) continue;
    if (dailyCredits < cost.min)
      never.push(`${label(op)}: its daily cap of ${dailyCredits} credits is below its lowest price, ${cost.min}`);
    else if (dailyCredits < cost.max)
      largest.push(`${label(op)}: jobs above its daily cap of ${dailyCredits} credits (up to ${cost.max}) are never accepted`);
  }
  const fits = `every daily cap of an operation (${limited.filter((l) => l.dailyCredits !== undefined).length}) takes its largest job`;
  return never.length > 0 ? [allOf('limits.price', never, fits)] : [allOf('limits.price', largest, fits, 'WARN')];
}

/** The description a model reads states the limits, so that a model can plan within them. */
function described(limited: readonly Limited[]): CheckResult {
  const problems = limited
    .filter(({ op, text }) => typeof text !== 'string' || !String(op.operation.description ?? '').includes(text))
    .map(({ op }) => `${label(op)}: its description does not state its limits (x-limits.text)`);
  return allOf('limits.described', problems, `every operation with limits of its own (${limited.length}) states them in its description`);
}

/** An operation's limit above the connector's own never binds: a mistake, or a limit to drop. */
function underConnector(limited: readonly Limited[], connector: ConnectorLimits): CheckResult {
  const problems: string[] = [];
  for (const { op, perMinute, dailyCredits } of limited) {
    if (perMinute !== undefined && connector.perMinute !== undefined && perMinute > connector.perMinute)
      problems.push(`${label(op)}: ${perMinute} a minute is above RATE_LIMIT_PER_MINUTE (${connector.perMinute}), so it never binds`);
    if (dailyCredits !== undefined && typeof connector.dailyCredits === 'number' && dailyCredits > connector.dailyCredits)
      problems.push(
        `${label(op)}: ${dailyCredits} credits a day is above DAILY_CREDIT_LIMIT (${connector.dailyCredits}), so it never binds`,
      );
  }
  return allOf('limits.connector', problems, "every operation's own limit is within the connector's", 'WARN');
}

/**
 * The rules of operations' own limits (`x-limits`), on the published document: each daily cap takes the
 * operation's jobs, each description states its limits, and, given the connector's own limits, none is above
 * them. Pure: the same document and figures always give the same lines.
 */
export function operationLimitRules(document: OpenApiJson, connector?: ConnectorLimits): CheckResult[] {
  const limited = limitedOperations(document);
  if (limited.length === 0) return [pass('limits.price', 'no operation declares limits of its own')];
  return [...priceFits(limited), described(limited), ...(connector ? [underConnector(limited, connector)] : [])];
}

/** The connector's limits as the throwaway subject sees them on `GET /v1/me`; undefined when it cannot be read. */
async function connectorLimits(ctx: DoctorContext): Promise<ConnectorLimits | undefined> {
  const me = await ctx.target.request('/v1/me', { headers: { authorization: `Bearer ${ctx.token}` } });
  if (me.status !== 200) return undefined;
  const quota = /"subject";q=(\d+)/.exec(me.headers.get('ratelimit-policy') ?? '')?.[1];
  const budget = (me.json as { daily_budget?: { limit?: number } | null } | undefined)?.daily_budget;
  return { ...(quota ? { perMinute: Number(quota) } : {}), dailyCredits: budget?.limit ?? null };
}

/**
 * The limits rules on the document the OpenAPI rules fetched; with a token (the link secret given), also
 * against the connector's own limits, read from `GET /v1/me`.
 */
export async function limitChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.document) return [];
  try {
    return operationLimitRules(ctx.document, ctx.token ? await connectorLimits(ctx) : undefined);
  } catch (error) {
    return [warn('limits.connector', `GET /v1/me failed: ${describeError(error)}`)];
  }
}
