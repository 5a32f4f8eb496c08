import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import * as z from 'zod';
import { networkReferences } from '../../scripts/network-references';
import { APP_MIME_TYPE, type AppCard, LEGACY_RESOURCE_URI_KEY, UI_EXTENSION } from '../../shared/contract/cards/app-card';
import { JOB_CARD } from '../../shared/contract/cards/job-card';
import { builtCardFile } from '../../shared/contract/cards/page-card';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { fixedPrice } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { EXTRA_OPERATIONS, withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { connectMcp, REVISIONS, rawToolCall, UI_EXTENSION_SETTINGS } from '../support/mcp-client';
import { INVALID_PARAMS, rpcError } from '../support/registry-tool-tests';
import { ROOT } from '../support/spawn-process';
import { waitFor } from '../testkit/wait-for';

/** A developer's paid operation with a card of its own, as docs/building-operations.md shows. */
const OWN_CARD: AppCard = {
  uri: 'ui://connector/shout-card.html',
  name: 'Shout card',
  description: 'A shouted text, as a card.',
  html: async () => '<!doctype html><html lang="en"><head><title>Shout</title></head><body><p>Shout</p></body></html>',
};
const shout = paidOperation({
  job: paidJob({
    operationId: 'shout',
    input: z.strictObject({ text: z.string().max(100) }),
    processor: () => async (input) => ({ text: input.text.toUpperCase() }),
  }),
  path: '/v1/shouts',
  summary: 'Shout a text (1 credit)',
  description: 'Turns a text to capitals. Costs 1 credit, charged once when accepted: ask the person first.',
  price: fixedPrice(1),
  card: OWN_CARD,
});
const OPERATIONS_WITH_CARDS = withOperations(OPERATIONS, [...EXTRA_OPERATIONS, shout]);
/** The URIs of the cards the published operations name, each once, in registry order. */
const CARD_URIS = [
  ...new Set(OPERATIONS_WITH_CARDS.flatMap((operation) => (operation.published && operation.card ? [operation.card.uri] : []))),
];

/** The test ids the host harness and the guide rely on (fixed in the card's markup). */
const TEST_IDS = [
  'status',
  'progress',
  'progress-message',
  'cost',
  'refund',
  'result',
  'error',
  'created',
  'finished',
  'cancel',
  'operation',
  'input',
];

/** A resource as `resources/list` and `resources/read` show it, with the MCP Apps metadata. */
type UiResource = { uri: string; name: string; mimeType?: string; text?: string; _meta?: Record<string, any> };

const NO_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe('MCP Apps: the job card over POST /mcp', function () {
  this.timeout(120_000);
  let connector: ConnectorUnderTest;

  before(async () => {
    connector = await startConnector('memory', {}, { operations: OPERATIONS_WITH_CARDS });
  });
  after(async () => connector?.close());

  for (const revision of REVISIONS) {
    describe(`a ${revision} host that declares the extension`, () => {
      let client: Client;
      let tools: Tool[];

      before(async () => {
        client = await connectMcp(`${connector.baseUrl}/mcp`, await connector.link(newSubject()), revision, { ui: true });
        tools = (await client.listTools()).tools;
      });
      after(async () => client?.close());

      it('the server declares io.modelcontextprotocol/ui with the MCP Apps mime type, and resources', () => {
        const capabilities = client.getServerCapabilities() as Record<string, any>;
        expect(capabilities.extensions?.[UI_EXTENSION]).to.deep.equal({ mimeTypes: [APP_MIME_TYPE] });
        expect(capabilities.resources).to.deep.equal({});
      });

      it('create_job, get_job, cancel_job and every paid tool name the job card in _meta.ui.resourceUri and the flat key; the operation with its own card names that; no other tool names one', () => {
        const named = Object.fromEntries(
          tools.map((tool) => [tool.name, (tool._meta as Record<string, any> | undefined)?.ui?.resourceUri]),
        );
        expect(named).to.include({
          create_job: JOB_CARD.uri,
          get_job: JOB_CARD.uri,
          cancel_job: JOB_CARD.uri,
          count_words: JOB_CARD.uri,
          shout: OWN_CARD.uri,
        });
        for (const tool of tools) {
          const operation = OPERATIONS_WITH_CARDS.find((candidate) => toolName(candidate.operationId) === tool.name);
          expect(operation, tool.name).to.not.equal(undefined);
          if (operation!.price !== undefined) expect(named[tool.name], tool.name).to.be.a('string');
          expect(tool._meta?.[LEGACY_RESOURCE_URI_KEY], tool.name).to.equal(named[tool.name]);
        }
        expect(
          Object.entries(named)
            .filter(([, uri]) => uri === undefined)
            .map(([name]) => name),
        ).to.include.members(['get_me', 'list_jobs']);
      });

      it('resources/list lists each card once with the MCP Apps mime type and empty CSP and permissions', async () => {
        const { resources } = (await client.listResources()) as { resources: UiResource[] };
        expect(CARD_URIS).to.include.members([JOB_CARD.uri, OWN_CARD.uri]);
        expect(resources.map((resource) => resource.uri)).to.deep.equal(CARD_URIS);
        for (const resource of resources) {
          expect(resource.mimeType, resource.uri).to.equal(APP_MIME_TYPE);
          expect(resource._meta?.ui, resource.uri).to.deep.equal({ csp: NO_CSP, permissions: {}, prefersBorder: true });
        }
        expect(resources[0]).to.include({ name: JOB_CARD.name, description: JOB_CARD.description });
      });

      it('resources/read answers the job card: one self-contained HTML document with its fixed test ids and no network reference', async () => {
        const { contents } = (await client.readResource({ uri: JOB_CARD.uri })) as { contents: UiResource[] };
        expect(contents).to.have.length(1);
        const [card] = contents;
        expect(card).to.include({ uri: JOB_CARD.uri, mimeType: APP_MIME_TYPE });
        expect(card._meta?.ui).to.deep.equal({ csp: NO_CSP, permissions: {}, prefersBorder: true });
        const html = card.text!;
        expect(html.slice(0, 15).toLowerCase()).to.equal('<!doctype html>');
        for (const id of TEST_IDS) expect(html, id).to.contain(`data-testid="${id}"`);
        expect(html).to.match(/role="status"[^>]*aria-live="polite"/);
        // Inline only: one script and one style element, neither naming a source.
        expect(html.match(/<script\b[^>]*>/gi)).to.deep.equal(['<script>']);
        expect(html.match(/<style\b[^>]*>/gi)).to.deep.equal(['<style>']);
        expect(networkReferences(html)).to.deep.equal([]);
        // Nor an address spelled with escaped slashes inside a script string.
        expect(html.match(/(?:https?|wss?):(?:\\?\/){2}/gi)).to.equal(null);
        for (const needle of ['http://', 'https://', '//cdn', 'src=', '@import', 'url(', '<link', '<iframe', 'ws://', 'wss://']) {
          expect(html.toLowerCase().includes(needle), needle).to.equal(false);
        }
      });

      it("resources/read answers a developer's own card, and an unknown ui:// URI is an invalid-params error naming it", async () => {
        const { contents } = (await client.readResource({ uri: OWN_CARD.uri })) as { contents: UiResource[] };
        expect(contents[0]).to.include({ uri: OWN_CARD.uri, mimeType: APP_MIME_TYPE, text: await OWN_CARD.html() });
        // -32602 with the URI in its data: what the 2026-07-28 revision requires on both (clients accept -32002 too).
        const error = (await rpcError(client.readResource({ uri: 'ui://connector/no-such-card.html' }))) as {
          code: number;
          data?: unknown;
        };
        expect(error.code).to.equal(INVALID_PARAMS);
        expect(error.data).to.deep.equal({ uri: 'ui://connector/no-such-card.html' });
      });
    });

    it(`a ${revision} host without the extension gets the same tool results as one with it: the job as text and structured content, nothing more`, async () => {
      const token = await connector.link(newSubject());
      const plain = await connectMcp(`${connector.baseUrl}/mcp`, token, revision);
      const apps = await connectMcp(`${connector.baseUrl}/mcp`, token, revision, { ui: true });
      try {
        const created = (await plain.callTool({
          name: 'create_job',
          arguments: { input: { prompt: 'a card' }, idempotency_key: newKey() },
        })) as CallToolResult;
        const job = created.structuredContent as { id: string };
        expect(created.content).to.deep.equal([{ type: 'text', text: JSON.stringify(job) }]);
        expect(Object.keys(created).filter((key) => key !== '_meta')).to.have.members(['content', 'structuredContent']);
        // A finished job no longer changes, so both hosts read the very same one.
        const read = async (client: Client) => (await client.callTool({ name: 'get_job', arguments: { id: job.id } })) as CallToolResult;
        await waitFor(
          async () => (((await read(plain)).structuredContent as { finished_at?: string } | undefined)?.finished_at ? true : undefined),
          {
            what: `job ${job.id} to finish`,
            timeoutMs: 20_000,
          },
        );
        const [fromPlain, fromApps] = [await read(plain), await read(apps)];
        expect(fromApps).to.deep.equal(fromPlain);
        expect(fromPlain.content).to.deep.equal([{ type: 'text', text: JSON.stringify(fromPlain.structuredContent) }]);
        expect(Object.keys(fromPlain).filter((key) => key !== '_meta')).to.have.members(['content', 'structuredContent']);
        expect(JSON.stringify(fromPlain._meta ?? {})).to.not.contain('ui');
      } finally {
        await plain.close();
        await apps.close();
      }
    });
  }

  it('the card npm run build wrote into dist/ (what the image serves) is the card served from the sources', async () => {
    const built = await readFile(path.join(ROOT, 'dist', builtCardFile(JOB_CARD)), 'utf8');
    expect(built).to.equal(await JOB_CARD.html());
  });

  it('the 2026-07-28 envelope may declare the extension on a directly served call: the answer is the same', async () => {
    const token = await connector.link(newSubject());
    const post = (capabilities: Record<string, unknown>) => {
      const call = rawToolCall('get_me', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities } });
      return fetch(`${connector.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...call.headers, authorization: `Bearer ${token}` },
        body: JSON.stringify(call.body),
      }).then((res) => res.json());
    };
    expect(await post({ extensions: UI_EXTENSION_SETTINGS })).to.deep.equal(await post({}));
  });
});
