import { expect } from 'chai';
import Redis from 'ioredis';
import { BACKENDS } from '../support/backends';
import { newKey, newSubject } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { connectMcp, rawToolCall } from '../support/mcp-client';
import { type OAuthTarget, oauthTarget, oauthTokens, registerClient, tokenRequest } from '../support/oauth-helpers';
import { monitorCommands } from '../support/redis-fixture';
import { linkOn, startWebhookStand, type WebhookStand } from '../support/webhook-stands';
import { waitFor } from '../testkit/wait-for';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The OAuth helpers take a connector; a stand offers the same surface. */
function asConnector(stand: WebhookStand): OAuthTarget {
  return oauthTarget(stand, { publicUrl: stand.publicUrl, linkSecret: stand.linkSecret });
}

/** One app connected over OAuth for `subject`: its connection id (from the approval) and its tokens. */
async function connectApp(stand: WebhookStand, subject: string, clientName: string) {
  const clientId = await registerClient(stand.baseUrl, undefined, clientName);
  const { connectionId, accessToken, refreshToken } = await oauthTokens(asConnector(stand), subject, clientId);
  expect(connectionId).to.match(/^conn_/);
  return { clientId, connectionId: connectionId!, accessToken, refreshToken };
}

for (const kind of BACKENDS) {
  describe(`the dashboard's connections on ${kind === 'memory' ? 'the memory backend' : 'Redis, with a built API process and a built worker process'}`, function () {
    this.timeout(60_000);
    let stand: WebhookStand;
    let observer: Redis | undefined;

    before(async function () {
      this.timeout(60_000);
      stand = await startWebhookStand(kind, { PLACEHOLDER_JOB_MS: '20' });
      if (stand.redis) observer = new Redis(stand.redis.url);
    });
    after(async () => {
      observer?.disconnect();
      await stand?.close();
    });

    const dashboard = (method: string, path: string, body?: unknown) =>
      stand.call(method, path, { body, headers: { 'x-link-secret': stand.linkSecret } });
    // encodeURIComponent, not URLSearchParams: a `+` in a query is refused rather than read as a space.
    const queryOf = (query: Record<string, string>) =>
      Object.entries(query)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join('&');
    const list = async (query: Record<string, string>) => {
      const res = await dashboard('GET', `/v1/link/connections?${queryOf(query)}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as { items: any[]; next_cursor: string | null };
    };
    const shownOf = async (subject: string, connectionId: string) =>
      (await list({ subject, include_revoked: 'true' })).items.find((c) => c.connection_id === connectionId);

    it("two OAuth apps and one /v1/link connection of a subject are listed newest first, with their kinds and client names; the approval names each app's connection", async () => {
      const subject = newSubject();
      const linked = await linkOn(stand, subject);
      const first = await connectApp(stand, subject, 'Calendar Helper');
      const second = await connectApp(stand, subject, 'Notes Assistant');

      const page = await list({ subject });
      expect(page.next_cursor).to.equal(null);
      const byId = new Map(page.items.map((c) => [c.connection_id, c]));
      expect([...byId.keys()].sort()).to.deep.equal([linked.connection_id, first.connectionId, second.connectionId].sort());
      expect(byId.get(linked.connection_id)).to.deep.include({ subject, kind: 'link', client: null, revoked: false, last_used_at: null });
      expect(byId.get(first.connectionId)).to.deep.include({
        subject,
        kind: 'oauth',
        client: { client_id: first.clientId, client_name: 'Calendar Helper' },
        revoked: false,
      });
      expect(byId.get(second.connectionId)).to.deep.include({
        subject,
        kind: 'oauth',
        client: { client_id: second.clientId, client_name: 'Notes Assistant' },
        revoked: false,
      });
      for (const item of page.items) {
        expect(item.created_at).to.match(ISO);
        expect(Date.parse(item.expires_at)).to.be.greaterThan(Date.parse(item.created_at));
      }
      // Newest first: creation times never increase down the list (ties in one second are ordered by id).
      const keys = page.items.map((c) => [Date.parse(c.created_at), c.connection_id] as const);
      for (let i = 1; i < keys.length; i++)
        expect(
          keys[i - 1][0] > keys[i][0] || (keys[i - 1][0] === keys[i][0] && keys[i - 1][1] > keys[i][1]),
          JSON.stringify(keys),
        ).to.equal(true);
      // The connection the approval named is the one the app's token acts through.
      const me = await stand.call('GET', '/v1/me', { token: first.accessToken });
      expect(me.body).to.deep.include({
        connection_id: first.connectionId,
        client: { client_id: first.clientId, client_name: 'Calendar Helper' },
      });
    });

    it('revoking one OAuth connection leaves the other two working, refuses its refresh token, and lists it only with include_revoked=true', async () => {
      const subject = newSubject();
      const linked = await linkOn(stand, subject);
      const kept = await connectApp(stand, subject, 'Kept App');
      const dropped = await connectApp(stand, subject, 'Dropped App');

      const revoked = await dashboard('POST', '/v1/link/revoke', { connection_id: dropped.connectionId });
      expect(revoked.body).to.deep.equal({ revoked: 1 });

      expect((await stand.call('GET', '/v1/me', { token: dropped.accessToken })).status).to.equal(401);
      const refresh = await tokenRequest(stand.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: dropped.refreshToken,
        client_id: dropped.clientId,
      });
      expect(refresh.status).to.equal(400);
      expect(refresh.body.error).to.equal('invalid_grant');

      expect((await stand.call('GET', '/v1/me', { token: linked.token })).status).to.equal(200);
      expect((await stand.call('GET', '/v1/me', { token: kept.accessToken })).status).to.equal(200);
      const keptRefresh = await tokenRequest(stand.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: kept.refreshToken,
        client_id: kept.clientId,
      });
      expect(keptRefresh.status, JSON.stringify(keptRefresh.body)).to.equal(200);
      expect((await stand.call('GET', '/v1/me', { token: keptRefresh.body.access_token })).status).to.equal(200);

      const live = await list({ subject });
      expect(live.items.map((c) => c.connection_id).sort()).to.deep.equal([linked.connection_id, kept.connectionId].sort());
      const all = await list({ subject, include_revoked: 'true' });
      expect(all.items.map((c) => c.connection_id).sort()).to.deep.equal(
        [linked.connection_id, kept.connectionId, dropped.connectionId].sort(),
      );
      expect(all.items.find((c) => c.connection_id === dropped.connectionId)).to.deep.include({
        revoked: true,
        kind: 'oauth',
        client: { client_id: dropped.clientId, client_name: 'Dropped App' },
      });
      expect((await list({ subject, include_revoked: 'false' })).items).to.have.length(2);
    });

    it('last_used_at is null until the token is used, then set by a REST call; an MCP call sets it for its own connection', async () => {
      const subject = newSubject();
      const rest = await linkOn(stand, subject);
      const mcp = await linkOn(stand, subject);
      expect((await shownOf(subject, rest.connection_id)).last_used_at).to.equal(null);

      const before = Math.floor(Date.now() / 1000) * 1000;
      expect((await stand.call('GET', '/v1/things', { token: rest.token })).status).to.equal(200);
      const used = (await shownOf(subject, rest.connection_id)).last_used_at;
      expect(used).to.match(ISO);
      expect(Date.parse(used)).to.be.within(before, Date.now());
      expect((await shownOf(subject, mcp.connection_id)).last_used_at, 'another connection of the subject is untouched').to.equal(null);

      const call = rawToolCall('get_me', {});
      const answer = await fetch(`${stand.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...call.headers, authorization: `Bearer ${mcp.token}` },
        body: JSON.stringify(call.body),
      });
      expect(answer.status, await answer.clone().text()).to.equal(200);
      expect((await shownOf(subject, mcp.connection_id)).last_used_at).to.match(ISO);
    });

    it('1,000 calls with one token record its use at most once a minute: one write for a stale value, the value then holds', async () => {
      const subject = newSubject();
      const { token, connection_id } = await linkOn(stand, subject);
      expect((await stand.call('GET', '/v1/me', { token })).status).to.equal(200);
      const first = (await shownOf(subject, connection_id)).last_used_at;
      expect(first).to.match(ISO);

      const writes: string[][] = [];
      const key = `${stand.env.REDIS_KEY_PREFIX}conn:${connection_id}`;
      const probe = `${stand.env.REDIS_KEY_PREFIX}probe:${connection_id}`;
      let probeSeen = false;
      let stop = async () => {};
      if (observer) {
        // Make the stored use two minutes old, as if the last call were that long ago: exactly one of the
        // next calls must write it, which MONITOR shows (it lists the commands scripts run too).
        await observer.hset(key, 'last_used_at', Math.floor(Date.now() / 1000) - 120);
        stop = await monitorCommands(stand.redis!.url, (args) => {
          if (args[0] === 'hset' && args[1] === key && args.includes('last_used_at')) writes.push(args);
          if (args[0] === 'set' && args[1] === probe) probeSeen = true;
        });
      }
      const started = Date.now();
      for (let round = 0; round < 100; round++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => stand.call('GET', '/v1/me', { token })));
        for (const answer of answers) expect(answer.status).to.equal(200);
      }
      const elapsedSeconds = (Date.now() - started) / 1000;
      if (observer) {
        // MONITOR reports in order: once a write made after the calls is seen, every write of theirs was.
        await observer.set(probe, '1');
        await waitFor(() => probeSeen, { what: 'MONITOR to report the probe' });
        await stop();
        expect(writes.length, `writes of last_used_at in ${elapsedSeconds.toFixed(1)} s`).to.be.within(
          1,
          1 + Math.floor(elapsedSeconds / 60),
        );
      }
      const now = (await shownOf(subject, connection_id)).last_used_at;
      if (observer) expect(Date.parse(now)).to.be.at.least(started - 1000);
      else
        expect(now, 'within the minute the first call recorded, later calls record nothing').to.satisfy(
          (value: string) => value === first || Date.parse(value) - Date.parse(first) >= 60_000,
        );
    });

    it('limit and cursor walk every connection once, newest first; a cursor not issued here is 400', async () => {
      const subject = newSubject();
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push((await linkOn(stand, subject)).connection_id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { items: any[]; next_cursor: string | null } = await list({ subject, limit: '3', ...(cursor ? { cursor } : {}) });
        expect(page.items.length).to.be.at.most(3);
        seen.push(...page.items.map((c) => c.connection_id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).to.equal(3);
      expect([...seen].sort()).to.deep.equal([...made].sort());
      expect(seen).to.deep.equal((await list({ subject, limit: '100' })).items.map((c) => c.connection_id));
      expect((await list({ subject })).items, 'the default page holds 25').to.have.length(7);

      const forged = await dashboard(
        'GET',
        `/v1/link/connections?subject=${encodeURIComponent(subject)}&cursor=${Buffer.from('t1.1.conn_x!').toString('base64url')}`,
      );
      expect(forged.status).to.equal(400);
      expect(forged.headers.get('content-type')).to.match(/^application\/problem\+json/);
      for (const limit of ['0', '101', 'ten'])
        expect((await dashboard('GET', `/v1/link/connections?subject=a&limit=${limit}`)).status, limit).to.equal(400);
    });

    it('subjects are normalised as /v1/link does: another spelling lists the same connections; an invalid one is 400', async () => {
      const base = `josé-${newKey()}@example.com`;
      const { connection_id } = await linkOn(stand, base.normalize('NFC'));
      const spelled = `  ${base.normalize('NFD')} `;
      expect((await list({ subject: spelled })).items.map((c) => c.connection_id)).to.deep.equal([connection_id]);
      expect((await list({ subject: spelled })).items[0].subject).to.equal(base.normalize('NFC'));
      const invalid = await dashboard('GET', `/v1/link/connections?subject=${encodeURIComponent('a\u200bb')}`);
      expect(invalid.status).to.equal(400);
      expect(invalid.body.errors[0].path).to.equal('/query/subject');
      expect((await dashboard('GET', '/v1/link/connections')).status, 'no subject').to.equal(400);
      expect(
        (await dashboard('GET', '/v1/link/connections?subject=a+b%40example.com')).status,
        'an unencoded +, ambiguous in a query',
      ).to.equal(400);
      expect((await list({ subject: newSubject() })).items, 'a subject never linked').to.deep.equal([]);
    });

    it("the usage of a subject: totals, today's credits, zeros for the other days, the daily limit; days bounded 1..90", async () => {
      const subject = newSubject();
      const { token } = await linkOn(stand, subject);
      for (let i = 0; i < 3; i++) {
        const job = await submitPrompt(stand, token, `usage ${i}`);
        expect(job.status, job.text).to.equal(202);
      }
      const res = await dashboard('GET', `/v1/link/usage?subject=${encodeURIComponent(` ${subject}`)}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ subject, credits_spent: 3, credits_refunded: 0, jobs_charged: 3, daily_credit_limit: null });
      expect(res.body.days).to.have.length(30);
      expect(res.body.days[0]).to.deep.equal({ date: new Date().toISOString().slice(0, 10), credits: 3, charged: 3, refunded: 0 });
      expect(res.body.days.slice(1).every((d: { credits: number }) => d.credits === 0)).to.equal(true);
      expect(Date.parse(res.body.days[0].date) - Date.parse(res.body.days[29].date)).to.equal(29 * 86_400_000);
      const me = await stand.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 3, credits_spent: 3, credits_refunded: 0 });

      expect((await dashboard('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=1`)).body.days).to.have.length(1);
      expect((await dashboard('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=90`)).body.days).to.have.length(90);
      for (const days of ['0', '91', 'x'])
        expect((await dashboard('GET', `/v1/link/usage?subject=a&days=${days}`)).status, days).to.equal(400);
      const never = await dashboard('GET', `/v1/link/usage?subject=${encodeURIComponent(newSubject())}&days=2`);
      expect(never.body).to.deep.include({ credits_spent: 0, jobs_charged: 0 });
      expect(never.body.days.map((d: { credits: number }) => d.credits)).to.deep.equal([0, 0]);
    });

    it('without the link secret, or with a wrong one, both operations answer 401 problem+json', async () => {
      for (const path of ['/v1/link/connections?subject=a', '/v1/link/usage?subject=a']) {
        for (const headers of [{}, { 'x-link-secret': 'wrong' }] as Array<Record<string, string>>) {
          const res = await stand.call('GET', path, { headers });
          expect(res.status, path).to.equal(401);
          expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(res.text).to.not.contain('subject=');
        }
      }
    });

    it('neither operation is published: absent from /openapi.json, /llms.txt and the MCP tools', async () => {
      const document = (await (await fetch(`${stand.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths)).to.not.include.members(['/v1/link/connections', '/v1/link/usage']);
      expect(JSON.stringify(document)).to.not.match(/listConnections|getUsage|\/v1\/link/);
      const llms = await (await fetch(`${stand.baseUrl}/llms.txt`)).text();
      expect(llms).to.not.match(/listConnections|getUsage|\/v1\/link/);
      const { token } = await linkOn(stand, newSubject());
      const client = await connectMcp(`${stand.baseUrl}/mcp`, token, '2026-07-28');
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names.length).to.be.greaterThan(0);
        expect(names.join(' ')).to.not.match(/connection|usage/i);
      } finally {
        await client.close();
      }
    });
  });
}
