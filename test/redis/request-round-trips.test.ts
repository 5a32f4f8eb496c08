import { expect } from 'chai';
import Redis from 'ioredis';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { commandCalls } from '../support/redis-fixture';

describe('Redis round trips of the hot requests, over HTTP on a private redis-server', () => {
  let c: ConnectorUnderTest;
  let observer: Redis;
  let token: string;

  before(async () => {
    // No worker in this process: only the API's own commands reach the server.
    c = await startConnector('redis', { DAILY_CREDIT_LIMIT: '50' }, { runWorker: false });
    observer = new Redis(connectionUrl(c.config.redis)!);
    token = await c.link(newSubject());
  });
  after(async () => {
    observer?.disconnect();
    await c?.close();
  });

  /** What one request costs in commands: the difference of two INFO readings around it (the INFO itself excluded). */
  async function commandsOf(request: () => Promise<unknown>): Promise<Record<string, number>> {
    const before = await commandCalls(observer);
    await request();
    const after = await commandCalls(observer);
    const delta: Record<string, number> = {};
    for (const name of Object.keys(after)) if (after[name] !== (before[name] ?? 0)) delta[name] = after[name] - (before[name] ?? 0);
    delta.info -= 1;
    if (delta.info === 0) delete delta.info;
    return delta;
  }

  it('GET /v1/me reads the usage and today’s spend inside the admission script: one script call, nothing after it', async () => {
    const created = await submitPrompt(c, token, 'charge me');
    expect(created.status, created.text).to.equal(202);
    let me: Awaited<ReturnType<ConnectorUnderTest['call']>> | undefined;
    const commands = await commandsOf(async () => (me = await c.call('GET', '/v1/me', { token })));
    expect(me!.status).to.equal(200);
    expect(me!.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    expect(me!.body.daily_budget).to.include({ limit: 50, spent: 1, remaining: 49 });
    expect((commands.evalsha ?? 0) + (commands.eval ?? 0), JSON.stringify(commands)).to.equal(1);
    expect(commands.hgetall, 'no separate usage read').to.equal(undefined);
  });

  it('GET /v1/me in prepaid billing reads the credit account inside the admission script too: one script call, nothing after it', async () => {
    const prepaid = await startConnector('redis', { BILLING_MODE: 'prepaid' }, { runWorker: false });
    try {
      const subject = newSubject();
      const granted = await prepaid.call('POST', '/v1/link/credits', {
        body: { subject, credits: 9, grant_id: `round-trips-${newKey()}` },
        headers: { 'x-link-secret': prepaid.config.linkSecret },
      });
      expect(granted.status, granted.text).to.equal(201);
      const prepaidToken = await prepaid.link(subject);
      const watcher = new Redis(connectionUrl(prepaid.config.redis)!);
      try {
        const before = await commandCalls(watcher);
        const me = await prepaid.call('GET', '/v1/me', { token: prepaidToken });
        const after = await commandCalls(watcher);
        expect(me.status, me.text).to.equal(200);
        expect(me.body.credits).to.deep.equal({ balance: 9, held: 0 });
        const scripts = (after.evalsha ?? 0) + (after.eval ?? 0) - (before.evalsha ?? 0) - (before.eval ?? 0);
        expect(scripts).to.equal(1);
        // INFO counts the script's own commands too: as many HMGETs as a metered /v1/me, whose script is the same.
        const metered = await commandsOf(() => c.call('GET', '/v1/me', { token }));
        expect((after.hmget ?? 0) - (before.hmget ?? 0), 'no separate account read').to.equal(metered.hmget);
      } finally {
        watcher.disconnect();
      }
    } finally {
      await prepaid.close();
    }
  });

  it('an MCP tools/call get_me (2026-07-28) reads the charges inside the admission script too: one script call, nothing after it', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'get_me',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    };
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_me',
    };
    const created = await submitPrompt(c, token, 'charge me too');
    expect(created.status, created.text).to.equal(202);
    const rest = await c.call('GET', '/v1/me', { token });
    let answer: { result?: { structuredContent?: Record<string, any> } } | undefined;
    const commands = await commandsOf(async () => {
      answer = (await (await fetch(`${c.baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as typeof answer;
    });
    const me = answer?.result?.structuredContent;
    expect(me?.usage, JSON.stringify(answer)).to.deep.equal(rest.body.usage);
    expect(me?.usage.jobs_charged).to.be.greaterThan(0);
    expect(me?.daily_budget).to.deep.equal(rest.body.daily_budget);
    expect((commands.evalsha ?? 0) + (commands.eval ?? 0), JSON.stringify(commands)).to.equal(1);
    expect(commands.hgetall, 'no separate usage read').to.equal(undefined);
  });

  it('a replay is one script call (the admission, the claim and its job’s read in one) and scans no list', async () => {
    const key = newKey();
    const send = () => submitPrompt(c, token, 'once', { key });
    const first = await send();
    expect(first.status, first.text).to.equal(202);
    let again: Awaited<ReturnType<ConnectorUnderTest['call']>> | undefined;
    const commands = await commandsOf(async () => (again = await send()));
    expect(again!.status).to.equal(202);
    expect(again!.body.id).to.equal(first.body.id);
    expect(again!.headers.get('ratelimit'), 'the window the script hit is announced').to.match(/^"subject";r=\d+;t=\d+$/);
    expect((commands.evalsha ?? 0) + (commands.eval ?? 0), JSON.stringify(commands)).to.equal(1);
    expect((commands.lpos ?? 0) + (commands.lrange ?? 0), JSON.stringify(commands)).to.equal(0);
  });

  it('a fresh job sends two script calls (the admission with the claim that reads its job, then the add) and reads nothing back', async () => {
    // A first job loads every script, so that none of the measured one's calls is a load after a NOSCRIPT.
    const warmUp = await submitPrompt(c, token, 'warm-up');
    expect(warmUp.status, warmUp.text).to.equal(202);
    const sent: string[] = [];
    const marker = `fresh-job-done-${newKey()}`;
    let markerSeen: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (markerSeen = resolve));
    const watcher = new Redis(connectionUrl(c.config.redis)!);
    const monitor = await watcher.monitor();
    // Commands a script runs arrive from the source `lua`; only those a client sent count here.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0] === 'echo' && args[1] === marker) markerSeen();
      else if (source !== 'lua') sent.push(String(args[0]).toLowerCase());
    });
    try {
      const created = await submitPrompt(c, token, 'fresh');
      expect(created.status, created.text).to.equal(202);
      // MONITOR reports in the server's order: once the marker is seen, every command of the request is.
      await observer.echo(marker);
      await seen;
    } finally {
      // MONITOR runs on a connection of its own: both are ended, or one would reconnect after the server stops.
      monitor.disconnect();
      watcher.disconnect();
    }
    const counts = Object.fromEntries([...new Set(sent)].map((name) => [name, sent.filter((n) => n === name).length]));
    expect(counts, JSON.stringify(counts)).to.deep.equal({ evalsha: 2 });
  });

  it('1,000 calls with one token write its last use once (a stored use a minute old), inside the admission script: one script call per request', async () => {
    const linked = await c.call('POST', '/v1/link', { body: { subject: newSubject() }, headers: { 'x-link-secret': c.config.linkSecret } });
    expect(linked.status, linked.text).to.equal(201);
    const key = `${c.config.redisKeyPrefix}conn:${linked.body.connection_id}`;
    await observer.hset(key, 'last_used_at', Math.floor(Date.now() / 1000) - 120);
    const started = Date.now();
    const commands = await commandsOf(async () => {
      for (let round = 0; round < 100; round++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => c.call('GET', '/v1/me', { token: linked.body.token })));
        for (const answer of answers) expect(answer.status).to.equal(200);
      }
    });
    const minutes = Math.floor((Date.now() - started) / 60_000);
    expect((commands.evalsha ?? 0) + (commands.eval ?? 0), JSON.stringify(commands)).to.equal(1000);
    expect(commands.hset, JSON.stringify(commands)).to.be.within(1, 1 + minutes);
    expect(Number(await observer.hget(key, 'last_used_at'))).to.be.at.least(Math.floor(started / 1000));
  });

  it('a Redis that lost its scripts (SCRIPT FLUSH, as after a restart): the next GET /v1/me is answered, its script sent in full once, by SHA after that', async () => {
    expect((await c.call('GET', '/v1/me', { token })).status).to.equal(200);
    await observer.script('FLUSH');
    let me: Awaited<ReturnType<ConnectorUnderTest['call']>> | undefined;
    const reloaded = await commandsOf(async () => (me = await c.call('GET', '/v1/me', { token })));
    expect(me!.status, me!.text).to.equal(200);
    expect(reloaded.eval, JSON.stringify(reloaded)).to.equal(1);
    const next = await commandsOf(() => c.call('GET', '/v1/me', { token }));
    expect([next.evalsha, next.eval], JSON.stringify(next)).to.deep.equal([1, undefined]);
  });
});
