import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

/** Who is signed in, and the token their forms must carry. */
export interface Session {
  readonly person: string;
  readonly csrf: string;
}

const COOKIE = 'dashboard_session';
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions and CSRF protection. Signing in is out of scope of this example: every visitor is signed in as the
 * one configured person. Replace `person` with your own login's lookup of the session id.
 *
 * A form is accepted only from a browser holding the session cookie (HttpOnly, SameSite=Lax, so another site
 * cannot make the browser send it with a cross-site POST), with the session's CSRF token in the body (an HMAC
 * of the session id, which another site can neither read nor compute), and with an `Origin`, when the browser
 * sends one, naming this very host.
 */
export function sessions(person: string, key: Buffer = randomBytes(32)) {
  const csrfFor = (id: string) => createHmac('sha256', key).update(id).digest('base64url');
  const sessionId = (req: Request) => {
    const found = (req.get('cookie') ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([name]) => name === COOKIE)?.[1];
    return found !== undefined && SESSION_ID.test(found) ? found : undefined;
  };
  return {
    /** The session of a page view, started (with its cookie) when the browser has none. */
    open(req: Request, res: Response): Session {
      let id = sessionId(req);
      if (!id) {
        id = randomBytes(32).toString('base64url');
        res.append('Set-Cookie', `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
      }
      return { person, csrf: csrfFor(id) };
    },
    /** The session of a form post, or undefined when the post is not provably the person's own. */
    check(req: Request): Session | undefined {
      const id = sessionId(req);
      const origin = req.get('origin');
      if (!id || (origin !== undefined && origin !== `${req.protocol}://${req.get('host')}`)) return undefined;
      const expected = Buffer.from(csrfFor(id));
      const presented = Buffer.from(typeof req.body?.csrf === 'string' ? req.body.csrf : '');
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
      return { person, csrf: csrfFor(id) };
    },
  };
}
