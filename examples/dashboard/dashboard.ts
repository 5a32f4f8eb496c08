import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { type Connection, ConnectorError, type CreditStatement, connectorClient } from './connector-client';
import { html, page, type SafeHtml } from './html';
import { type Session, sessions } from './sessions';
import { WebhookInbox } from './webhook-inbox';

export interface DashboardOptions {
  /** Where the dashboard reaches the connector, server to server. */
  connectorUrl: string;
  /** The connector's `LINK_SECRET`: only this server holds it. */
  linkSecret: string;
  /** The connector's `WEBHOOK_SECRET`; without it `/webhooks` is not served. */
  webhookSecret?: string;
  /** The signed-in person's subject (this example's stand-in for a login). */
  person: string;
}

const REQUEST_ID = /^authreq_[A-Za-z0-9_-]{1,56}$/;
/** The pack the example's stand-in checkout sells. */
const PACK_CREDITS = 100;
const FORM = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

/** The person's credits: the balance, what is held, the latest entries and the stand-in for a checkout. */
function creditsSection(credits: CreditStatement, csrf: SafeHtml) {
  const row = (e: CreditStatement['entries'][number]) =>
    html`<tr><td>${e.at}</td><td>${e.kind}</td><td>${e.credits}</td><td>${e.note ?? e.grant_id ?? e.job_id ?? ''}</td></tr>`;
  return html`<h2>Credits</h2><p>Balance: <strong id="balance">${credits.balance}</strong> credits (${credits.held} held for running jobs).</p>
<table id="credit-history"><tr><th>When</th><th>What</th><th>Credits</th><th>For</th></tr>${credits.entries.map(row)}</table>
<form method="post" action="/credits">${csrf}<button>Buy ${PACK_CREDITS} credits</button></form>`;
}

/** What every route of one dashboard shares: the connector, the sessions, the webhook inbox, the form checks. */
interface Dashboard {
  connector: ReturnType<typeof connectorClient>;
  session: ReturnType<typeof sessions>;
  inbox: WebhookInbox | undefined;
  /** A form's hidden CSRF field. */
  csrf(s: Session): SafeHtml;
  /** A form post's session, or a 403 answered. */
  posted(req: Request, res: Response): Session | undefined;
}

/** The dashboard's routes: the person's connections and credits, linking, revoking, the consent screen and the webhook receiver. */
export function createDashboard(options: DashboardOptions) {
  const session = sessions(options.person);
  const dashboard: Dashboard = {
    connector: connectorClient(options.connectorUrl, options.linkSecret),
    session,
    inbox: options.webhookSecret ? new WebhookInbox(options.webhookSecret) : undefined,
    csrf: (s) => html`<input type="hidden" name="csrf" value="${s.csrf}">`,
    posted: (req, res) =>
      session.check(req) ??
      void res.status(403).type('html').send(page('Refused', html`<p>This form was not sent from this dashboard.</p>`)),
  };
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.get('/', (req, res) => home(dashboard, req, res));
  accountRoutes(app, dashboard);
  consentRoutes(app, dashboard);
  if (dashboard.inbox) webhookRoute(app, dashboard.inbox);
  app.use(errorPage);
  return { app, inbox: dashboard.inbox };
}

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  // Pages carry tokens and request ids: never cached, never framed, never sent in a Referer to another site.
  // `same-origin`, not `no-referrer`: with the latter, browsers send `Origin: null` with our own forms.
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'same-origin', 'X-Content-Type-Options': 'nosniff' });
  // No form-action: browsers apply it to the redirect after a post too, and the consent answer redirects to the app.
  res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  next();
}

/** The person's connections, usage, credits and recent events. */
async function home({ connector, session, inbox, csrf }: Dashboard, req: Request, res: Response): Promise<void> {
  const s = session.open(req, res);
  const [{ items }, usage, credits] = await Promise.all([
    connector.connections(s.person),
    connector.usage(s.person),
    connector.credits(s.person),
  ]);
  const row = (
    c: Connection,
  ) => html`<tr><td>${c.client?.client_name ?? 'token'}</td><td>${c.kind}</td><td>${c.created_at}</td><td>${c.last_used_at ?? 'never'}</td>
<td><form method="post" action="/revoke">${csrf(s)}<input type="hidden" name="connection_id" value="${c.connection_id}"><button>Revoke</button></form></td></tr>`;
  const events = (inbox?.events ?? []).filter((e) => e.data.subject === s.person).slice(0, 10);
  res.type('html').send(
    page(
      'Your connections',
      html`<h1>Your connections</h1><p>Signed in as <strong>${s.person}</strong>. Credits spent: ${usage.days.reduce((sum, day) => sum + day.credits, 0)} in the last 30 days, ${usage.credits_spent} in all.</p>
<table><tr><th>App</th><th>Kind</th><th>Since</th><th>Last used</th><th></th></tr>${items.map(row)}</table>
<form method="post" action="/link">${csrf(s)}<button>Create a token</button></form>
${creditsSection(credits, csrf(s))}
<h2>Recent events</h2><ul>${events.map((e) => html`<li>${e.type} ${e.data.connection_id ?? e.data.id ?? e.data.grant_id}</li>`)}</ul>`,
    ),
  );
}

/** Creating a token, revoking a connection, and the stand-in checkout. */
function accountRoutes(app: express.Express, { connector, posted }: Dashboard): void {
  app.post('/link', FORM, async (req, res) => {
    const s = posted(req, res);
    if (!s) return;
    const linked = await connector.link(s.person);
    res
      .type('html')
      .send(
        page(
          'Your new token',
          html`<h1>Your new token</h1><p>Copy it now: it is shown only once.</p><p><code>${linked.token}</code></p><p><a href="/">Back</a></p>`,
        ),
      );
  });

  app.post('/revoke', FORM, async (req, res) => {
    const s = posted(req, res);
    if (!s) return;
    // Revoke only a connection of the signed-in person: the id in the form is as hostile as any input.
    if (await owns(connector, s.person, String(req.body.connection_id ?? ''))) await connector.revoke(String(req.body.connection_id));
    res.redirect(303, '/');
  });

  // A stand-in for a checkout: a real one grants when the payment provider's webhook reports the payment,
  // with the provider's session id as grant_id (docs/dashboard.md, "From a checkout to a grant").
  app.post('/credits', FORM, async (req, res) => {
    const s = posted(req, res);
    if (!s) return;
    const checkout = `example-checkout-${randomBytes(12).toString('base64url')}`;
    const granted = await connector
      .grant(s.person, PACK_CREDITS, checkout, `${PACK_CREDITS} credits (example checkout)`)
      .catch((error: unknown) => (error instanceof ConnectorError && error.status === 409 ? undefined : Promise.reject(error)));
    if (!granted)
      return void res
        .status(409)
        .type('html')
        .send(page('Credits are off', html`<p>This connector bills metered (BILLING_MODE=metered): there are no credits to buy.</p>`));
    res.redirect(303, '/');
  });
}

/** The consent screen of the connector's authorization server, and its answer. */
function consentRoutes(app: express.Express, { connector, session, csrf, posted }: Dashboard): void {
  app.get('/connect', async (req, res) => {
    const s = session.open(req, res);
    const id = typeof req.query.request === 'string' && REQUEST_ID.test(req.query.request) ? req.query.request : undefined;
    const pending = id ? await connector.describeRequest(id).catch(notFoundAs(undefined)) : undefined;
    if (!pending) return expired(res);
    const { client } = pending;
    // Scheme and host: `com.example.app://evil.test` sends the person to an app, not to the site evil.test.
    const target = client.redirect_host ? `${client.redirect_scheme}://${client.redirect_host}` : `${client.redirect_scheme}:`;
    res.type('html').send(
      page(
        `Connect ${client.client_name}`,
        html`<h1>Connect ${client.client_name}</h1>
<p><strong>${client.client_name}</strong> asks to act for you, <strong>${s.person}</strong>. It will send you back to <strong>${target}</strong>.</p>
<form method="post" action="/connect">${csrf(s)}<input type="hidden" name="request" value="${pending.request}">
<button name="decision" value="approve">Approve</button> <button name="decision" value="deny">Deny</button></form>`,
      ),
    );
  });

  app.post('/connect', FORM, async (req, res) => {
    const s = posted(req, res);
    if (!s) return;
    const id = String(req.body.request ?? '');
    if (!REQUEST_ID.test(id)) return void res.status(400).type('html').send(page('Bad request', html`<p>Malformed request.</p>`));
    const answer = req.body.decision === 'approve' ? { subject: s.person } : { deny: true as const };
    const answered = await connector.answerRequest(id, answer).catch(notFoundAs(undefined));
    if (!answered) return expired(res);
    res.redirect(303, answered.redirect_to);
  });
}

function expired(res: Response): void {
  res
    .status(404)
    .type('html')
    .send(page('Expired', html`<p>This request has expired or was already answered. Start again from the app.</p>`));
}

function webhookRoute(app: express.Express, inbox: WebhookInbox): void {
  app.post('/webhooks', express.text({ type: () => true, limit: '1mb' }), (req, res) => {
    try {
      inbox.receive(typeof req.body === 'string' ? req.body : '', req.headers);
    } catch {
      return void res.status(400).end();
    }
    // Answer at once, new or duplicate; real work belongs in a queue of your own.
    res.status(204).end();
  });
}

function errorPage(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const status = error instanceof ConnectorError ? error.status : undefined;
  console.error(`dashboard: ${error instanceof Error ? error.message : 'error'}`);
  res
    .status(502)
    .type('html')
    .send(page('Unavailable', html`<p>The connector did not answer as expected${status ? ` (${status})` : ''}. Try again.</p>`));
}

/** Whether a connection is one of the person's live connections (every page of the list). */
async function owns(connector: Dashboard['connector'], person: string, connectionId: string): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const list = await connector.connections(person, cursor);
    if (list.items.some((c) => c.connection_id === connectionId)) return true;
    cursor = list.next_cursor ?? undefined;
  } while (cursor);
  return false;
}

/** A connector 404 (expired or answered request) as a value; any other failure goes on to the error page. */
function notFoundAs<T>(value: T) {
  return (error: unknown): T => {
    if (error instanceof ConnectorError && error.status === 404) return value;
    throw error;
  };
}

/** Starts the dashboard on 127.0.0.1 (port 0: a free one). */
export async function startDashboard(options: DashboardOptions & { port: number }) {
  const { app, inbox } = createDashboard(options);
  const server = app.listen(options.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inbox,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
