import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { newKey } from '../support/harness';
import { previousUses, ROTATION, verifiesWith } from '../support/rotation';
import { RotationFleet } from '../support/rotation-fleet';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const { connector: cs, link: ls, webhook: ws } = ROTATION;
const SUBJECT = 'rolling-rotation@example.com';

/**
 * The rolls of one rotation, each a full rolling update of both APIs and the worker. First the new connector
 * secret is made acceptable everywhere before anyone signs with it (otherwise, while the update is under way,
 * a token minted by a new replica would be refused by an old one), and both link and webhook secrets enter
 * their overlap; then the new connector secret signs, the old one still accepted; then every previous goes.
 */
const ROLLS = {
  accept: { CONNECTOR_SECRET: cs.old, CONNECTOR_SECRET_PREVIOUS: cs.new, LINK_SECRET: ls.new, LINK_SECRET_PREVIOUS: ls.old },
  overlap: { CONNECTOR_SECRET: cs.new, CONNECTOR_SECRET_PREVIOUS: cs.old, LINK_SECRET: ls.new, LINK_SECRET_PREVIOUS: ls.old },
  after: { CONNECTOR_SECRET: cs.new, LINK_SECRET: ls.new },
} as const;

/** What the dashboard, the platform and the receiver hold at each moment, and what went wrong. */
interface World {
  dashboardSecret: string;
  /** True while the token minted before the rotation must still be accepted (until its secret's removal starts). */
  oldTokenValid: boolean;
  receiverSecret: string;
  problems: string[];
  counts: { links: number; fresh: number; old: number; retries: number; deliveries: Record<string, number> };
}

describe('a rotation of every secret as rolling restarts of two APIs behind HAProxy and a worker on Redis, under steady traffic', function () {
  this.timeout(180_000);
  let dir: string;
  let redis: TestRedis;
  let receiver: WebhookReceiver;
  let fleet: RotationFleet | undefined;
  let stopped = false;
  const world: World = {
    dashboardSecret: ls.old,
    oldTokenValid: true,
    receiverSecret: ws.old,
    problems: [],
    counts: { links: 0, fresh: 0, old: 0, retries: 0, deliveries: {} },
  };
  const key = newKey();
  let oldToken = '';
  let jobId = '';
  let connectorUses = 0;
  let linkUses = 0;
  const exitCodes: Array<number | string> = [];
  let base = '';

  const request = (method: string, route: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${base}${route}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const link = (secret: string) => request('POST', '/v1/link', { 'x-link-secret': secret }, { subject: SUBJECT });
  const me = (token: string) => request('GET', '/v1/me', { authorization: `Bearer ${token}` });
  const retry = (token: string) =>
    request('POST', '/v1/jobs', { authorization: `Bearer ${token}`, 'idempotency-key': key }, { input: { prompt: 'rotation' } });

  /** One platform-and-dashboard client: link, use the fresh token, retry the paid job, use the old token. */
  async function client(): Promise<void> {
    while (!stopped) {
      const linked = await link(world.dashboardSecret);
      world.counts.links += 1;
      if (linked.status !== 201) {
        world.problems.push(`POST /v1/link with the dashboard's secret answered ${linked.status}`);
        continue;
      }
      const { token } = (await linked.json()) as { token: string };
      const fresh = await me(token);
      world.counts.fresh += 1;
      if (fresh.status !== 200) world.problems.push(`a token just minted got ${fresh.status}`);
      const again = await retry(token);
      world.counts.retries += 1;
      const job = (await again.json()) as { id?: string };
      if (again.status !== 202 || job.id !== jobId) world.problems.push(`the retried key answered ${again.status} with job ${job.id}`);
      if (world.oldTokenValid) {
        const old = await me(oldToken);
        world.counts.old += 1;
        if (old.status !== 200 && world.oldTokenValid) world.problems.push(`the token from before the rotation got ${old.status}`);
      }
    }
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rolling-rotation-test-'));
    redis = await startRedis();
    receiver = await WebhookReceiver.start(ws.new);
    // The receiver checks each delivery with the one secret it holds at that moment, as a real one would.
    receiver.answer = (received) => {
      const held = world.receiverSecret === ws.old ? 'old' : 'new';
      world.counts.deliveries[held] = (world.counts.deliveries[held] ?? 0) + 1;
      if (verifiesWith(world.receiverSecret, received)) return 204;
      world.problems.push(`a delivery did not verify with the ${held} webhook secret`);
      return 401;
    };
    const hooks = (current: string, previous?: string) => ({
      WEBHOOK_SECRET: current,
      ...(previous ? { WEBHOOK_SECRET_PREVIOUS: previous } : {}),
    });
    const shared = {
      PUBLIC_URL: 'http://localhost:8787',
      DASHBOARD_URL: 'https://dashboard.example.com',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'rolling-rotation:',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
      PLACEHOLDER_JOB_MS: '50',
      SHUTDOWN_DELAY_MS: '1500',
      SHUTDOWN_GRACE_MS: '5000',
      WEBHOOK_URL: receiver.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    fleet = await RotationFleet.start(dir, shared, { CONNECTOR_SECRET: cs.old, LINK_SECRET: ls.old, ...hooks(ws.old) });
    base = fleet.haproxy.url;

    const first = await link(ls.old);
    expect(first.status).to.equal(201);
    oldToken = ((await first.json()) as { token: string }).token;
    const job = await retry(oldToken);
    expect(job.status).to.equal(202);
    jobId = ((await job.json()) as { id: string }).id;

    const clients = [client(), client()];
    await waitFor(() => world.counts.retries >= 10, { what: 'steady traffic', timeoutMs: 30_000 });
    exitCodes.push(...(await fleet.roll({ ...ROLLS.accept, ...hooks(ws.new, ws.old) })));
    // Every process now signs deliveries under both webhook secrets: the receiver switches to the new one.
    world.receiverSecret = ws.new;
    exitCodes.push(...(await fleet.roll({ ...ROLLS.overlap, ...hooks(ws.new, ws.old) })));
    for (const url of fleet.apiMetricsUrls) {
      connectorUses += await previousUses(url, 'connector');
      linkUses += await previousUses(url, 'link');
    }
    // Runbook order: the dashboard switches, then the old token's last valid moment is the removal's start.
    world.dashboardSecret = ls.new;
    const linksAtSwitch = world.counts.links;
    await waitFor(() => world.counts.links >= linksAtSwitch + 10, { what: 'traffic on the new link secret', timeoutMs: 30_000 });
    world.oldTokenValid = false;
    exitCodes.push(...(await fleet.roll({ ...ROLLS.after, ...hooks(ws.new) })));
    const before = world.counts.retries;
    await waitFor(() => world.counts.retries >= before + 10, { what: 'traffic after the rotation', timeoutMs: 30_000 });
    stopped = true;
    await Promise.all(clients);
  });
  after(async () => {
    stopped = true;
    await fleet?.stop();
    await receiver?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses no valid token or link secret, answers every retry with the same job, and every process exits 0', () => {
    expect(world.problems.slice(0, 5), `${world.problems.length} problems`).to.deep.equal([]);
    expect(world.counts.fresh).to.be.at.least(30);
    expect(world.counts.old).to.be.at.least(20);
    expect(exitCodes).to.deep.equal([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('counted the overlap’s uses of the previous connector and link secrets', () => {
    expect(connectorUses).to.be.greaterThan(0);
    expect(linkUses).to.be.greaterThan(0);
  });

  it('delivered events a receiver verified with the old secret, then with the new one', async () => {
    await waitFor(() => (world.counts.deliveries.old ?? 0) > 0 && (world.counts.deliveries.new ?? 0) > 0, {
      what: 'deliveries',
      timeoutMs: 20_000,
    });
    expect(world.problems).to.deep.equal([]);
  });

  it('after it, refuses the old token and link secret, and the retried key still replays its one charged job', async () => {
    for (let i = 0; i < 4; i++) expect((await me(oldToken)).status).to.equal(401);
    for (let i = 0; i < 4; i++) expect((await link(ls.old)).status).to.equal(401);
    const linked = await link(ls.new);
    const { token } = (await linked.json()) as { token: string };
    const replay = await retry(token);
    expect(replay.status).to.equal(202);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(((await replay.json()) as { id: string }).id).to.equal(jobId);
    const usage = ((await (await me(token)).json()) as { usage: { jobs_charged: number } }).usage;
    expect(usage.jobs_charged).to.equal(1);
  });
});
