import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { type CallResult, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { connectMcp } from '../support/mcp-client';
import { parseExposition } from '../support/prometheus-text';
import { WebhookReceiver } from '../support/webhook-receiver';
import { webhookEnv } from '../support/webhook-stands';
import { waitFor } from '../testkit/wait-for';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PREPAID = { BILLING_MODE: 'prepaid', CREDITS_LOW_THRESHOLD: '10' };

const newGrantId = () => `cs_test_${randomBytes(8).toString('hex')}`;
// encodeURIComponent, not URLSearchParams: a `+` in a query is refused rather than read as a space.
const query = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');

/** The dashboard's calls on one connector. */
function dashboardOf(connector: ConnectorUnderTest) {
  const headers = { 'x-link-secret': connector.config.linkSecret };
  return {
    grant: (body: Record<string, unknown>) => connector.call('POST', '/v1/link/credits', { body, headers }),
    statement: (params: Record<string, string>) => connector.call('GET', `/v1/link/credits?${query(params)}`, { headers }),
    async account(subject: string): Promise<{ balance: number; held: number }> {
      const res = await this.statement({ subject, limit: '1' });
      expect(res.status, res.text).to.equal(200);
      return { balance: res.body.balance, held: res.body.held };
    },
  };
}

async function grantedCounter(connector: ConnectorUnderTest): Promise<number> {
  const page = parseExposition(await (await fetch(connector.metricsUrl)).text());
  return page.samples.find((sample) => sample.name === 'connector_credits_granted_total')?.value ?? 0;
}

function expectProblem(res: CallResult, status: number, type?: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  if (type) expect(res.body.type).to.equal(`urn:connector:problem:${type}`);
}

for (const kind of BACKENDS) {
  describe(`credit accounts over HTTP, BILLING_MODE=prepaid [${kind}]`, function () {
    this.timeout(60_000);
    let receiver: WebhookReceiver;
    let connector: ConnectorUnderTest;
    let dashboard: ReturnType<typeof dashboardOf>;

    before(async () => {
      receiver = await WebhookReceiver.start();
      connector = await startConnector(kind, { ...webhookEnv(receiver), ...PREPAID });
      dashboard = dashboardOf(connector);
    });
    after(async () => {
      await connector?.close();
      await receiver?.close();
    });

    it('a grant answers 201 with the account and the grant; the same grant again answers 200, Idempotent-Replayed, the same grant, nothing added', async () => {
      const subject = newSubject();
      const body = { subject, credits: 250, grant_id: newGrantId(), note: 'Starter pack' };
      const created = await dashboard.grant(body);
      expect(created.status, created.text).to.equal(201);
      expect(created.headers.get('idempotent-replayed')).to.equal(null);
      expect(created.body).to.deep.include({ subject, balance: 250, held: 0 });
      expect(created.body.grant).to.deep.include({ kind: 'grant', credits: 250, grant_id: body.grant_id, note: 'Starter pack' });
      expect(created.body.grant.id).to.match(/^cre_/);
      expect(created.body.grant.at).to.match(ISO);
      for (let i = 0; i < 3; i++) {
        const again = await dashboard.grant(body);
        expect(again.status, again.text).to.equal(200);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(created.body);
      }
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 250, held: 0 });
    });

    it('the same grant_id with another amount, note or subject answers 422 grant-conflict and adds nothing to anyone', async () => {
      const [subject, other] = [newSubject(), newSubject()];
      const body = { subject, credits: 40, grant_id: newGrantId(), note: 'order 17' };
      expect((await dashboard.grant(body)).status).to.equal(201);
      for (const changed of [{ credits: 41 }, { note: 'order 18' }, { note: undefined }, { subject: other }]) {
        expectProblem(await dashboard.grant({ ...body, ...changed }), 422, 'grant-conflict');
      }
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 40, held: 0 });
      expect(await dashboard.account(other)).to.deep.equal({ balance: 0, held: 0 });
    });

    it('negative credits are an adjustment, applied even past zero: the balance may be negative', async () => {
      const subject = newSubject();
      await dashboard.grant({ subject, credits: 5, grant_id: newGrantId() });
      const adjusted = await dashboard.grant({ subject, credits: -8, grant_id: newGrantId(), note: 'refunded purchase' });
      expect(adjusted.status, adjusted.text).to.equal(201);
      expect(adjusted.body).to.deep.include({ balance: -3, held: 0 });
      expect(adjusted.body.grant).to.deep.include({ kind: 'adjustment', credits: -8, note: 'refunded purchase' });
    });

    it('refuses with 400, adding nothing: 0 or out-of-range or fractional credits, a bad grant_id or note, unknown fields, an invisible subject', async () => {
      const subject = newSubject();
      const base = { subject, credits: 3, grant_id: newGrantId() };
      for (const bad of [
        { credits: 0 },
        { credits: 1_000_000_001 },
        { credits: -1_000_000_001 },
        { credits: 2.5 },
        { credits: '3' },
        { grant_id: '' },
        { grant_id: 'g'.repeat(256) },
        { grant_id: 'café-1' },
        { grant_id: 'tab\tid' },
        { note: 'n'.repeat(201) },
        { note: 'line\nbreak' },
        { extra: true },
        { subject: '\u200b' },
      ]) {
        expectProblem(await dashboard.grant({ ...base, ...bad }), 400, 'validation');
      }
      const { credits: _credits, ...withoutCredits } = base;
      expectProblem(await dashboard.grant(withoutCredits), 400, 'validation');
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 0, held: 0 });
      expect(
        (await dashboard.grant({ ...base, grant_id: 'g'.repeat(255), note: 'n'.repeat(200) })).status,
        'the bounds themselves',
      ).to.equal(201);
    });

    it('a missing or wrong link secret answers 401 and grants nothing', async () => {
      const subject = newSubject();
      const body = { subject, credits: 9, grant_id: newGrantId() };
      expectProblem(await connector.call('POST', '/v1/link/credits', { body }), 401);
      expectProblem(await connector.call('POST', '/v1/link/credits', { body, headers: { 'x-link-secret': 'x'.repeat(40) } }), 401);
      expectProblem(await connector.call('GET', `/v1/link/credits?${query({ subject })}`), 401);
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 0, held: 0 });
    });

    it('the subject is normalised as /v1/link normalises it: composed, decomposed or padded, one account', async () => {
      const tag = randomBytes(3).toString('hex');
      const composed = `jos\u00e9-${tag}@example.com`;
      await dashboard.grant({ subject: `  ${composed} `, credits: 2, grant_id: newGrantId() });
      const decomposed = await dashboard.grant({ subject: `jose\u0301-${tag}@example.com`, credits: 3, grant_id: newGrantId() });
      expect(decomposed.body).to.deep.include({ subject: composed, balance: 5 });
      const statement = await dashboard.statement({ subject: composed });
      expect(statement.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal([3, 2]);
    });

    it('GET pages the entries newest first with a cursor; grants made meanwhile shift no page; a forged cursor is 400', async () => {
      const subject = newSubject();
      for (let i = 1; i <= 5; i++) expect((await dashboard.grant({ subject, credits: i, grant_id: newGrantId() })).status).to.equal(201);
      const first = await dashboard.statement({ subject, limit: '2' });
      expect(first.status, first.text).to.equal(200);
      expect(first.body).to.deep.include({ subject, balance: 15, held: 0 });
      expect(first.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal([5, 4]);
      await dashboard.grant({ subject, credits: 100, grant_id: newGrantId() });
      const second = await dashboard.statement({ subject, limit: '2', cursor: first.body.next_cursor });
      expect(second.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal([3, 2]);
      expect(second.body.balance).to.equal(115);
      const last = await dashboard.statement({ subject, limit: '2', cursor: second.body.next_cursor });
      expect(last.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal([1]);
      expect(last.body.next_cursor).to.equal(null);
      expectProblem(await dashboard.statement({ subject, cursor: Buffer.from('v1.x').toString('base64url') }), 400, 'validation');
      expect((await dashboard.statement({ subject: newSubject() })).body).to.deep.include({
        balance: 0,
        held: 0,
        entries: [],
        next_cursor: null,
      });
    });

    it('GET /v1/me shows the person credits {balance, held}', async () => {
      const subject = newSubject();
      const token = await connector.link(subject);
      expect((await connector.call('GET', '/v1/me', { token })).body.credits).to.deep.equal({ balance: 0, held: 0 });
      await dashboard.grant({ subject, credits: 12, grant_id: newGrantId() });
      const me = await connector.call('GET', '/v1/me', { token });
      expect(me.status, me.text).to.equal(200);
      expect(me.body.credits).to.deep.equal({ balance: 12, held: 0 });
    });

    it('each new grant sends credits.granted once, a replay none; each fall below CREDITS_LOW_THRESHOLD sends credits.low once', async () => {
      const subject = newSubject();
      const grant = (credits: number, grantId = newGrantId()) => dashboard.grant({ subject, credits, grant_id: grantId });
      const first = (await grant(15)).body.grant;
      for (let i = 0; i < 3; i++) expect((await grant(15, first.grant_id)).status).to.equal(200);
      await grant(-6); // 9: a fall
      await grant(-1); // 8: already below
      await grant(20); // 28
      const sentinel = (await grant(-20)).body.grant; // 8: a fall again
      const ofSubject = (type: string) => (payload: any) => payload?.type === type && payload.data?.subject === subject;
      await receiver.next(
        (payload) => ofSubject('credits.granted')(payload) && payload.data.grant_id === sentinel.grant_id,
        'the last grant',
      );
      const lows = await receiver.next(
        (payload) => ofSubject('credits.low')(payload) && receiver.matching(ofSubject('credits.low')).length >= 2,
        'two credits.low',
      );
      expect(lows.verified).to.equal(true);
      const granted = receiver.matching(ofSubject('credits.granted'));
      expect(new Set(granted.map((r) => r.id)).size, 'one event per grant').to.equal(5);
      const ofFirst = granted.filter((r) => r.payload.data.grant_id === first.grant_id);
      expect(new Set(ofFirst.map((r) => r.id)).size, 'the replays sent no event of their own').to.equal(1);
      expect(ofFirst[0].payload.data).to.deep.equal({ subject, grant_id: first.grant_id, credits: 15, balance: 15 });
      expect(ofFirst[0].payload.timestamp).to.match(ISO);
      const lowData = receiver.matching(ofSubject('credits.low')).map((r) => [r.id, r.payload.data]);
      expect(new Set(lowData.map(([id]) => id)).size).to.equal(2);
      expect(lowData.map(([, data]) => data).sort((a, b) => a.balance - b.balance)).to.deep.equal([
        { subject, balance: 8, threshold: 10 },
        { subject, balance: 9, threshold: 10 },
      ]);
    });

    it('connector_credits_granted_total counts new grants only: not replays, not adjustments', async () => {
      const subject = newSubject();
      const before = await grantedCounter(connector);
      const body = { subject, credits: 30, grant_id: newGrantId() };
      await dashboard.grant(body);
      await dashboard.grant(body);
      await dashboard.grant({ subject, credits: -4, grant_id: newGrantId() });
      await dashboard.grant({ subject, credits: 7, grant_id: newGrantId() });
      expect((await grantedCounter(connector)) - before).to.equal(37);
    });

    it('a grant with expires_at: its unspent rest leaves at expiry as one expire entry and one credits.expired event', async () => {
      const subject = newSubject();
      const expiresAt = new Date(Date.now() + 1_500).toISOString();
      const created = await dashboard.grant({ subject, credits: 12, grant_id: newGrantId(), expires_at: expiresAt });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.grant).to.include({ expires_at: expiresAt });
      await dashboard.grant({ subject, credits: 5, grant_id: newGrantId() });
      const statement = await waitFor(
        async () => {
          const res = await dashboard.statement({ subject });
          return res.body.entries[0]?.kind === 'expire' ? res.body : undefined;
        },
        { timeoutMs: 20_000, what: 'the grant to expire' },
      );
      expect(statement.entries[0]).to.include({ kind: 'expire', credits: 12, grant_id: created.body.grant.grant_id, balance_after: 5 });
      expect(statement).to.deep.include({ balance: 5, held: 0 });
      const ofSubject = (payload: any) => payload?.type === 'credits.expired' && payload.data?.subject === subject;
      const event = await receiver.next(ofSubject, 'credits.expired');
      expect(event.payload.data).to.deep.equal({ subject, grant_id: created.body.grant.grant_id, credits: 12, balance: 5 });
    });

    it('expires_at in the past, not a time, or on an adjustment answers 400 and grants nothing', async () => {
      const subject = newSubject();
      const past = new Date(Date.now() - 1_000).toISOString();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      for (const body of [
        { credits: 5, expires_at: past },
        { credits: 5, expires_at: 'tomorrow' },
        { credits: -5, expires_at: later },
      ]) {
        expectProblem(await dashboard.grant({ subject, grant_id: newGrantId(), ...body }), 400, 'validation');
      }
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 0, held: 0 });
    });

    it('a void removes the unspent rest of a grant: 201 and credits.voided; again 200 replayed; another body 422; an unknown grant 404', async () => {
      const subject = newSubject();
      const grant = (await dashboard.grant({ subject, credits: 9, grant_id: newGrantId() })).body.grant;
      await dashboard.grant({ subject, credits: 4, grant_id: newGrantId() });
      const headers = { 'x-link-secret': connector.config.linkSecret };
      const body = { subject, grant_id: grant.grant_id, void_id: `re_${randomBytes(6).toString('hex')}`, note: 'refunded' };
      const voided = await connector.call('POST', '/v1/link/credits/void', { body, headers });
      expect(voided.status, voided.text).to.equal(201);
      expect(voided.body).to.deep.include({ subject, balance: 4, held: 0 });
      expect(voided.body.void).to.include({ kind: 'void', credits: 9, grant_id: grant.grant_id, void_id: body.void_id, note: 'refunded' });
      const again = await connector.call('POST', '/v1/link/credits/void', { body, headers });
      expect(again.status, again.text).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.void).to.deep.equal(voided.body.void);
      expectProblem(
        await connector.call('POST', '/v1/link/credits/void', { body: { ...body, note: 'other' }, headers }),
        422,
        'void-conflict',
      );
      const unknown = { ...body, grant_id: 'no-such-grant', void_id: `re_${randomBytes(6).toString('hex')}` };
      expectProblem(await connector.call('POST', '/v1/link/credits/void', { body: unknown, headers }), 404);
      expect(await dashboard.account(subject)).to.deep.equal({ balance: 4, held: 0 });
      const event = await receiver.next(
        (payload: any) => payload?.type === 'credits.voided' && payload.data?.subject === subject,
        'credits.voided',
      );
      expect(event.payload.data).to.deep.equal({ subject, grant_id: grant.grant_id, credits: 9, balance: 4 });
    });

    it('neither credit operation is in /openapi.json, /llms.txt or the MCP tools', async () => {
      const document = (await (await fetch(`${connector.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths).filter((path) => path.startsWith('/v1/link/credits'))).to.deep.equal([]);
      expect(JSON.stringify(document)).to.not.match(/grantCredits|getCredits|voidCredits|exportCredits|getCreditSummary/);
      expect(await (await fetch(`${connector.baseUrl}/llms.txt`)).text()).to.not.match(/link\/credits|grantCredits|getCredits|voidCredits/);
      const mcp = await connectMcp(`${connector.baseUrl}/mcp`, await connector.link(newSubject()), '2026-07-28');
      try {
        const names = (await mcp.listTools()).tools.map((tool) => tool.name);
        expect(names.length).to.be.greaterThan(3);
        expect(names.filter((name) => /credit/i.test(name))).to.deep.equal([]);
      } finally {
        await mcp.close();
      }
    });
  });

  describe(`credit accounts over HTTP, BILLING_MODE=metered (the default) [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector(kind);
    });
    after(async () => connector?.close());

    it('a grant answers 409 naming BILLING_MODE and records nothing; the statement reads an empty account; /v1/me shows no credits', async () => {
      const dashboard = dashboardOf(connector);
      const subject = newSubject();
      const refused = await dashboard.grant({ subject, credits: 10, grant_id: newGrantId() });
      expectProblem(refused, 409, 'billing-mode');
      expect(refused.body.detail).to.include('BILLING_MODE');
      expect((await dashboard.statement({ subject })).body).to.deep.equal({ subject, balance: 0, held: 0, entries: [], next_cursor: null });
      const me = await connector.call('GET', '/v1/me', { token: await connector.link(subject) });
      expect(me.status, me.text).to.equal(200);
      expect(me.body).to.not.have.property('credits');
      expect(await grantedCounter(connector)).to.equal(0);
    });
  });
}
