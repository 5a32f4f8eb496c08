import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import fc from 'fast-check';
import { directCallMatcher } from '../../api/mcp/direct-tool-call';
import { compileArgumentChecks } from '../../api/mcp/tool-calls';
import { buildToolDefinitions } from '../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { MODERN_ENVELOPE, type RawMcpCall, rawToolCall } from '../support/mcp-client';
import { sampleArguments } from '../support/tool-arguments';

const REVISION = '2026-07-28';

/** What a client sees of an answer. */
interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** A well-formed 2026-07-28 `tools/call` with its three standard headers. */
const toolCall = (name: string, args: Record<string, unknown> | undefined, id: string | number = 1): RawMcpCall =>
  rawToolCall(name, args, { id });

async function send(connector: ConnectorUnderTest, token: string, call: RawMcpCall): Promise<Answer> {
  const res = await fetch(`${connector.baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...call.headers, authorization: `Bearer ${token}` },
    body: JSON.stringify(call.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: res.status, contentType: res.headers.get('content-type'), body };
}

/** An answer with the given fields (and the text copy of the structured content) reduced to their types. */
function without(answer: Answer, fields: readonly string[]): Answer {
  const masked = new Set([...fields, 'text']);
  return JSON.parse(JSON.stringify(answer), (key, value) => (masked.has(key) ? typeof value : value));
}

/** What two creations differ in by design: the record's own id and time. */
const NEW_RECORD = ['id', 'created_at'];

/** What a job's second read may differ in: the worker moves it on in between. */
const JOB_PROGRESS = ['status', 'started_at', 'finished_at', 'attempts', 'result', 'error'];

describe('MCP direct tool calls answer exactly as the SDK answers (two connectors on one Redis)', function () {
  this.timeout(120_000);
  let direct: ConnectorUnderTest;
  let sdk: ConnectorUnderTest;
  let token: string;
  let jobId: string;
  const tools = buildToolDefinitions(publishedOperations());
  const matches = directCallMatcher(tools, compileArgumentChecks(tools));

  /** The same call to both connectors: the direct one first, so that a creation it makes is read by the SDK one. */
  const both = async (call: RawMcpCall): Promise<[Answer, Answer]> => [await send(direct, token, call), await send(sdk, token, call)];

  before(async () => {
    direct = await startConnector('redis');
    sdk = await startConnector(
      'redis',
      { REDIS_URL: connectionUrl(direct.config.redis)!, REDIS_KEY_PREFIX: direct.config.redisKeyPrefix },
      { mcpDirectCalls: false },
    );
    token = await direct.link(newSubject());
    await direct.call('POST', '/v1/things', { token, body: { name: 'seen by both' } });
    const job = await submitPrompt(direct, token, 'differential');
    expect(job.status).to.equal(202);
    jobId = job.body.id as string;
    // A finished job reads the same from both sides whenever it is read.
    await pollJob(direct, token, jobId, inStatus('succeeded'));
  });
  after(async () => {
    await sdk?.close();
    await direct?.close();
  });

  it('every read-only tool of the registry, with arguments from its input schema: the direct path serves it when its result is an object, with the SDK’s status, content type and JSON', async () => {
    const readOnly = tools.filter((tool) => tool.annotations.readOnlyHint);
    expect(readOnly.length).to.be.greaterThan(0);
    for (const tool of readOnly) {
      const call = toolCall(tool.name, sampleArguments(tool.inputSchema));
      expect(matches(call) !== undefined, JSON.stringify(call.body)).to.equal(tool.outputSchema.type === 'object');
      const [fromDirect, fromSdk] = await both(call);
      expect(fromDirect.status, tool.name).to.equal(200);
      expect(fromDirect, JSON.stringify(call.body)).to.deep.equal(fromSdk);
    }
  });

  it('the placeholders’ read-only tools with meaningful arguments (get_me, list_things, list_jobs, get_job of an existing job): the direct path serves them, with the SDK’s status, content type and JSON', async () => {
    const calls = [
      toolCall('get_me', {}),
      toolCall('get_me', undefined, 'string-id'),
      toolCall('list_things', { limit: 5 }),
      toolCall('list_jobs', {}),
      toolCall('get_job', { id: jobId }, 7),
    ];
    for (const call of calls) {
      expect(matches(call), JSON.stringify(call.body)).to.not.equal(undefined);
      const [fromDirect, fromSdk] = await both(call);
      expect(fromDirect.status).to.equal(200);
      expect(fromDirect, JSON.stringify(call.body)).to.deep.equal(fromSdk);
    }
  });

  it('a domain error (an unknown job id) is the same isError tool result from both paths', async () => {
    const call = toolCall('get_job', { id: 'job_unknown' });
    expect(matches(call)).to.not.equal(undefined);
    const [fromDirect, fromSdk] = await both(call);
    expect((fromDirect.body as { result: { isError: boolean } }).result.isError).to.equal(true);
    expect(fromDirect).to.deep.equal(fromSdk);
  });

  it('create_thing: the same answer from both paths but for the new thing’s own id and time', async () => {
    const [fromDirect, fromSdk] = await both(toolCall('create_thing', { name: 'made twice', notes: 'once per path' }));
    expect(fromDirect.status).to.equal(200);
    expect((fromDirect.body as { result: { structuredContent: { id: string } } }).result.structuredContent.id).to.not.equal(
      (fromSdk.body as { result: { structuredContent: { id: string } } }).result.structuredContent.id,
    );
    expect(without(fromDirect, NEW_RECORD)).to.deep.equal(without(fromSdk, NEW_RECORD));
  });

  it('create_job without a task: the direct path accepts it, and the same key on the SDK path answers the same job, charged once', async () => {
    const call = toolCall('create_job', { input: { prompt: 'one charge' }, idempotency_key: newKey() });
    expect(matches(call)).to.not.equal(undefined);
    const before = (await direct.call('GET', '/v1/me', { token })).body.usage as { jobs_charged: number };
    const [fromDirect, fromSdk] = await both(call);
    expect(fromDirect.status).to.equal(200);
    const job = (answer: Answer) => (answer.body as { result: { structuredContent: { id: string } } }).result.structuredContent;
    expect(job(fromSdk).id).to.equal(job(fromDirect).id);
    expect(without(fromDirect, JOB_PROGRESS)).to.deep.equal(without(fromSdk, JOB_PROGRESS));
    const after = (await direct.call('GET', '/v1/me', { token })).body.usage as { jobs_charged: number };
    expect(after.jobs_charged).to.equal(before.jobs_charged + 1);
  });

  it('a create_job that asks for a task is left to the SDK', () => {
    const tasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const call = rawToolCall('create_job', { input: { prompt: 'task' }, idempotency_key: newKey() }, { meta: tasks });
    expect(matches(call)).to.equal(undefined);
    // The same call without the tasks extension is served directly: the extension alone decides.
    expect(matches(toolCall('create_job', { input: { prompt: 'task' }, idempotency_key: newKey() }))).to.not.equal(undefined);
  });

  it('the classifier’s remembered verdict holds only for its envelope and id kind: after a served call, an id the SDK refuses, a changed envelope and a bad jsonrpc are each declined, and the first call is served again', () => {
    const fresh = directCallMatcher(tools, compileArgumentChecks(tools));
    expect(fresh(toolCall('get_me', {}, 7))).to.not.equal(undefined);
    expect(fresh(toolCall('get_me', {}, 1.5))).to.equal(undefined);
    const badInfo = { 'io.modelcontextprotocol/clientInfo': { name: 5 } };
    expect(fresh(rawToolCall('get_me', {}, { id: 7, meta: badInfo }))).to.equal(undefined);
    const badVersion = toolCall('get_me', {}, 7);
    (badVersion.body as { jsonrpc: string }).jsonrpc = '1.0';
    expect(fresh(badVersion)).to.equal(undefined);
    expect(fresh(toolCall('get_me', {}, 'another id'))).to.not.equal(undefined);
    expect(fresh(toolCall('get_me', {}, 8))).to.not.equal(undefined);
  });

  it('the real SDK client’s 2026-07-28 tools/call is a request the direct path serves', async () => {
    const seen: RawMcpCall[] = [];
    const recording = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      if (typeof init?.body === 'string') seen.push({ headers, body: JSON.parse(init.body) });
      return fetch(url, init);
    };
    const client = new Client({ name: 'connector-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
    const transport = new StreamableHTTPClientTransport(new URL(`${direct.baseUrl}/mcp`), {
      fetch: recording,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const result = await client.callTool({ name: 'get_me', arguments: {} });
    await client.close();
    expect(result.isError ?? false).to.equal(false);
    const call = seen.find((request) => (request.body as { method?: string }).method === 'tools/call');
    expect(call, JSON.stringify(seen)).to.not.equal(undefined);
    expect(matches(call!)).to.not.equal(undefined);
  });

  it('mutated calls (headers, ids, envelope, params, arguments, media type) answer alike from both paths, served directly or not', async () => {
    const counts = { served: 0, declined: 0 };
    const absent = Symbol('absent');
    // Each part of the call is mostly valid, so that about one call in seven is valid throughout.
    const mostly = <T>(valid: T, ...others: T[]) =>
      fc.oneof({ arbitrary: fc.constant(valid), weight: 4 }, { arbitrary: fc.constantFrom(...others), weight: 1 });
    const arbitrary = fc.record({
      tool: mostly<[string, Record<string, unknown> | undefined]>(
        ['get_me', {}],
        ['get_me', undefined],
        ['get_me', { extra: 1 }],
        ['list_things', { limit: 3 }],
        ['list_things', { limit: 0 }],
        ['list_jobs', { limit: 2, cursor: 'not a cursor' }],
        ['get_job', { id: 'placeholder' }],
        ['get_job', {}],
        ['no_such_tool', {}],
      ),
      id: mostly<unknown>(1, 'abc', '', null, 1.5, -3, { nested: 1 }, absent),
      jsonrpc: mostly<unknown>('2.0', '1.0', absent),
      version: mostly<unknown>(REVISION, '2025-11-25', 'bogus', absent),
      method: mostly<unknown>('tools/call', 'tools/list', absent),
      name: mostly<unknown>('same', 'other', '=?base64?Z2V0X21l?=', absent),
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
      bodyExtra: mostly(false, true),
      paramsExtra: mostly<unknown>(absent, { task: { ttl: 1000 } }, { cursor: 'x' }),
      meta: mostly<unknown>(
        MODERN_ENVELOPE,
        absent,
        { ...MODERN_ENVELOPE, progressToken: 'p1' },
        { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1', title: 'A title' } },
        { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 5 } },
        {
          ...MODERN_ENVELOPE,
          'io.modelcontextprotocol/clientCapabilities': { sampling: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
        },
        { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'none' },
        { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
        { 'io.modelcontextprotocol/protocolVersion': REVISION },
      ),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (choice) => {
        const [tool, rawArgs] = choice.tool;
        const args = tool === 'get_job' && rawArgs?.id === 'placeholder' ? { id: jobId } : rawArgs;
        const headers: Record<string, string> = { 'content-type': choice.contentType, accept: 'application/json, text/event-stream' };
        if (choice.version !== absent) headers['mcp-protocol-version'] = choice.version as string;
        if (choice.method !== absent) headers['mcp-method'] = choice.method as string;
        if (choice.name !== absent)
          headers['mcp-name'] = choice.name === 'same' ? tool : choice.name === 'other' ? 'list_jobs' : (choice.name as string);
        const params: Record<string, unknown> = { name: tool, ...(args === undefined ? {} : { arguments: args }) };
        if (choice.meta !== absent) params._meta = choice.meta;
        if (choice.paramsExtra !== absent) Object.assign(params, choice.paramsExtra);
        const body: Record<string, unknown> = { method: 'tools/call', params };
        if (choice.jsonrpc !== absent) body.jsonrpc = choice.jsonrpc;
        if (choice.id !== absent) body.id = choice.id;
        if (choice.bodyExtra) body.extra = true;
        const call = { headers, body };
        counts[matches(call) ? 'served' : 'declined'] += 1;
        const [fromDirect, fromSdk] = await both(call);
        expect(fromDirect, JSON.stringify(call)).to.deep.equal(fromSdk);
      }),
      { numRuns: 150 },
    );
    // Both branches of the comparison were exercised: some calls took the direct path, some the SDK.
    expect(counts.served).to.be.greaterThan(0);
    expect(counts.declined).to.be.greaterThan(0);
  });
});
