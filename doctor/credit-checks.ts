import { type CheckResult, fail, pass } from './check-result';
import type { DoctorContext } from './context';
import { describeError } from './target';

/** The figures of `GET /v1/link/credits/summary` the identity is made of. */
const FIGURES = ['granted', 'adjusted', 'captured', 'expired', 'voided', 'balance', 'held'] as const;

/**
 * With the link secret: the credit summary over every account reconciles,
 * `granted + adjusted − captured − expired − voided = balance + held` (checked here too, not only trusted).
 * Reads only; in metered billing every figure is 0 and it passes.
 */
export async function creditChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.linkSecret) return [];
  try {
    const answer = await ctx.target.request('/v1/link/credits/summary', { headers: { 'x-link-secret': ctx.linkSecret } });
    const body = answer.json as Record<string, unknown> | undefined;
    if (answer.status !== 200 || !body || FIGURES.some((name) => typeof body[name] !== 'number')) {
      return [fail('credits.reconcile', `GET /v1/link/credits/summary answered ${answer.status}; expected 200 with the totals`)];
    }
    const n = (name: (typeof FIGURES)[number]) => body[name] as number;
    const moved = n('granted') + n('adjusted') - n('captured') - n('expired') - n('voided');
    const owed = n('balance') + n('held');
    if (moved === owed && body.reconciles === true) {
      return [
        pass(
          'credits.reconcile',
          `the credit accounts reconcile: granted + adjusted − captured − expired − voided = balance + held = ${owed}`,
        ),
      ];
    }
    return [fail('credits.reconcile', `the credit accounts do not reconcile: ${moved} moved, ${owed} in balances and holds`)];
  } catch (error) {
    return [fail('credits.reconcile', `GET /v1/link/credits/summary failed: ${describeError(error)}`)];
  }
}
