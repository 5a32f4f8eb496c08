import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import type { Operation } from '../../shared/contract/operations/operation';
import { bodyShapeOf } from '../../shared/contract/operations/paid-body';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { priceOf } from '../../shared/domain/jobs/price';
import { SpendQuotes } from '../../shared/domain/spend/spend-quote';
import { KeyRing } from '../../shared/platform/secrets/key-ring';
import { BACKENDS, type BackendKind } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { INJECTED_OPERATIONS } from '../support/injected-operations';
import { paidArguments } from '../support/job-submission';
import { connectMcp, rawToolCall } from '../support/mcp-client';
import { runShortJob, SHORT_JOB_PRICE, TEST_TOP_UP_URL, TOPPED_UP } from '../support/spend-operations';
import { startRedis, type TestRedis } from '../testkit/redis-node';

/** A paid operation whose input is the whole body: the registry's first, else the first the tests inject. */
function topLevelOperation(): Operation {
  const found = [...OPERATIONS, ...INJECTED_OPERATIONS].find((operation) => operation.job && bodyShapeOf(operation) === 'top-level');
  if (!found) throw new Error('neither the registry nor the injected operations have a paid operation with a top-level body');
  return found;
}

const TOP_LEVEL = topLevelOperation();
const OPERATIONS_UNDER_TEST = withOperations(OPERATIONS, [runShortJob, TOP_LEVEL]);
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const NOTHING_CHARGED = 'Nothing was charged.';

type Elicitation = { mode?: string; message: string; url?: string; requestedSchema?: unknown };
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** A 2026-07-28 host that declares elicitation (form, and URL when asked) and answers with `answer`, recording each question. */
async function connectAsking(
  url: string,
  token: string,
  answer: (question: Elicitation) => Answer | Promise<Answer>,
  { urlMode = false } = {},
): Promise<{ client: Client; asked: Elicitation[] }> {
  const asked: Elicitation[] = [];
  const client = new Client(
    { name: 'asking-host', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {}, ...(urlMode ? { url: {} } : {}) } } as never,
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const question = request.params as Elicitation;
    asked.push(question);
    return (await answer(question)) as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, asked };
}

/** One raw 2026-07-28 `tools/call` to `baseUrl` declaring form elicitation, with an earlier round's answers when given. */
async function rawCall(
  baseUrl: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  retry?: { inputResponses?: Record<string, unknown>; requestState?: string },
): Promise<Record<string, any>> {
  const { headers, body } = rawToolCall(name, args, { meta: { [CAPABILITIES_KEY]: { elicitation: { form: {} } } } });
  const params = (body as { params: Record<string, unknown> }).params;
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}` },
    body: JSON.stringify({ ...(body as object), params: { ...params, ...retry } }),
  });
  expect(res.status).to.equal(200);
  const message = (await res.json()) as { result?: Record<string, any>; error?: unknown };
  expect(message.error, JSON.stringify(message.error)).to.equal(undefined);
  return message.result!;
}

const ACCEPT = { confirm_spend: { action: 'accept', content: { confirm: true } } };
const textOf = (result: { content?: unknown }) => ((result.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

/** Two API replicas: on Redis two processes sharing one server; on memory the one process (it is the whole truth). */
interface Replicas {
  a: ConnectorUnderTest;
  b: ConnectorUnderTest;
}

async function startReplicas(kind: BackendKind, redis: TestRedis | undefined, overrides: Record<string, string>): Promise<Replicas> {
  if (kind === 'memory') {
    const a = await startConnector(kind, overrides, { operations: OPERATIONS_UNDER_TEST });
    return { a, b: a };
  }
  const shared = { ...overrides, REDIS_URL: redis!.url, REDIS_KEY_PREFIX: `spend-${Object.values(overrides).join('-') || 'default'}:` };
  const [a, b] = await Promise.all([
    startConnector(kind, shared, { operations: OPERATIONS_UNDER_TEST }),
    startConnector(kind, shared, { operations: OPERATIONS_UNDER_TEST }),
  ]);
  return { a, b };
}

async function closeReplicas(replicas: Replicas | undefined): Promise<void> {
  if (!replicas) return;
  await replicas.a.close();
  if (replicas.b !== replicas.a) await replicas.b.close();
}

async function usageOf(connector: ConnectorUnderTest, token: string): Promise<Record<string, number>> {
  const res = await connector.call('GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).to.equal(200);
  return res.body.usage;
}

const NO_CHARGE = { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 };

for (const backend of BACKENDS) {
  describe(`MCP spend confirmation (${backend} backend${backend === 'redis' ? ', two API replicas' : ''})`, function () {
    this.timeout(60_000);
    let redis: TestRedis | undefined;
    let elicit: Replicas;

    before(async () => {
      if (backend === 'redis') redis = await startRedis();
      elicit = await startReplicas(backend, redis, {});
    });
    after(async () => {
      await closeReplicas(elicit);
      await redis?.stop();
    });

    async function person(): Promise<{ subject: string; token: string }> {
      const subject = newSubject();
      return { subject, token: await elicit.a.link(subject) };
    }

    describe('SPEND_CONFIRMATION=elicit (the default, from 1 credit)', () => {
      it('a 2026-07-28 host with form elicitation is asked, naming the tool, its input and the exact price; accepted, the job is accepted and charged once', async () => {
        const { token } = await person();
        const { client, asked } = await connectAsking(`${elicit.a.baseUrl}/mcp`, token, () => ({
          action: 'accept',
          content: { confirm: true },
        }));
        try {
          const key = newKey();
          const result = (await client.callTool({
            name: 'create_job',
            arguments: { input: { prompt: 'a poem' }, idempotency_key: key },
          })) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          expect(result.structuredContent).to.include({ cost: 1 });
          expect(asked).to.have.length(1);
          expect(asked[0]!.message).to.contain('create_job').and.contain('1 credit').and.contain('a poem').and.not.contain(key);
          expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
        } finally {
          await client.close();
        }
      });

      it('a tool whose body is top-level is asked its exact price, accepted with confirm: true, and charged once; its replay is not asked again', async () => {
        const { token } = await person();
        const { client, asked } = await connectAsking(`${elicit.a.baseUrl}/mcp`, token, () => ({
          action: 'accept',
          content: { confirm: true },
        }));
        const name = toolName(TOP_LEVEL.operationId);
        const price = priceOf(TOP_LEVEL.price!, TOP_LEVEL.job!.example, '/body');
        const call = { name, arguments: { ...paidArguments(TOP_LEVEL, TOP_LEVEL.job!.example), idempotency_key: newKey() } };
        try {
          const result = (await client.callTool(call)) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          expect(result.structuredContent).to.include({ cost: price });
          const replay = (await client.callTool(call)) as CallToolResult;
          expect((replay.structuredContent as { id?: string }).id).to.equal((result.structuredContent as { id: string }).id);
          expect(asked).to.have.length(1);
          expect(asked[0]!.message).to.contain(name).and.contain(`${price} credit`);
          expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: price, credits_refunded: 0 });
        } finally {
          await client.close();
        }
      });

      for (const action of ['decline', 'cancel'] as const) {
        it(`a host whose person answers ${action} gets a tool error saying nothing was charged, and nothing is`, async () => {
          const { token } = await person();
          const { client, asked } = await connectAsking(`${elicit.a.baseUrl}/mcp`, token, () => ({ action }));
          try {
            const result = (await client.callTool({
              name: 'create_job',
              arguments: { input: { prompt: 'no' }, idempotency_key: newKey() },
            })) as CallToolResult;
            expect(result.isError).to.equal(true);
            expect(textOf(result)).to.contain(NOTHING_CHARGED);
            expect(asked).to.have.length(1);
            expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
          } finally {
            await client.close();
          }
        });
      }

      it('a form accepted without content, with {}, or with confirm as the string "true" is a no: nothing charged, and the quote is burnt', async () => {
        const { token } = await person();
        for (const [index, content] of [undefined, {}, { confirm: 'true' }, { confirm: 1 }].entries()) {
          const args = { input: { prompt: `not a yes ${index}` }, idempotency_key: newKey() };
          const asked = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
          const answer = await rawCall(elicit.b.baseUrl, token, 'create_job', args, {
            inputResponses: { confirm_spend: { action: 'accept', ...(content === undefined ? {} : { content }) } },
            requestState: asked.requestState,
          });
          expect(answer.isError, JSON.stringify(content)).to.equal(true);
          expect(textOf(answer)).to.contain('declined').and.contain(NOTHING_CHARGED);
          const yesAfter = await rawCall(elicit.a.baseUrl, token, 'create_job', args, {
            inputResponses: ACCEPT,
            requestState: asked.requestState,
          });
          expect(yesAfter.isError, `${JSON.stringify(content)} then a yes`).to.equal(true);
          expect(textOf(yesAfter)).to.contain('answered already').and.contain(NOTHING_CHARGED);
        }
        expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
      });

      for (const action of ['decline', 'cancel'] as const) {
        it(`a quote answered ${action} stays refused when the same quote comes back with a yes: nothing charged`, async () => {
          const { token } = await person();
          const args = { input: { prompt: `${action} then yes` }, idempotency_key: newKey() };
          const asked = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
          const no = await rawCall(elicit.b.baseUrl, token, 'create_job', args, {
            inputResponses: { confirm_spend: { action } },
            requestState: asked.requestState,
          });
          expect(no.isError).to.equal(true);
          const yes = await rawCall(elicit.a.baseUrl, token, 'create_job', args, {
            inputResponses: ACCEPT,
            requestState: asked.requestState,
          });
          expect(yes.isError).to.equal(true);
          expect(textOf(yes)).to.contain('answered already').and.contain(NOTHING_CHARGED);
          expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
        });
      }

      it('a form accepted with the box explicitly unticked counts as declined: nothing charged', async () => {
        const { token } = await person();
        const args = { input: { prompt: 'unticked' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
        const result = await rawCall(elicit.b.baseUrl, token, 'create_job', args, {
          inputResponses: { confirm_spend: { action: 'accept', content: { confirm: false } } },
          requestState: first.requestState,
        });
        expect(result.isError).to.equal(true);
        expect(textOf(result)).to.contain('declined');
        expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
      });

      it('the quote minted by one replica is accepted by the other; the same yes resent answers the same job, charged once', async () => {
        const { subject, token } = await person();
        const args = { input: { prompt: 'across replicas' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
        expect(first.resultType).to.equal('input_required');
        expect(first.inputRequests.confirm_spend.method).to.equal('elicitation/create');
        expect(first.inputRequests.confirm_spend.params).to.include({ mode: 'form' });
        // Signed, not encrypted: the quote the client holds names the subject by a digest only.
        const payload = Buffer.from((first.requestState as string).split('.')[2]!, 'base64url').toString();
        expect(JSON.parse(payload)).to.include({ tool: 'create_job', price: 1, step: 'confirm' });
        expect(payload).to.not.contain(subject);
        const accepted = await rawCall(elicit.b.baseUrl, token, 'create_job', args, {
          inputResponses: ACCEPT,
          requestState: first.requestState,
        });
        expect(accepted.isError ?? false, JSON.stringify(accepted)).to.equal(false);
        expect(accepted.structuredContent).to.include({ cost: 1 });
        // The same answer and quote again, as a replayed retry would carry them: the job that yes accepted, once.
        const resent = await rawCall(elicit.a.baseUrl, token, 'create_job', args, {
          inputResponses: ACCEPT,
          requestState: first.requestState,
        });
        expect(resent.isError ?? false, JSON.stringify(resent)).to.equal(false);
        expect(resent.structuredContent.id).to.equal(accepted.structuredContent.id);
        expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      });

      it('two retries with one quote at once, one on each replica: both answer the one job, charged once', async () => {
        const { token } = await person();
        const args = { input: { prompt: 'racing' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
        const retry = { inputResponses: ACCEPT, requestState: first.requestState };
        const results = await Promise.all([
          rawCall(elicit.a.baseUrl, token, 'create_job', args, retry),
          rawCall(elicit.b.baseUrl, token, 'create_job', args, retry),
        ]);
        expect(results.map((result) => result.isError ?? false)).to.deep.equal([false, false]);
        expect(results[0]!.structuredContent.id).to.equal(results[1]!.structuredContent.id);
        expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      });

      it('a replay of an accepted idempotency key is not asked again: it answers the same job at once', async () => {
        const { token } = await person();
        const args = { input: { prompt: 'twice' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
        const accepted = await rawCall(elicit.a.baseUrl, token, 'create_job', args, {
          inputResponses: ACCEPT,
          requestState: first.requestState,
        });
        const replay = await rawCall(elicit.b.baseUrl, token, 'create_job', args);
        expect(replay.resultType).to.equal('complete');
        expect(replay.structuredContent.id).to.equal(accepted.structuredContent.id);
        expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      });

      it('a quote past its expiry is refused as expired; nothing charged', async () => {
        const { subject, token } = await person();
        const args = { input: { prompt: 'late' }, idempotency_key: newKey() };
        // Minted with the connector's own secret by a clock eleven minutes behind: what an answer that came too late carries.
        const late = new SpendQuotes(KeyRing.fromSecrets(BASE_ENV.CONNECTOR_SECRET), { now: () => Date.now() - 11 * 60_000 });
        const { state } = late.mint({ subject, tool: 'create_job', input: args, price: 1 }, 'confirm');
        const result = await rawCall(elicit.b.baseUrl, token, 'create_job', args, { inputResponses: ACCEPT, requestState: state });
        expect(result.isError).to.equal(true);
        expect(textOf(result)).to.contain('expired').and.contain(NOTHING_CHARGED);
        expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
      });

      it('a tampered quote (its price lowered, or its signature changed, or no quote at all) is refused; nothing charged', async () => {
        const { token } = await person();
        const args = { input: { prompt: 'tampered' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, token, 'create_job', args);
        const [version, keyId, payload, mac] = (first.requestState as string).split('.');
        const cheaper = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), price: 0 })).toString(
          'base64url',
        );
        const forged = [
          `${version}.${keyId}.${cheaper}.${mac}`,
          `${version}.${keyId}.${payload}.${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`,
          'not-a-quote',
        ];
        for (const requestState of forged) {
          const result = await rawCall(elicit.b.baseUrl, token, 'create_job', args, { inputResponses: ACCEPT, requestState });
          expect(result.isError, requestState).to.equal(true);
          expect(textOf(result)).to.contain('could not be verified').and.contain(NOTHING_CHARGED);
        }
        const bare = await rawCall(elicit.b.baseUrl, token, 'create_job', args, { inputResponses: ACCEPT });
        expect(bare.isError).to.equal(true);
        expect(textOf(bare)).to.contain(NOTHING_CHARGED);
        expect(await usageOf(elicit.a, token)).to.deep.equal(NO_CHARGE);
      });

      it('a quote presented by another subject, or with another input or key, is refused; nothing charged to either', async () => {
        const owner = await person();
        const other = await person();
        const args = { input: { prompt: 'mine' }, idempotency_key: newKey() };
        const first = await rawCall(elicit.a.baseUrl, owner.token, 'create_job', args);
        const attempts = [
          { token: other.token, args },
          { token: owner.token, args: { ...args, input: { prompt: 'something dearer' } } },
          { token: owner.token, args: { ...args, idempotency_key: newKey() } },
        ];
        for (const attempt of attempts) {
          const result = await rawCall(elicit.b.baseUrl, attempt.token, 'create_job', attempt.args, {
            inputResponses: ACCEPT,
            requestState: first.requestState,
          });
          expect(result.isError, JSON.stringify(attempt.args)).to.equal(true);
          expect(textOf(result)).to.contain('another call').and.contain(NOTHING_CHARGED);
        }
        expect(await usageOf(elicit.a, owner.token)).to.deep.equal(NO_CHARGE);
        expect(await usageOf(elicit.a, other.token)).to.deep.equal(NO_CHARGE);
      });

      for (const revision of ['2026-07-28', '2025-11-25'] as const) {
        it(`a ${revision} client without form elicitation is served as before: the job is accepted without a question`, async () => {
          const { token } = await person();
          const client = await connectMcp(`${elicit.b.baseUrl}/mcp`, token, revision);
          try {
            const result = (await client.callTool({
              name: 'create_job',
              arguments: { input: { prompt: 'as before' }, idempotency_key: newKey() },
            })) as CallToolResult;
            expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
            expect(await usageOf(elicit.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
          } finally {
            await client.close();
          }
        });
      }

      it('funds short, a host with URL elicitation confirms, is sent to the top-up URL, and its retry accepts the job', async () => {
        const { subject, token } = await person();
        const { client, asked } = await connectAsking(
          `${elicit.a.baseUrl}/mcp`,
          token,
          (question) => {
            // The person buys credits on the page, then comes back.
            if (question.mode === 'url') TOPPED_UP.add(subject);
            return question.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { confirm: true } };
          },
          { urlMode: true },
        );
        try {
          const result = (await client.callTool({
            name: 'run_short_job',
            arguments: { input: { note: 'short' }, idempotency_key: newKey() },
          })) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          expect(result.structuredContent).to.include({ cost: SHORT_JOB_PRICE });
          expect(asked.map((question) => question.mode ?? 'form')).to.deep.equal(['form', 'url']);
          expect(asked[1]!.url).to.equal(TEST_TOP_UP_URL);
          expect(asked[1]!.message).to.contain(`${SHORT_JOB_PRICE} credits`);
        } finally {
          TOPPED_UP.delete(subject);
          await client.close();
        }
      });

      it('funds short, a host with URL elicitation that does not come back gets a tool error; nothing charged', async () => {
        const { token } = await person();
        const { client, asked } = await connectAsking(
          `${elicit.a.baseUrl}/mcp`,
          token,
          (question) => (question.mode === 'url' ? { action: 'cancel' } : { action: 'accept', content: { confirm: true } }),
          { urlMode: true },
        );
        try {
          const result = (await client.callTool({
            name: 'run_short_job',
            arguments: { input: { note: 'gave up' }, idempotency_key: newKey() },
          })) as CallToolResult;
          expect(result.isError).to.equal(true);
          expect(textOf(result)).to.contain(NOTHING_CHARGED);
          expect(asked).to.have.length(2);
        } finally {
          await client.close();
        }
      });

      it('funds short, a host with form elicitation only, and 2025-11-25 and plain 2026-07-28 clients, get a tool error with the link, the balance and the price', async () => {
        const { token } = await person();
        const asking = await connectAsking(`${elicit.a.baseUrl}/mcp`, token, () => ({ action: 'accept', content: { confirm: true } }));
        const plain = await connectMcp(`${elicit.a.baseUrl}/mcp`, token, '2026-07-28');
        const legacy = await connectMcp(`${elicit.b.baseUrl}/mcp`, token, '2025-11-25');
        try {
          for (const client of [asking.client, plain, legacy]) {
            const result = (await client.callTool({
              name: 'run_short_job',
              arguments: { input: { note: 'short' }, idempotency_key: newKey() },
            })) as CallToolResult;
            expect(result.isError).to.equal(true);
            expect(textOf(result)).to.contain(TEST_TOP_UP_URL).and.contain(`costs ${SHORT_JOB_PRICE} credits`).and.contain('balance is 0');
          }
          expect(asking.asked).to.have.length(1);
        } finally {
          await Promise.all([asking.client.close(), plain.close(), legacy.close()]);
        }
      });
    });

    describe('SPEND_CONFIRMATION=required from 2 credits', () => {
      let required: Replicas;
      before(async () => {
        required = await startReplicas(backend, redis, { SPEND_CONFIRMATION: 'required', SPEND_CONFIRMATION_ABOVE: '2' });
      });
      after(async () => closeReplicas(required));

      for (const revision of ['2026-07-28', '2025-11-25'] as const) {
        it(`a ${revision} client without form elicitation is refused a call at the threshold with a tool error that says why; nothing charged`, async () => {
          const token = await required.a.link(newSubject());
          const client = await connectMcp(`${required.b.baseUrl}/mcp`, token, revision);
          try {
            const result = (await client.callTool({
              name: 'run_short_job',
              arguments: { input: { note: 'refused' }, idempotency_key: newKey() },
            })) as CallToolResult;
            expect(result.isError).to.equal(true);
            expect(textOf(result)).to.contain('cannot ask').and.contain(NOTHING_CHARGED);
            expect(await usageOf(required.a, token)).to.deep.equal(NO_CHARGE);
          } finally {
            await client.close();
          }
        });
      }

      it('a call below the threshold is neither asked nor refused, whatever the client', async () => {
        const token = await required.a.link(newSubject());
        const asking = await connectAsking(`${required.a.baseUrl}/mcp`, token, () => ({ action: 'decline' }));
        const legacy = await connectMcp(`${required.b.baseUrl}/mcp`, token, '2025-11-25');
        try {
          for (const client of [asking.client, legacy]) {
            const result = (await client.callTool({
              name: 'create_job',
              arguments: { input: { prompt: 'cheap' }, idempotency_key: newKey() },
            })) as CallToolResult;
            expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          }
          expect(asking.asked).to.deep.equal([]);
          expect(await usageOf(required.a, token)).to.deep.equal({ jobs_charged: 2, credits_spent: 2, credits_refunded: 0 });
        } finally {
          await Promise.all([asking.client.close(), legacy.close()]);
        }
      });

      it('a host with form elicitation is asked at the threshold, and accepted, the job is accepted', async () => {
        const subject = newSubject();
        const token = await required.a.link(subject);
        TOPPED_UP.add(subject);
        const asking = await connectAsking(`${required.b.baseUrl}/mcp`, token, () => ({ action: 'accept', content: { confirm: true } }));
        try {
          const result = (await asking.client.callTool({
            name: 'run_short_job',
            arguments: { input: { note: 'asked' }, idempotency_key: newKey() },
          })) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          expect(asking.asked).to.have.length(1);
          expect(asking.asked[0]!.message).to.contain(`${SHORT_JOB_PRICE} credits`);
        } finally {
          TOPPED_UP.delete(subject);
          await asking.client.close();
        }
      });
    });

    describe('SPEND_CONFIRMATION=off', () => {
      let off: Replicas;
      before(async () => {
        off = await startReplicas(backend, redis, { SPEND_CONFIRMATION: 'off' });
      });
      after(async () => closeReplicas(off));

      it('a host with form elicitation is never asked: the job is accepted at once', async () => {
        const token = await off.a.link(newSubject());
        const asking = await connectAsking(`${off.b.baseUrl}/mcp`, token, () => ({ action: 'decline' }));
        try {
          const result = (await asking.client.callTool({
            name: 'create_job',
            arguments: { input: { prompt: 'unasked' }, idempotency_key: newKey() },
          })) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
          expect(asking.asked).to.deep.equal([]);
          expect(await usageOf(off.a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
        } finally {
          await asking.client.close();
        }
      });
    });
  });
}
