import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { startDashboard } from '../../examples/dashboard/dashboard';
import { launchChromium } from '../support/chromium';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { authorizeParams, codeForm, registerClient, tokenRequest } from '../support/oauth-helpers';
import { newWebhookSecret } from '../support/webhook-receiver';
import { freePort } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';
import { startRedirectTarget } from './support/redirect-target';
import { WebhookRelay } from './support/webhook-relay';

/** An app name a hostile client could register: it must reach the page as text, never as markup. */
const HOSTILE_NAME = `Evil <img src=x onerror="document.title='pwned'"> & "Co"`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('examples/dashboard against a connector, driven by headless Chromium', function () {
  this.timeout(30_000);
  const person = newSubject();
  const webhookSecret = newWebhookSecret();
  let tmp: string;
  let relay: WebhookRelay;
  let connector: ConnectorUnderTest;
  let dashboard: Awaited<ReturnType<typeof startDashboard>>;
  let app: Awaited<ReturnType<typeof startRedirectTarget>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'dashboard-example-'));
    const port = await freePort();
    relay = await WebhookRelay.start(`http://127.0.0.1:${port}/webhooks`);
    connector = await startConnector('memory', {
      CONSENT_URL: `http://127.0.0.1:${port}/connect`,
      WEBHOOK_URL: relay.url,
      WEBHOOK_SECRET: webhookSecret,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '10',
      BILLING_MODE: 'prepaid',
    });
    dashboard = await startDashboard({
      connectorUrl: connector.baseUrl,
      linkSecret: connector.config.linkSecret,
      webhookSecret,
      person,
      port,
    });
    app = await startRedirectTarget();
    browser = await launchChromium();
    context = await browser.newContext();
    // Well inside the test's 30 s, so a page that never arrives fails with what was awaited.
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await dashboard?.close();
    await connector?.close();
    await relay?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** Registers a public client (DCR) whose redirect URI is the page the browser can land on. */
  function registerApp(name: string): Promise<string> {
    return registerClient(connector.baseUrl, [app.url], name);
  }

  /** Starts `/oauth/authorize` in the browser, which the connector sends on to the dashboard's consent page. */
  async function openConsent(clientId: string) {
    const flow = authorizeParams(connector, clientId, { redirect_uri: app.url });
    await page.goto(`${connector.baseUrl}/oauth/authorize?${new URLSearchParams(flow.params)}`);
    const at = new URL(page.url());
    expect(`${at.origin}${at.pathname}`).to.equal(`${dashboard.url}/connect`);
    return flow;
  }

  it('approve: the consent page shows the app, Approve lands on the redirect URI with code, state and iss; the token works until the dashboard revokes it', async () => {
    const clientId = await registerApp(HOSTILE_NAME);
    const { pkce, state } = await openConsent(clientId);

    // The hostile name is text, never markup; the redirect URI's scheme and host are shown.
    expect(await page.locator('h1').textContent()).to.equal(`Connect ${HOSTILE_NAME}`);
    expect(await page.locator('img').count()).to.equal(0);
    expect(await page.title()).to.equal(`Connect ${HOSTILE_NAME}`);
    expect(await page.locator('body').textContent())
      .to.include(`send you back to ${new URL(app.url).origin}`)
      .and.include(person);
    const shot = path.join(tmp, 'consent.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot), 'screenshot written').to.equal(true);
    expect(readFileSync(shot).subarray(0, 8).equals(PNG_SIGNATURE), 'screenshot is a PNG').to.equal(true);

    await Promise.all([page.waitForURL((url) => url.href.startsWith(app.url)), page.getByRole('button', { name: 'Approve' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).to.equal(state);
    expect(landed.searchParams.get('iss')).to.equal(connector.config.publicUrl);
    const code = landed.searchParams.get('code');
    expect(code).to.be.a('string').and.not.equal('');

    const tokens = await tokenRequest(connector.baseUrl, codeForm(clientId, code!, pkce.verifier, app.url));
    expect(tokens.status, JSON.stringify(tokens.body)).to.equal(200);
    const bearer = { authorization: `Bearer ${tokens.body.access_token}` };
    const me = await connector.call('GET', '/v1/me', { headers: bearer });
    expect(me.status, me.text).to.equal(200);
    expect(me.body.subject).to.equal(person);
    expect(me.body.client.client_name).to.equal(HOSTILE_NAME);

    // The dashboard lists the connection; Revoke ends it.
    await page.goto(`${dashboard.url}/`);
    const row = page.locator('tr', { hasText: HOSTILE_NAME });
    expect(await row.count(), 'rows of the app').to.equal(1);
    await Promise.all([page.waitForURL(`${dashboard.url}/`), row.getByRole('button', { name: 'Revoke' }).click()]);
    await page.waitForLoadState();
    expect(await page.locator('tr', { hasText: HOSTILE_NAME }).count(), 'rows after revoking').to.equal(0);
    expect((await connector.call('GET', '/v1/me', { headers: bearer })).status).to.equal(401);

    // The connector's events reach the person's page: made, then revoked.
    const connection = me.body.connection_id as string;
    await waitFor(
      async () => {
        await page.reload();
        const events = await page.locator('li').allTextContents();
        return events.includes(`connection.created ${connection}`) && events.includes(`connection.revoked ${connection}`);
      },
      { what: 'both events of the connection on the page' },
    );
  });

  it('Create a token shows, once and uncached, a token of the signed-in person that the connector accepts', async () => {
    await page.goto(`${dashboard.url}/`);
    const [shown] = await Promise.all([
      page.waitForResponse(`${dashboard.url}/link`),
      page.getByRole('button', { name: 'Create a token' }).click(),
    ]);
    expect(shown.status()).to.equal(200);
    expect(shown.headers()['cache-control']).to.equal('no-store');
    const token = (await page.locator('code').textContent())!.trim();
    const me = await connector.call('GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.deep.include({ subject: person, client: null });
    await page.goto(`${dashboard.url}/`);
    expect(await page.locator('body').textContent(), 'the list does not show the token again').to.not.include(token);
    expect(await page.locator('tr', { hasText: 'token' }).filter({ hasText: 'link' }).count()).to.be.greaterThan(0);
  });

  it('credits: the page shows the balance and history; Buy 100 credits grants once per click, and the connector agrees', async () => {
    const statement = async () =>
      (
        await connector.call('GET', `/v1/link/credits?subject=${encodeURIComponent(person)}`, {
          headers: { 'x-link-secret': connector.config.linkSecret },
        })
      ).body;
    const before = await statement();
    await page.goto(`${dashboard.url}/`);
    expect(await page.locator('#balance').textContent()).to.equal(String(before.balance));
    for (let click = 1; click <= 2; click++) {
      await Promise.all([page.waitForURL(`${dashboard.url}/`), page.getByRole('button', { name: 'Buy 100 credits' }).click()]);
      await page.waitForLoadState();
      expect(await page.locator('#balance').textContent(), `after click ${click}`).to.equal(String(before.balance + 100 * click));
    }
    const after = await statement();
    expect(after).to.deep.include({ balance: before.balance + 200, held: 0 });
    const grants = after.entries.slice(0, 2);
    expect(grants.map((entry: any) => [entry.kind, entry.credits, entry.note])).to.deep.equal([
      ['grant', 100, '100 credits (example checkout)'],
      ['grant', 100, '100 credits (example checkout)'],
    ]);
    expect(new Set(grants.map((entry: any) => entry.grant_id)).size, 'a grant id per checkout').to.equal(2);
    const history = await page.locator('#credit-history tr').allTextContents();
    expect(history.filter((row) => row.includes('grant') && row.includes('100 credits (example checkout)'))).to.have.length(2);

    // The connector's credits.granted events reach the person's page.
    await waitFor(
      async () => {
        await page.reload();
        const events = await page.locator('li').allTextContents();
        return grants.every((entry: any) => events.includes(`credits.granted ${entry.grant_id}`));
      },
      { what: 'both credits.granted events on the page' },
    );
  });

  it('a Buy form without the session token grants nothing', async () => {
    const home = await fetch(`${dashboard.url}/`);
    const cookie = home.headers.get('set-cookie')!.split(';')[0];
    const before = (
      await connector.call('GET', `/v1/link/credits?subject=${encodeURIComponent(person)}`, {
        headers: { 'x-link-secret': connector.config.linkSecret },
      })
    ).body.balance;
    const forged = await fetch(`${dashboard.url}/credits`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: 'forged' }),
    });
    expect(forged.status).to.equal(403);
    const after = (
      await connector.call('GET', `/v1/link/credits?subject=${encodeURIComponent(person)}`, {
        headers: { 'x-link-secret': connector.config.linkSecret },
      })
    ).body.balance;
    expect(after).to.equal(before);
  });

  it('deny: Deny lands on the redirect URI with error=access_denied and state, and no code', async () => {
    const { state } = await openConsent(await registerApp('Denied App'));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(app.url)), page.getByRole('button', { name: 'Deny' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).to.equal('access_denied');
    expect(landed.searchParams.get('state')).to.equal(state);
    expect(landed.searchParams.has('code')).to.equal(false);
  });

  it('a consent form without the session, with a wrong token or from another origin is refused and the request stays pending', async () => {
    const clientId = await registerApp('Forged App');
    const { params } = authorizeParams(connector, clientId, { redirect_uri: app.url });
    const consent = (
      await fetch(`${connector.baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' })
    ).headers.get('location')!;
    const view = await fetch(consent);
    const cookie = view.headers.get('set-cookie')!.split(';')[0];
    const html = await view.text();
    const request = /name="request" value="([^"]+)"/.exec(html)![1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      fetch(`${dashboard.url}/connect`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      });
    const approve = { request, decision: 'approve' };

    expect((await post({}, { ...approve, csrf })).status, 'no session cookie').to.equal(403);
    expect(
      (await post({ cookie }, { ...approve, csrf: csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).status,
      'wrong token',
    ).to.equal(403);
    expect((await post({ cookie }, approve)).status, 'no token').to.equal(403);
    expect((await post({ cookie, origin: app.origin }, { ...approve, csrf })).status, 'another origin').to.equal(403);
    const pending = await connector.call('GET', `/v1/link/authorizations/${request}`, {
      headers: { 'x-link-secret': connector.config.linkSecret },
    });
    expect(pending.status, 'still pending').to.equal(200);

    // The same form with all three in order is accepted: the refusals above were for the missing piece.
    const accepted = await post({ cookie, origin: dashboard.url }, { ...approve, csrf });
    expect(accepted.status).to.equal(303);
    expect(accepted.headers.get('location')).to.match(new RegExp(`^${app.url}\\?code=`));
  });

  it("a Revoke form naming another person's connection revokes nothing", async () => {
    const other = await connector.call('POST', '/v1/link', {
      body: { subject: newSubject() },
      headers: { 'x-link-secret': connector.config.linkSecret },
    });
    expect(other.status, other.text).to.equal(201);
    const home = await fetch(`${dashboard.url}/`);
    const cookie = home.headers.get('set-cookie')!.split(';')[0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await home.text())![1];
    const revoke = (connectionId: string) =>
      fetch(`${dashboard.url}/revoke`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, connection_id: connectionId }),
      });

    expect((await revoke(other.body.connection_id)).status).to.equal(303);
    expect(
      (await connector.call('GET', '/v1/me', { headers: { authorization: `Bearer ${other.body.token}` } })).status,
      "the other person's token",
    ).to.equal(200);

    // The same form with one of the person's own connections does revoke: the refusal above was for the owner.
    const own = await connector.call('POST', '/v1/link', {
      body: { subject: person },
      headers: { 'x-link-secret': connector.config.linkSecret },
    });
    expect((await revoke(own.body.connection_id)).status).to.equal(303);
    expect(
      (await connector.call('GET', '/v1/me', { headers: { authorization: `Bearer ${own.body.token}` } })).status,
      "the person's own token",
    ).to.equal(401);
  });

  it('webhooks: each event the connector delivers twice (its first answer lost) is verified and recorded once', async () => {
    const subject = newSubject();
    const linked = await connector.call('POST', '/v1/link', {
      body: { subject },
      headers: { 'x-link-secret': connector.config.linkSecret },
    });
    expect(linked.status, linked.text).to.equal(201);
    const ofLink = (event: any) => event.type === 'connection.created' && event.data.connection_id === linked.body.connection_id;
    const attempts = await waitFor(() => (relay.attemptsOf(ofLink).length >= 2 ? relay.attemptsOf(ofLink) : undefined), {
      what: 'the event delivered twice',
    });
    expect(new Set(attempts.map((a) => a.id)).size, 'one event id').to.equal(1);
    expect(
      attempts.map((a) => a.targetStatus),
      'the dashboard accepted both',
    ).to.deep.equal([204, 204]);
    const recorded = dashboard.inbox!.events.filter((event) => event.id === attempts[0].id);
    expect(recorded).to.have.length(1);
    expect(recorded[0]).to.deep.include({ type: 'connection.created' });
    expect(recorded[0].data).to.deep.include({ subject, connection_id: linked.body.connection_id, kind: 'link' });
  });

  it('webhooks: a request not signed with the secret gets 400 and is not recorded', async () => {
    const body = JSON.stringify({
      type: 'connection.revoked',
      timestamp: new Date().toISOString(),
      data: { connection_id: 'conn_forged', subject: person },
    });
    const now = new Date();
    const forged = new Webhook(newWebhookSecret()).sign('evt_forged', now, body);
    const res = await fetch(`${dashboard.url}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': forged,
      },
      body,
    });
    expect(res.status).to.equal(400);
    expect(dashboard.inbox!.events.filter((event) => event.id === 'evt_forged')).to.deep.equal([]);
  });
});
