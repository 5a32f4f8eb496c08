import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { EXTENDED_REGISTRY } from '../support/extra-operations';
import { type CallResult, type ConnectorUnderTest, newSubject, startConnector, startRedisPair } from '../support/harness';
import { submitJob } from '../support/job-submission';
import { connectMcp } from '../support/mcp-client';

/*
 * countWords of the template trial declares its own limits: 20 calls a minute and 30 credits (10 counts of 3)
 * a UTC day per subject, on top of the connector's. On Redis the calls go to two replicas sharing one Redis,
 * alternately, so a limit that held per process only would let twice as many through.
 */

const OPERATIONS = EXTENDED_REGISTRY.operations;
const PER_MINUTE = 20;
const DAILY_CREDITS = 30;
const PRICE = 3;
const DAY_MS = 86_400_000;
const PROBLEM = 'urn:connector:problem:';

/** A countWords call that admission counts and the schema then refuses (400): no job, no charge. */
const refusedCount = (replica: ConnectorUnderTest, token: string) =>
  submitJob(replica, token, { operationId: 'countWords', input: {}, operations: OPERATIONS });

/** A countWords job of its example input, 3 credits. */
const count = (replica: ConnectorUnderTest, token: string) =>
  submitJob(replica, token, { operationId: 'countWords', operations: OPERATIONS });

/** The members of a structured-field list header, by name: `"op-countWords";r=3;t=60` → `{ 'op-countWords': 'r=3;t=60' }`. */
function members(header: string | null): Record<string, string> {
  const entries = (header ?? '').split(/,\s*/).filter(Boolean);
  return Object.fromEntries(entries.map((entry) => /^"([^"]+)";(.*)$/.exec(entry)!.slice(1, 3)));
}

for (const backend of BACKENDS) {
  describe(`an operation's own limits, countWords at ${PER_MINUTE} a minute and ${DAILY_CREDITS} credits a day [${backend}]`, function () {
    this.timeout(60_000);
    let replicas: ConnectorUnderTest[];
    // The daily budgets' clock: a test moves it to the next UTC day instead of waiting for midnight.
    let clock = Date.now();
    const now = () => clock;

    before(async () => {
      const options = { operations: OPERATIONS, now };
      replicas = backend === 'redis' ? await startRedisPair({}, options) : [await startConnector(backend, {}, options)];
    });
    after(async () => {
      for (const replica of replicas ?? []) await replica.close();
    });

    /** The replica for the `i`-th call: alternating over the replicas. */
    const on = (i: number) => replicas[i % replicas.length];

    it('the limits are published: x-limits, the composed description, the llms.txt line and rule, and the MCP tool', async () => {
      const sentence = 'At most 20 calls a minute; at most 30 credits a day.';
      const document = (await replicas[0].call('GET', '/openapi.json')).body;
      const published = document.paths['/v1/word-counts'].post;
      expect(published['x-limits']).to.deep.equal({ per_minute: PER_MINUTE, daily_credits: DAILY_CREDITS, text: sentence });
      expect(published.description.endsWith(` ${sentence}`)).to.equal(true);
      expect(document.paths['/v1/translations'].post).to.not.have.property('x-limits');
      const llms = (await replicas[0].call('GET', '/llms.txt')).text;
      expect(llms).to.include(`- Limits per person: ${sentence} A 429 or 402 naming this operation means its own limit`);
      expect(llms).to.include('- A 402 whose type ends in operation-budget-exhausted');
      const client = await connectMcp(`${replicas[0].baseUrl}/mcp`, await replicas[0].link(newSubject()), '2026-07-28');
      try {
        const { tools } = await client.listTools();
        expect(tools.find((tool) => tool.name === 'count_words')?.description).to.equal(published.description);
      } finally {
        await client.close();
      }
    });

    it(`${PER_MINUTE * 2} concurrent calls over every replica: exactly ${PER_MINUTE} get past the operation's limit, the rest answer 429 naming it`, async () => {
      const token = await replicas[0].link(newSubject());
      const answers = await Promise.all(Array.from({ length: PER_MINUTE * 2 }, (_, i) => refusedCount(on(i), token)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).to.deep.equal([...Array(PER_MINUTE).fill(400), ...Array(PER_MINUTE).fill(429)]);
      const limited = answers.find((answer) => answer.status === 429)!;
      expect(limited.body).to.include({ type: `${PROBLEM}rate-limited`, operation: 'countWords', limit: PER_MINUTE, window_seconds: 60 });
      expect(limited.body.detail).to.match(/^Too many calls of countWords: at most 20 a minute per person\. Retry after \d+ seconds\.$/);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
      expect(members(limited.headers.get('ratelimit'))['op-countWords']).to.match(/^r=0;t=\d+$/);
    });

    it("every answer announces the operation's policy beside the subject's, counting down; other operations and the subject's own limit are not touched", async () => {
      const token = await replicas[0].link(newSubject());
      for (let i = 1; i <= 3; i++) {
        const answer = await refusedCount(on(i), token);
        expect(answer.status, answer.text).to.equal(400);
        expect(members(answer.headers.get('ratelimit-policy'))).to.deep.equal({ subject: 'q=100000;w=60', 'op-countWords': 'q=20;w=60' });
        expect(members(answer.headers.get('ratelimit'))['op-countWords']).to.match(new RegExp(`^r=${PER_MINUTE - i};t=\\d+$`));
      }
      for (let i = 3; i < PER_MINUTE; i++) await refusedCount(on(i), token);
      expect((await refusedCount(on(0), token)).status).to.equal(429);
      const me = await on(1).call('GET', '/v1/me', { token });
      expect(me.status).to.equal(200);
      expect(Object.keys(members(me.headers.get('ratelimit-policy')))).to.deep.equal(['subject']);
      const echo = await on(0).call('POST', '/v1/echo', { token, body: { note: 'still here' } });
      expect(echo.status).to.equal(200);
      expect((await submitJob(on(1), token, { operationId: 'translateDocument', operations: OPERATIONS })).status).to.equal(202);
    });

    it('a tool call over MCP counts in the same window as REST: past the limit the tool answers an error naming it, and nothing is charged', async () => {
      const subject = newSubject();
      const token = await replicas[0].link(subject);
      for (let i = 0; i < PER_MINUTE - 1; i++) expect((await refusedCount(on(i), token)).status).to.equal(400);
      const client = await connectMcp(`${on(1).baseUrl}/mcp`, token, '2026-07-28');
      try {
        const args = { input: { text: 'Two words.' }, idempotency_key: 'mcp-limited-1' };
        const last = await client.callTool({ name: 'count_words', arguments: args });
        expect(last.isError, JSON.stringify(last)).to.not.equal(true);
        const over = await client.callTool({ name: 'count_words', arguments: { ...args, idempotency_key: 'mcp-limited-2' } });
        expect(over.isError).to.equal(true);
        expect(JSON.stringify(over.content)).to.include('Too many calls of countWords: at most 20 a minute per person.');
      } finally {
        await client.close();
      }
      const me = await on(0).call('GET', '/v1/me', { token });
      expect(me.body.usage).to.include({ jobs_charged: 1, credits_spent: PRICE });
    });

    it(`${DAILY_CREDITS / PRICE + 2} concurrent counts over every replica: exactly ${DAILY_CREDITS / PRICE} are charged, the rest answer 402 naming the operation's cap and its reset`, async () => {
      const token = await replicas[0].link(newSubject());
      const sentAt = now();
      const answers = await Promise.all(Array.from({ length: DAILY_CREDITS / PRICE + 2 }, (_, i) => count(on(i), token)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).to.deep.equal([...Array(DAILY_CREDITS / PRICE).fill(202), 402, 402]);
      const refused = answers.find((answer) => answer.status === 402)!;
      const resetsAt = new Date((Math.floor(sentAt / DAY_MS) + 1) * DAY_MS).toISOString();
      expect(refused.body).to.include({
        type: `${PROBLEM}operation-budget-exhausted`,
        operation: 'countWords',
        limit: DAILY_CREDITS,
        resets_at: resetsAt,
      });
      expect(refused.body.detail).to.include(`daily cap of ${DAILY_CREDITS} credits on countWords`).and.include(resetsAt);
      const expected = (Date.parse(resetsAt) - sentAt) / 1000;
      expect(Number(refused.headers.get('retry-after'))).to.be.within(Math.floor(expected) - 5, Math.ceil(expected) + 1);
      const me = await on(1).call('GET', '/v1/me', { token });
      expect(me.body.usage).to.include({ jobs_charged: DAILY_CREDITS / PRICE, credits_spent: DAILY_CREDITS });
    });

    it('the cap counts only that operation, and the next UTC day takes counts again while the full day stays full (the clock moved, no wait)', async () => {
      const token = await replicas[0].link(newSubject());
      for (let i = 0; i < DAILY_CREDITS / PRICE; i++) expect((await count(on(i), token)).status).to.equal(202);
      expect((await count(on(0), token)).status).to.equal(402);
      const translation = await submitJob(on(1), token, { operationId: 'translateDocument', operations: OPERATIONS });
      expect(translation.status, translation.text).to.equal(202);
      clock += DAY_MS;
      // Within the operation's 20 calls a minute: 11 were made, 3 more on the new day, 1 back on the old one.
      const nextDay: CallResult[] = [];
      for (let i = 0; i < 3; i++) nextDay.push(await count(on(i), token));
      expect(nextDay.map((answer) => answer.status)).to.deep.equal([202, 202, 202]);
      clock -= DAY_MS;
      expect((await count(on(1), token)).status).to.equal(402);
    });
  });
}
