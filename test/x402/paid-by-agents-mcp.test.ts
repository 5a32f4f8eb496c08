import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { expect } from 'chai';
import type { KeyedAccount } from '../../scripts/x402/local-stand';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newKey, startConnector } from '../support/harness';
import { connectMcp, MODERN_ENVELOPE, type Revision, rawToolCall } from '../support/mcp-client';
import { type SharedX402Stand, sharedX402Stand } from '../testkit/shared-x402-stand';
import { waitFor } from '../testkit/wait-for';
import { standClient } from '../testkit/x402-payer';

const UNIT = 10_000n;

/** What a paid tool result carries back in `_meta["x402/payment-response"]`. */
interface PaymentResponse {
  success: boolean;
  transaction: string;
  payer: string;
  payerToken: string;
}

// One suite per backend (TEST_BACKENDS), both on this process's stand: a second backend costs its connector only.
for (const backend of BACKENDS) {
  describe(`x402 over MCP (both bindings) against a real chain and the @x402/evm facilitator [${backend}]`, function () {
    this.timeout(180_000);
    let stand: SharedX402Stand;
    let connector: ConnectorUnderTest;
    const clients: Client[] = [];
    const mcpUrl = () => `${connector.baseUrl}/mcp`;
    const job = (prompt = 'hello') => ({ input: { prompt }, idempotency_key: newKey() });

    /** The official MCP client with no token at all: an agent with a wallet and nothing else. */
    const agent = async (revision: Revision): Promise<Client> => {
      const client = new Client(
        { name: 'x402-agent', version: '1.0.0' },
        revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: revision } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl())));
      clients.push(client);
      return client;
    };
    const createJob = (client: Client, args: Record<string, unknown>, payment?: unknown) =>
      client.callTool({ name: 'create_job', arguments: args, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) }) as Promise<
        CallToolResult & { _meta?: Record<string, unknown> }
      >;
    /** `payer`'s payment for `body`, signed for the PaymentRequired that the unpaid call answers. */
    const paymentFor = async (client: Client, payer: KeyedAccount, body: Record<string, unknown>) =>
      standClient(stand, payer).createPaymentPayload((await createJob(client, body)).structuredContent as unknown as PaymentRequired);
    const settlementOf = (result: { _meta?: Record<string, unknown> }): PaymentResponse => {
      const settled = result._meta?.['x402/payment-response'];
      expect(settled, 'the settlement in _meta').to.be.an('object');
      return settled as PaymentResponse;
    };
    const rawPost = (call: { headers: Record<string, string>; body: unknown }) =>
      fetch(mcpUrl(), { method: 'POST', headers: call.headers, body: JSON.stringify(call.body) });

    before(async () => {
      stand = await sharedX402Stand();
      connector = await startConnector(backend, stand.connectorEnv(UNIT));
    });
    after(async () => {
      for (const client of clients) await client.close();
      await connector?.close();
      await stand?.release();
    });

    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      it(`${revision}: an agent without a token lists only the tools x402 can pay for`, async () => {
        const { tools } = await (await agent(revision)).listTools();
        const names = tools.map((tool) => tool.name);
        expect(names).to.include('create_job');
        expect(names).not.to.include.members(['get_me', 'get_job']);
      });

      it(`${revision}: a call with no payment is an isError result whose structuredContent is the PaymentRequired of HTTP's 402 for that input`, async () => {
        const body = job();
        const result = await createJob(await agent(revision), body);
        expect(result.isError).to.equal(true);
        const required = result.structuredContent as unknown as PaymentRequired;
        expect((result.content[0] as { text: string }).text).to.equal(JSON.stringify(required));
        const http = await fetch(`${connector.baseUrl}/v1/jobs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const overHttp = decodePaymentRequiredHeader(http.headers.get('payment-required') ?? '');
        expect(required.x402Version).to.equal(2);
        expect(required.accepts).to.deep.equal(overHttp.accepts);
        expect(required.accepts[0].amount).to.equal(String(UNIT));
        expect(required.resource.url).to.equal('mcp://tool/create_job');
      });

      it(`${revision}: a payment in _meta["x402/payment"] funds exactly one job; its retry answers the same job and settles nothing`, async () => {
        const payer = await stand.newPayer();
        const [before, sellerBefore] = [await stand.balanceOf(payer.address), await stand.balanceOf(stand.payTo)];
        const client = await agent(revision);
        const body = job();
        const payment = await paymentFor(client, payer, body);
        const paid = await createJob(client, body, payment);
        expect(paid.isError, JSON.stringify(paid)).to.not.equal(true);
        const settled = settlementOf(paid);
        expect(settled.transaction).to.match(/^0x[0-9a-f]{64}$/);
        expect(settled.payer.toLowerCase()).to.equal(payer.address.toLowerCase());
        const { id } = paid.structuredContent as { id: string };
        const again = await createJob(client, body, payment);
        expect((again.structuredContent as { id: string }).id).to.equal(id);
        expect(settlementOf(again).transaction).to.equal('');
        expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
        expect(await stand.balanceOf(stand.payTo)).to.equal(sellerBefore + UNIT);
        // The payer's token reads its job over MCP as a bearer token, as a person's would.
        const reader = await connectMcp(mcpUrl(), settled.payerToken, revision);
        clients.push(reader);
        await waitFor(
          async () =>
            ((await reader.callTool({ name: 'get_job', arguments: { id } })).structuredContent as { status: string }).status ===
            'succeeded',
          { what: 'the paid job' },
        );
      });
    }

    it('a payment whose nonce funded another key is refused with the PaymentRequired again, nothing moved', async () => {
      const payer = await stand.newPayer();
      const client = await agent('2026-07-28');
      const first = job();
      const payment = await paymentFor(client, payer, first);
      expect((await createJob(client, first, payment)).isError).to.not.equal(true);
      const balance = await stand.balanceOf(payer.address);
      const reused = await createJob(client, job(), payment);
      expect(reused.isError).to.equal(true);
      expect((reused.structuredContent as { error?: string }).error).to.equal('nonce_used');
      expect(await stand.balanceOf(payer.address)).to.equal(balance);
    });

    it('a facilitator killed mid-flow is an isError result with nothing held; the same payment goes through once it is back', async () => {
      const payer = await stand.newPayer();
      const client = await agent('2026-07-28');
      const body = job();
      const payment = await paymentFor(client, payer, body);
      const before = await stand.balanceOf(payer.address);
      await stand.killFacilitator();
      try {
        const down = await createJob(client, body, payment);
        expect(down.isError).to.equal(true);
        expect(down.structuredContent).to.equal(undefined);
      } finally {
        await stand.restartFacilitator();
      }
      expect(await stand.balanceOf(payer.address)).to.equal(before);
      const paid = await createJob(client, body, payment);
      expect(paid.isError, JSON.stringify(paid)).to.not.equal(true);
      expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
    });

    it('a failed job gives its price back, and the payer’s next MCP call spends it with no transfer on chain', async () => {
      const payer = await stand.newPayer();
      const client = await agent('2026-07-28');
      const pay = async (body: Record<string, unknown>) => createJob(client, body, await paymentFor(client, payer, body));
      const failing = await pay(job('!fail now'));
      const { payerToken } = settlementOf(failing);
      const reader = await connectMcp(mcpUrl(), payerToken, '2026-07-28');
      clients.push(reader);
      const { id } = failing.structuredContent as { id: string };
      await waitFor(
        async () =>
          ((await reader.callTool({ name: 'get_job', arguments: { id } })).structuredContent as { status: string }).status === 'failed',
        { what: 'the failure' },
      );
      const before = await stand.balanceOf(payer.address);
      const next = await pay(job());
      expect(next.isError, JSON.stringify(next)).to.not.equal(true);
      expect(settlementOf(next).transaction).to.equal('');
      expect(await stand.balanceOf(payer.address)).to.equal(before);
    });

    it('2026-07-28 raw: the payment-required result is resultType complete, never a JSON-RPC error', async () => {
      const res = await rawPost(rawToolCall('create_job', job()));
      expect(res.status).to.equal(200);
      const answer = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
      expect(answer.error).to.equal(undefined);
      expect(answer.result).to.include({ resultType: 'complete', isError: true });
    });

    describe('the org.x402/payment extension binding (2026-07-28)', () => {
      const extension = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'org.x402/payment': {} } } };
      const answerOf = async (call: { headers: Record<string, string>; body: unknown }) =>
        ((await (await rawPost(call)).json()) as { result: Record<string, any> }).result;

      it('server/discover advertises org.x402/payment', async () => {
        const discover = {
          headers: { ...rawToolCall('create_job', {}).headers, 'mcp-method': 'server/discover' },
          body: { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { ...MODERN_ENVELOPE } } },
        };
        delete (discover.headers as Record<string, string>)['mcp-name'];
        const result = await answerOf(discover);
        expect(result.capabilities.extensions).to.have.property('org.x402/payment');
      });

      it('a client that declares it gets resultType payment_required; its paid retry is complete with the settlement, funding one job', async () => {
        const payer = await stand.newPayer();
        const before = await stand.balanceOf(payer.address);
        const body = job();
        const asked = await answerOf(rawToolCall('create_job', body, { meta: extension }));
        expect(asked.resultType).to.equal('payment_required');
        expect(asked).not.to.have.property('isError');
        const required = asked.paymentRequired as PaymentRequired;
        expect(required.accepts[0].amount).to.equal(String(UNIT));
        const payment = await standClient(stand, payer).createPaymentPayload(required);
        const paid = await answerOf(rawToolCall('create_job', body, { meta: { ...extension, 'x402/payment': payment } }));
        expect(paid.resultType).to.equal('complete');
        expect(paid.isError).to.equal(undefined);
        expect(settlementOf(paid).transaction).to.match(/^0x[0-9a-f]{64}$/);
        const again = await answerOf(rawToolCall('create_job', body, { meta: { ...extension, 'x402/payment': payment } }));
        expect(again.structuredContent.id).to.equal(paid.structuredContent.id);
        expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
      });
    });

    it('without a token, get_me, get_job and a batch still answer 401 pointing to OAuth', async () => {
      for (const call of [rawToolCall('get_me', {}), rawToolCall('get_job', { id: 'job_x' })]) {
        const res = await rawPost(call);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.match(/resource_metadata=/);
      }
      const batch = rawToolCall('create_job', job());
      const res = await rawPost({ headers: batch.headers, body: [batch.body] });
      expect(res.status).to.equal(401);
    });
  });
}
