import { expect } from 'chai';
import { expectCancelRefund } from '../../support/cancel-refund';
import { type Deployment, SHORT_LOCK, successesByJob, usageOf } from '../../support/deployment';
import { newKey, newSubject } from '../../support/harness';
import { pollJob } from '../../support/job-polling';
import { submitPrompt } from '../../support/job-submission';
import { callOk, connectMcp, legacyTasks, OutputChecker, pollJobOverMcp, REVISIONS } from '../../support/mcp-client';
import { measurement } from '../../support/measurement';
import { codeFor, codeForm, type OAuthTarget, oauthTarget, tokenRequest } from '../../support/oauth-helpers';
import type { ApiUnderTest } from '../../support/processes';
import { roundRobinProxy } from '../../support/round-robin-proxy';
import { waitFor } from '../../testkit/wait-for';

/** A spawned API seen as the OAuth helpers' target, with the settings its environment gave it. */
const targetOf = (api: ApiUnderTest, env: Record<string, string>): OAuthTarget =>
  oauthTarget(api, { publicUrl: env.PUBLIC_URL, linkSecret: env.LINK_SECRET });

/**
 * The flows every topology must serve, registered as tests of the calling `describe` against its deployment:
 * the README walk-through, MCP and OAuth across both API processes, the dashboard's connections and usage,
 * 200 concurrent retries of one key, a worker killed mid-job, and cancels racing jobs' start through both APIs.
 */
export function commonFlows(deployment: () => Deployment): void {
  it('the README walk-through across both API processes: link, me, a thing, a job polled to success, a replayed retry, one charge', async () => {
    const { a, b } = deployment();
    const subject = newSubject();
    const { token } = await a.link(subject);
    const me = await b.call('GET', '/v1/me', { token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.include({ subject });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
    const thing = await a.call('POST', '/v1/things', { token, body: { name: 'on this topology' } });
    expect(thing.status, thing.text).to.equal(201);
    const things = await b.call('GET', '/v1/things', { token });
    expect(things.body.items.map((item: { id: string }) => item.id)).to.deep.equal([thing.body.id]);

    const request = { token, body: { input: { prompt: 'Summarise my week' } }, headers: { 'idempotency-key': 'walkthrough-1' } };
    const created = await a.call('POST', '/v1/jobs', request);
    expect(created.status, created.text).to.equal(202);
    expect(created.headers.get('location')).to.equal(`/v1/jobs/${created.body.id}`);
    expect(created.headers.get('retry-after')).to.match(/^\d+$/);
    const done = await pollJob(b, token, created.body.id, (job) => job.status === 'succeeded' || job.status === 'failed');
    expect(done).to.include({ id: created.body.id, status: 'succeeded' });
    expect(done.result).to.include({ summary: 'Summarise my week' });
    const replayed = await b.call('POST', '/v1/jobs', request);
    expect(replayed.status, replayed.text).to.equal(202);
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body.id).to.equal(created.body.id);
    expect(await usageOf(a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    const jobs = await a.call('GET', '/v1/jobs', { token });
    expect(jobs.body.items.map((job: { id: string }) => job.id)).to.deep.equal([created.body.id]);
  });

  it('MCP at both revisions through a round-robin proxy over both APIs: tools, a job to success, a replay, one charge; a task read on the other API', async () => {
    const { a, b } = deployment();
    const proxy = await roundRobinProxy({ A: a.baseUrl, B: b.baseUrl });
    try {
      for (const revision of REVISIONS) {
        const { token } = await a.link(newSubject());
        const client = await connectMcp(`${proxy.url}/mcp`, token, revision);
        try {
          const checker = new OutputChecker((await client.listTools()).tools);
          const thing = await callOk(client, checker, 'create_thing', { name: revision });
          expect((await callOk(client, checker, 'list_things')).items.map((item: { id: string }) => item.id)).to.deep.equal([thing.id]);
          const key = newKey();
          const job = await callOk(client, checker, 'create_job', { input: { prompt: revision }, idempotency_key: key });
          expect((await pollJobOverMcp(client, checker, job.id)).status, revision).to.equal('succeeded');
          expect((await callOk(client, checker, 'create_job', { input: { prompt: revision }, idempotency_key: key })).id).to.equal(job.id);
          expect((await callOk(client, checker, 'get_me')).usage, revision).to.deep.equal({
            jobs_charged: 1,
            credits_spent: 1,
            credits_refunded: 0,
          });
        } finally {
          await client.close();
        }
      }
      const served = new Set(proxy.served.filter((entry) => entry.method === 'tools/call').map((entry) => entry.replica));
      expect(served).to.deep.equal(new Set(['A', 'B']));

      const { token } = await a.link(newSubject());
      const client = await connectMcp(`${proxy.url}/mcp`, token, '2025-11-25');
      proxy.steer.set('tools/call', 'A').set('tasks/result', 'B');
      try {
        const created = await legacyTasks.create(client, 'create_job', {
          input: { prompt: 'task across APIs' },
          idempotency_key: newKey(),
        });
        await waitFor(async () => (await legacyTasks.get(client, created.task.taskId)).status === 'completed', {
          what: 'the task to complete',
        });
        const result = await legacyTasks.result(client, created.task.taskId);
        expect(result.structuredContent).to.include({ id: created.task.taskId, status: 'succeeded' });
      } finally {
        await client.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it('OAuth across both APIs: a code flow to /v1/me with the client, refresh rotation, a reused refresh token ending the grant, a code redeemed concurrently yielding no lasting token', async () => {
    const { a, b, env } = deployment();
    const subject = newSubject();
    const { clientId, code, verifier } = await codeFor(targetOf(a, env), subject);
    const redeemed = await tokenRequest(b.baseUrl, codeForm(clientId, code, verifier));
    expect(redeemed.status, JSON.stringify(redeemed.body)).to.equal(200);
    const tokens = redeemed.body;
    const me = await a.call('GET', '/v1/me', { token: tokens.access_token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.include({ subject });
    expect(me.body.client).to.deep.include({ client_id: clientId });

    const refresh = (api: ApiUnderTest, token: string) =>
      tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
    const rotated = await refresh(b, tokens.refresh_token);
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    expect(rotated.body.refresh_token).to.not.equal(tokens.refresh_token);
    expect((await b.call('GET', '/v1/me', { token: rotated.body.access_token })).body.connection_id).to.equal(me.body.connection_id);
    const reused = await refresh(a, tokens.refresh_token);
    expect(reused.status).to.equal(400);
    expect(reused.body.error).to.equal('invalid_grant');
    expect((await b.call('GET', '/v1/me', { token: rotated.body.access_token })).status, 'the rotated token after the reuse').to.equal(401);

    // A code redeemed concurrently on both APIs: at most one redemption gets tokens, every other one is
    // refused, and the reuse revokes whatever the code gave (RFC 6749 4.1.2), so no token of it works after.
    const second = await codeFor(targetOf(b, env), newSubject(), clientId);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => tokenRequest((i % 2 === 0 ? a : b).baseUrl, codeForm(clientId, second.code, second.verifier))),
    );
    const granted = answers.filter((answer) => answer.status === 200);
    expect(granted.length, JSON.stringify(answers.map((answer) => answer.body.error ?? 'tokens'))).to.be.at.most(1);
    expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_grant')).to.have.length(8 - granted.length);
    for (const answer of granted) expect((await a.call('GET', '/v1/me', { token: answer.body.access_token })).status).to.equal(401);
  });

  it('the dashboard across both APIs: an app and a link listed with their last use, the app revoked alone, the usage per day', async () => {
    const { a, b, env } = deployment();
    const subject = newSubject();
    const headers = { 'x-link-secret': env.LINK_SECRET };
    const linked = await a.link(subject);
    const app = await codeFor(targetOf(b, env), subject);
    const tokens = await tokenRequest(a.baseUrl, codeForm(app.clientId, app.code, app.verifier));
    expect(tokens.status, JSON.stringify(tokens.body)).to.equal(200);
    expect((await b.call('GET', '/v1/me', { token: linked.token })).status).to.equal(200);
    const job = await submitPrompt(a, tokens.body.access_token, 'dashboard');
    expect(job.status, job.text).to.equal(202);

    const listed = await b.call('GET', `/v1/link/connections?subject=${encodeURIComponent(subject)}`, { headers });
    expect(listed.status, listed.text).to.equal(200);
    const byId = new Map(listed.body.items.map((c: { connection_id: string }) => [c.connection_id, c]));
    expect(byId.get(linked.connection_id)).to.deep.include({ kind: 'link', client: null });
    expect(byId.get(app.connectionId)).to.deep.include({ kind: 'oauth', client: { client_id: app.clientId, client_name: 'Test App' } });
    for (const id of [linked.connection_id, app.connectionId])
      expect((byId.get(id) as { last_used_at: string | null }).last_used_at, id).to.be.a('string');

    expect((await a.call('POST', '/v1/link/revoke', { headers, body: { connection_id: app.connectionId } })).body).to.deep.equal({
      revoked: 1,
    });
    expect((await b.call('GET', '/v1/me', { token: tokens.body.access_token })).status).to.equal(401);
    expect((await b.call('GET', '/v1/me', { token: linked.token })).status).to.equal(200);
    const usage = await a.call('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=2`, { headers });
    expect(usage.status, usage.text).to.equal(200);
    expect(usage.body).to.deep.include({ credits_spent: 1, jobs_charged: 1 });
    expect(usage.body.days.map((d: { credits: number }) => d.credits)).to.deep.equal([1, 0]);
  });

  it('200 concurrent retries of one key split over both APIs answer 202 only, with one job, one non-replayed answer and one charge', async () => {
    const { a, b } = deployment();
    const { token } = await a.link(newSubject());
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => submitPrompt(i % 2 === 0 ? a : b, token, 'once only', { key })),
    );
    const statuses: Record<number, number> = {};
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    expect(statuses).to.deep.equal({ 202: 200 });
    expect(new Set(answers.map((answer) => answer.body.id)).size).to.equal(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).to.have.length(1);
    const done = await pollJob(b, token, answers[0].body.id, (job) => job.status === 'succeeded');
    expect(done.attempts).to.equal(1);
    expect(await usageOf(a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });

  it('a worker SIGKILLed mid-job leaves the job to another worker, which finishes it once; one charge', async () => {
    const dep = deployment();
    const { a, b } = dep;
    // Only a worker that takes a minute per job runs while the job starts; it is killed long before.
    expect(await dep.worker.stop()).to.equal(0);
    const doomed = await dep.startWorker({ PLACEHOLDER_JOB_MS: '60000', ...SHORT_LOCK });
    const { token } = await a.link(newSubject());
    const created = await submitPrompt(a, token, 'survive a crash');
    expect(created.status, created.text).to.equal(202);
    await pollJob(b, token, created.body.id, (job) => job.status === 'running');
    expect(await doomed.kill()).to.equal('SIGKILL');
    const killedAt = Date.now();
    dep.worker = await dep.startWorker();
    const done = await pollJob(b, token, created.body.id, (job) => job.status === 'succeeded', 20_000);
    measurement(`      job finished by the second worker ${Date.now() - killedAt} ms after the SIGKILL`);
    expect(done.attempts).to.equal(2);
    expect(done.result).to.include({ summary: 'survive a crash' });
    expect(await usageOf(a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    const finishedBy = (worker: typeof doomed) =>
      worker.logLines().filter((line) => line.msg === 'job succeeded' && line.job_id === created.body.id).length;
    expect(finishedBy(doomed)).to.equal(0);
    expect(finishedBy(dep.worker)).to.equal(1);
  });

  it('60 jobs canceled through both APIs at once, at random moments while they drain: each ends canceled and refunded or ran once and charged, and the money adds up', async () => {
    const dep = deployment();
    const { a, b } = dep;
    const subject = newSubject();
    const { token } = await a.link(subject);
    const jobs = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await submitPrompt(i % 2 === 0 ? a : b, token, `race ${i}`);
        expect(res.status, res.text).to.equal(202);
        return res.body as { id: string; cost: number };
      }),
    );
    // A random delay spreads the cancels over the drain (queued, being taken, running, finished); it waits for nothing.
    await Promise.all(
      jobs.map(async (job) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 1000)));
        const answers = await Promise.all(
          [a, b].map((api) => api.call('DELETE', `/v1/jobs/${job.id}`, { token }).then((res) => res.status)),
        );
        for (const answer of answers) expect([200, 202, 409]).to.include(answer);
      }),
    );
    let charged = 0;
    let refunded = 0;
    for (const job of jobs) {
      const ended = await pollJob(b, token, job.id, (seen) => ['succeeded', 'failed', 'canceled'].includes(seen.status), 30_000);
      charged += job.cost;
      if (ended.status === 'canceled') {
        refunded += expectCancelRefund(ended, job.id);
        expect(ended).to.include({ result: null });
      } else expect(ended).to.include({ status: 'succeeded', refunded_credits: 0 });
    }
    const successes = successesByJob(dep.workers);
    for (const job of jobs) {
      const ended = (await a.call('GET', `/v1/jobs/${job.id}`, { token })).body;
      expect(successes.get(job.id) ?? 0, job.id).to.equal(ended.status === 'succeeded' ? 1 : 0);
    }
    expect(await usageOf(a, token)).to.deep.equal({ jobs_charged: 60, credits_spent: charged - refunded, credits_refunded: refunded });
  });
}
