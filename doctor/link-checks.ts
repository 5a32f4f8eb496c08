import { randomBytes } from 'node:crypto';
import { type CheckResult, fail, pass } from './check-result';
import type { DoctorContext } from './context';
import { describeError } from './target';

/**
 * The dashboard hand-off, with the link secret: mint a token for a throwaway subject and check who it acts
 * for. Nothing paid is started. `revokeChecks` (run after the rules that use the token) ends the connection.
 */
export async function linkChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.linkSecret) return [];
  const subject = `doctor-${randomBytes(6).toString('hex')}@example.invalid`;
  try {
    const minted = await ctx.target.request('/v1/link', { json: { subject }, headers: { 'x-link-secret': ctx.linkSecret } });
    const body = minted.json;
    if (minted.status !== 201 || typeof body?.token !== 'string' || typeof body?.connection_id !== 'string') {
      const hint = minted.status === 401 ? ' (is the link secret the one the connector has?)' : '';
      return [fail('link.mint', `POST /v1/link answered ${minted.status}; expected 201 with a token${hint}`)];
    }
    ctx.token = body.token;
    ctx.connectionId = body.connection_id;
    ctx.subject = subject;
  } catch (error) {
    return [fail('link.mint', `POST /v1/link failed: ${describeError(error)}`)];
  }
  const results = [pass('link.mint', `POST /v1/link minted a token for the throwaway subject ${subject}`)];
  try {
    const me = await ctx.target.request('/v1/me', { headers: { authorization: `Bearer ${ctx.token}` } });
    results.push(
      me.status === 200 && me.json?.subject === subject
        ? pass('link.me', 'GET /v1/me with the new token answers for the throwaway subject')
        : fail('link.me', `GET /v1/me with the new token answered ${me.status}${me.status === 200 ? ' for another subject' : ''}`),
    );
  } catch (error) {
    results.push(fail('link.me', `GET /v1/me failed: ${describeError(error)}`));
  }
  return results;
}

/** Revokes the doctor's connection and checks that its token is refused from then on. */
export async function revokeChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.linkSecret || !ctx.token || !ctx.connectionId) return [];
  const results: CheckResult[] = [];
  try {
    const revoked = await ctx.target.request('/v1/link/revoke', {
      json: { connection_id: ctx.connectionId },
      headers: { 'x-link-secret': ctx.linkSecret },
    });
    if (revoked.status !== 200 || revoked.json?.revoked !== 1) {
      return [
        fail(
          'link.revoke',
          `POST /v1/link/revoke answered ${revoked.status} ${JSON.stringify(revoked.json?.revoked ?? null)}; expected 200 {revoked: 1}`,
        ),
      ];
    }
    results.push(pass('link.revoke', `POST /v1/link/revoke ended connection ${ctx.connectionId}`));
    const me = await ctx.target.request('/v1/me', { headers: { authorization: `Bearer ${ctx.token}` } });
    results.push(
      me.status === 401
        ? pass('link.refused', 'the revoked token is refused with 401')
        : fail('link.refused', `the revoked token still answers ${me.status} on GET /v1/me`),
    );
  } catch (error) {
    results.push(fail('link.revoke', `revoking failed: ${describeError(error)}`));
  }
  return results;
}
