import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import type { ConsentService } from '../../shared/domain/oauth/consent-service';
import { OAUTH_PATHS } from '../../shared/domain/oauth/discovery';
import { BadRequestError, ForbiddenError } from '../../shared/platform/errors/problems';
import type { KeyRing } from '../../shared/platform/secrets/key-ring';
import { escapeHtml } from '../http/escape-html';
import { state } from '../http/locals';

const FORM = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
const REQUEST_ID = /^authreq_[A-Za-z0-9_-]{1,56}$/;

/**
 * A plain consent page for local use only (mounted only by `npm run dev`, and only with a loopback
 * `PUBLIC_URL` and listener and no `CONSENT_URL`: see `shared/domain/oauth/dev-consent.ts`), standing in for the
 * dashboard so MCP Inspector or the SDK's example client can connect on a laptop. It
 * answers through the same {@link ConsentService} as the dashboard's endpoints. The form carries an HMAC
 * of the request id, and a cross-site `Origin` is refused, so another site cannot answer for the person. The
 * field is made with the current connector secret's key; during a rotation a form made under the previous one
 * still counts.
 */
export function devConsentRoutes(consent: ConsentService, publicUrl: string, keys: KeyRing): Router {
  const csrfWith = (request: string, key: KeyRing['current']) =>
    createHmac('sha256', key.consentFormKey).update(request).digest('base64url');
  const csrfFor = (request: string) => csrfWith(request, keys.current);
  // Every accepted key is compared, each in constant time, before the answer is known.
  const csrfValid = (request: string, presented: unknown): boolean => {
    const given = Buffer.from(typeof presented === 'string' ? presented : '');
    let valid = false;
    for (const { keys: candidate } of keys.entries) {
      const expected = Buffer.from(csrfWith(request, candidate));
      valid = (given.length === expected.length && timingSafeEqual(given, expected)) || valid;
    }
    return valid;
  };
  const origin = new URL(publicUrl).origin;
  const router = Router();
  router.use(OAUTH_PATHS.devConsent, (_req, res, next) => {
    state(res).route = OAUTH_PATHS.devConsent;
    res.set('Cache-Control', 'no-store');
    next();
  });

  router.get(OAUTH_PATHS.devConsent, async (req, res, next) => {
    try {
      const request = requestId(req.query.request);
      const view = await consent.describe(request);
      // No form-action: browsers apply it to the redirect after the post too, and that goes to the app.
      res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
      const { client_name: name, redirect_scheme: scheme, redirect_host: host } = view.client;
      // The scheme too: `com.example.app://evil.test` goes to an app, not to the site evil.test.
      const redirectTarget = host ? `${scheme}://${host}` : `${scheme}:`;
      const action = `${publicUrl}${OAUTH_PATHS.devConsent}`;
      res.type('html').send(page({ clientName: name, redirectTarget, action, request, csrf: csrfFor(request) }));
    } catch (error) {
      next(error);
    }
  });
  router.post(OAUTH_PATHS.devConsent, FORM, async (req, res, next) => {
    try {
      const sentOrigin = req.get('origin');
      if (sentOrigin !== undefined && sentOrigin !== origin) throw new ForbiddenError('Cross-site consent is refused.');
      const body = req.body as Record<string, unknown>;
      const request = requestId(body.request);
      if (!csrfValid(request, body.csrf)) {
        throw new ForbiddenError('The consent form is not valid.');
      }
      const answer =
        body.decision === 'approve' ? { subject: typeof body.subject === 'string' ? body.subject : '' } : { deny: true as const };
      const { redirectTo } = await consent.answer(request, answer);
      res.redirect(303, redirectTo);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

function requestId(value: unknown): string {
  if (typeof value !== 'string' || !REQUEST_ID.test(value)) throw new BadRequestError('The request parameter is missing or malformed.');
  return value;
}

/** What the consent page shows and posts back. */
interface ConsentPage {
  clientName: string;
  redirectTarget: string;
  action: string;
  request: string;
  csrf: string;
}

function page({ clientName, redirectTarget, action, request, csrf }: ConsentPage): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connect ${escapeHtml(clientName)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}input,button{font-size:1rem;padding:.4rem}</style></head>
<body><h1>Connect ${escapeHtml(clientName)}</h1>
<p>Development consent page: it stands in for the operator's dashboard on a local connector only.</p>
<p>The app will be sent back to <strong>${escapeHtml(redirectTarget)}</strong>.</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="request" value="${escapeHtml(request)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<p><label>Subject (who the app acts for) <input name="subject" autocomplete="off"></label></p>
<p><button name="decision" value="approve">Approve</button> <button name="decision" value="deny">Deny</button></p>
</form></body></html>`;
}
