import { expect } from 'chai';
import { inlineSchema } from '../../../../../shared/contract/mcp/inline-schema';
import { buildToolDefinitions, toolName } from '../../../../../shared/contract/mcp/tool-definitions';
import type { Operation } from '../../../../../shared/contract/operations/operation';
import { publishedOperations } from '../../../../../shared/contract/operations/registry';
import { resourceMetadataUrl } from '../../../../../shared/domain/oauth/resource-metadata-url';
import { loadConfig } from '../../../../../shared/platform/config/config';
import { BASE_ENV } from '../../../../support/harness';

const principal = { subject: 'alice', connectionId: 'conn_1', issuedAt: 0, expiresAt: 1 };

describe('MCP tool definitions from the registry', () => {
  it('tool names are the operationIds in snake_case', () => {
    expect(['getMe', 'listThings', 'createJob', 'getJob', 'already_snake', 'getHTTPStatus'].map(toolName)).to.deep.equal([
      'get_me',
      'list_things',
      'create_job',
      'get_job',
      'already_snake',
      'get_httpstatus',
    ]);
  });

  it('inlines component references so a schema stands alone, and refuses a recursive component', () => {
    const inlined = inlineSchema(
      { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
      { A: { type: 'string', minLength: 1 } },
    );
    expect(inlined).to.deep.equal({ type: 'object', properties: { a: { type: 'string', minLength: 1 } } });
    expect(JSON.stringify(inlineSchema({ $ref: '#/components/schemas/Job' }))).to.not.include('$ref');
    expect(() => inlineSchema({ $ref: '#/components/schemas/Loop' }, { Loop: { items: { $ref: '#/components/schemas/Loop' } } })).to.throw(
      /recursive/,
    );
    expect(() => inlineSchema({ $ref: '#/components/schemas/Missing' }, {})).to.throw(/unknown/);
  });

  it('path parameters are required arguments, query parameters optional ones, header parameters are left out', () => {
    const tools = buildToolDefinitions(publishedOperations());
    const getJob = tools.find((tool) => tool.name === 'get_job')!;
    expect(getJob.inputSchema.required).to.deep.equal(['id']);
    const listJobs = tools.find((tool) => tool.name === 'list_jobs')!;
    expect(Object.keys(listJobs.inputSchema.properties as object)).to.deep.equal(['limit', 'cursor']);
    expect(listJobs.inputSchema.required).to.equal(undefined);
    const createJob = tools.find((tool) => tool.name === 'create_job')!;
    expect(Object.keys(createJob.inputSchema.properties as object)).to.deep.equal(['input', 'idempotency_key']);
    expect(createJob.inputSchema.required).to.deep.equal(['input', 'idempotency_key']);
  });

  it('builds the operation request from the arguments: path into params, query into query, the rest into the body', () => {
    const tools = buildToolDefinitions(publishedOperations());
    const getJob = tools.find((tool) => tool.name === 'get_job')!.toRequest({ id: 'job_1' }, principal);
    expect(getJob).to.deep.include({ params: { id: 'job_1' }, query: {}, body: {}, principal });
    const createJob = tools
      .find((tool) => tool.name === 'create_job')!
      .toRequest({ input: { prompt: 'p' }, idempotency_key: 'k' }, principal);
    expect(createJob.body).to.deep.equal({ input: { prompt: 'p' }, idempotency_key: 'k' });
    expect(createJob.header('idempotency-key')).to.equal(undefined);
    const listThings = tools.find((tool) => tool.name === 'list_things')!.toRequest({ limit: 5 }, principal);
    expect(listThings.query).to.deep.equal({ limit: 5 });
  });

  it('annotations follow the registry: reads are read-only and idempotent, the paid job idempotent, destructive and open-world only when declared', () => {
    const base = publishedOperations().find((operation) => operation.operationId === 'createThing')!;
    const declared: Operation = { ...base, operationId: 'wipeThings', destructive: true, openWorld: true };
    const [tool] = buildToolDefinitions([declared]);
    expect(tool.annotations).to.deep.equal({ readOnlyHint: false, idempotentHint: false, destructiveHint: true, openWorldHint: true });
  });

  it('two operations that map to one tool name are refused', () => {
    const getMe = publishedOperations()[0];
    expect(() => buildToolDefinitions([getMe, { ...getMe, operationId: 'get_me' }])).to.throw(/get_me/);
  });
});

describe('RFC 9728 resource metadata URL', () => {
  it('puts the well-known segment after the host and before any path of PUBLIC_URL', () => {
    expect(resourceMetadataUrl('https://api.example.com')).to.equal('https://api.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('https://api.example.com/')).to.equal('https://api.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('https://example.com/connector')).to.equal(
      'https://example.com/.well-known/oauth-protected-resource/connector',
    );
    expect(resourceMetadataUrl('http://localhost:8787/a/b/')).to.equal('http://localhost:8787/.well-known/oauth-protected-resource/a/b');
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  it('defaults to none, accepts a comma-separated list of origins and refuses anything else by name', () => {
    expect(loadConfig({ ...BASE_ENV }).mcpAllowedOrigins).to.deep.equal([]);
    expect(loadConfig({ ...BASE_ENV, MCP_ALLOWED_ORIGINS: 'https://claude.ai, https://chatgpt.com/' }).mcpAllowedOrigins).to.deep.equal([
      'https://claude.ai',
      'https://chatgpt.com',
    ]);
    for (const bad of ['claude.ai', 'https://claude.ai/path', 'ftp://x.example']) {
      expect(() => loadConfig({ ...BASE_ENV, MCP_ALLOWED_ORIGINS: bad }), bad).to.throw(/MCP_ALLOWED_ORIGINS/);
    }
  });
});
