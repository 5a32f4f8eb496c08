import * as z from 'zod';

/** The largest per-operation rate limit, the same bound as `RATE_LIMIT_PER_MINUTE`'s. */
export const MAX_OPERATION_PER_MINUTE = 1_000_000;

/** The largest per-operation daily cap, the same bound as `DAILY_CREDIT_LIMIT`'s. */
export const MAX_OPERATION_DAILY_CREDITS = 1_000_000_000;

/**
 * An operation's own limits, per subject, on top of the connector's (`RATE_LIMIT_PER_MINUTE`,
 * `DAILY_CREDIT_LIMIT`): `perMinute` calls of this operation a minute, and for a paid operation
 * `dailyCredits` credits charged for it per UTC day. Declared with the operation; each bound is checked as a
 * rule of the registry, never when declared, so a mistake fails one named test.
 */
export const OperationLimits = z.strictObject({
  perMinute: z.int().min(1).max(MAX_OPERATION_PER_MINUTE).optional(),
  dailyCredits: z.int().min(1).max(MAX_OPERATION_DAILY_CREDITS).optional(),
});

/** An operation's own limits ({@link OperationLimits}). */
export type OperationLimits = z.infer<typeof OperationLimits>;

/** The rate-limit policy name of an operation's own window, as the `RateLimit` headers and the 429 name it. */
export function operationPolicyName(operationId: string): string {
  return `op-${operationId}`;
}

/** The key an operation's per-subject window is counted under: apart from the subject's own window (`sub:`). */
export function operationRateKey(operationId: string, subject: string): string {
  return `op:${operationId}:sub:${subject}`;
}

/** Credits in words: `1 credit`, `30 credits`. */
const credits = (n: number) => `${n.toLocaleString('en-US')} credit${n === 1 ? '' : 's'}`;

/**
 * The limits in the words the description gives a model, `At most 20 calls a minute; at most 30 credits a
 * day.`, or '' without any.
 */
export function limitsText(limits: OperationLimits | undefined): string {
  const parts = [
    limits?.perMinute === undefined ? undefined : `at most ${limits.perMinute.toLocaleString('en-US')} calls a minute`,
    limits?.dailyCredits === undefined ? undefined : `at most ${credits(limits.dailyCredits)} a day`,
  ].filter((part) => part !== undefined);
  if (parts.length === 0) return '';
  const text = parts.join('; ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

/**
 * What is wrong with an operation's declared limits, or undefined: out of range, or a daily cap on an
 * operation that charges nothing (`paid` false), which it could never count.
 */
export function limitsProblem(limits: unknown, paid: boolean): string | undefined {
  if (limits === undefined) return undefined;
  const parsed = OperationLimits.safeParse(limits);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue.path[0] ?? '');
    const max = field === 'perMinute' ? MAX_OPERATION_PER_MINUTE : MAX_OPERATION_DAILY_CREDITS;
    if (field === '') return 'limits takes perMinute and dailyCredits only';
    return `${field} must be a whole number from 1 to ${max.toLocaleString('en-US')}`;
  }
  if (parsed.data.dailyCredits !== undefined && !paid) return 'dailyCredits is set on an operation without a price';
  return undefined;
}

/** The limits as `/openapi.json` publishes them (`x-limits`): snake-case figures and their sentence. */
export function publishedLimits(limits: OperationLimits): Record<string, unknown> {
  return {
    ...(limits.perMinute === undefined ? {} : { per_minute: limits.perMinute }),
    ...(limits.dailyCredits === undefined ? {} : { daily_credits: limits.dailyCredits }),
    text: limitsText(limits),
  };
}
