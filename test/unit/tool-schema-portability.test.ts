import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import fc from 'fast-check';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { inlineSchema } from '../../shared/contract/mcp/inline-schema';
import { portableSchema } from '../../shared/contract/mcp/portable-schema';
import { buildToolDefinitions } from '../../shared/contract/mcp/tool-definitions';
import type { JsonSchema } from '../../shared/contract/operations/operation';
import { OPERATIONS, publishedOperations } from '../../shared/contract/operations/registry';
import { requestBodySchema, schemaComponents } from '../../shared/contract/operations/registry-schemas';
import { COMPONENT_SCHEMAS } from '../../shared/contract/operations/schemas';
import { portabilityFindings } from '../support/schema-portability';

/** Every subschema of `schema` (itself included) whose `type` is an array. */
function typeUnions(schema: unknown, found: JsonSchema[] = []): JsonSchema[] {
  if (Array.isArray(schema)) {
    for (const item of schema) typeUnions(item, found);
  } else if (schema && typeof schema === 'object') {
    if (Array.isArray((schema as JsonSchema).type)) found.push(schema as JsonSchema);
    for (const child of Object.values(schema)) typeUnions(child, found);
  }
  return found;
}

/** Every schema the registry's operations use: request bodies, parameters and responses, components inlined. */
function registrySchemas(): JsonSchema[] {
  return OPERATIONS.flatMap((operation) => [
    ...(requestBodySchema(operation) ? [requestBodySchema(operation)!] : []),
    ...(operation.parameters ?? []).map((parameter) => parameter.schema as JsonSchema),
    ...Object.values(operation.responses).map((response) => response.schema),
  ])
    .filter(Boolean)
    .map((schema) => inlineSchema(schema, schemaComponents(OPERATIONS)));
}

const ajv = () => addFormats(new Ajv2020({ strict: false, allErrors: false }));

describe('MCP tool schemas are portable (the Inspector --strict rules)', () => {
  it('every tool of the registry: inputSchema and outputSchema have no finding (no type array, remote $ref, untyped or boolean schema)', () => {
    const tools = buildToolDefinitions(publishedOperations());
    expect(tools.length).to.be.greaterThan(0);
    const findings = tools.flatMap((tool) => [
      ...portabilityFindings(tool.inputSchema).map((finding) => ({ tool: tool.name, schema: 'inputSchema', ...finding })),
      ...portabilityFindings(tool.outputSchema).map((finding) => ({ tool: tool.name, schema: 'outputSchema', ...finding })),
    ]);
    expect(findings).to.deep.equal([]);
  });

  it('the rules report a type array, a remote $ref, an untyped schema and a bare boolean, and allow additionalProperties: false and not: {}', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        nullable: { type: ['string', 'null'] },
        remote: { $ref: 'https://example.com/schema.json' },
        local: { $ref: '#/$defs/x' },
        anything: { description: 'no validation keyword' },
        forbidden: { not: {} },
        list: { type: 'array', items: true },
        // biome-ignore lint/suspicious/noThenProperty: `then` here is the JSON Schema keyword, never awaited
        pair: { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } },
      },
    };
    expect(portabilityFindings(schema)).to.deep.equal([
      { rule: 'type-union', path: 'properties.nullable' },
      { rule: 'remote-ref', path: 'properties.remote' },
      { rule: 'untyped-schema', path: 'properties.anything' },
      { rule: 'boolean-schema', path: 'properties.list.items' },
    ]);
  });

  it('a nullable type array becomes an anyOf of single types, each with its own keywords, annotations and enum left on top', () => {
    expect(
      portableSchema({ type: ['string', 'null'], format: 'date-time', maxLength: 40, description: 'When.', enum: ['a', null] }),
    ).to.deep.equal({
      description: 'When.',
      enum: ['a', null],
      anyOf: [{ type: 'string', format: 'date-time', maxLength: 40 }, { type: 'null' }],
    });
    expect(portableSchema({ type: ['object', 'integer'], required: ['a'], minimum: 1, anyOf: [{ required: ['b'] }] })).to.deep.equal({
      allOf: [
        { anyOf: [{ required: ['b'] }] },
        {
          anyOf: [
            { type: 'object', required: ['a'] },
            { type: 'integer', minimum: 1 },
          ],
        },
      ],
    });
    // Nested: inside properties, items and branches too; a schema without type arrays is left as it was.
    const components = schemaComponents(OPERATIONS);
    const page = inlineSchema(components.JobPage, components);
    expect(typeUnions(page)).to.have.length.greaterThan(0);
    expect(typeUnions(portableSchema(page))).to.deep.equal([]);
    const usage = inlineSchema(COMPONENT_SCHEMAS.Usage);
    expect(portableSchema(usage)).to.deep.equal(usage);
  });

  it('each rewritten schema of the registry accepts exactly the values the registry schema accepts (10,000 random values, plus each type)', () => {
    const unions = registrySchemas().flatMap((schema) => typeUnions(schema));
    expect(unions.length, 'nullable schemas in the registry').to.be.greaterThan(5);
    const validator = ajv();
    const pairs = unions.map((schema) => ({
      schema,
      original: validator.compile(schema),
      portable: validator.compile(portableSchema(schema)),
    }));
    const probes: unknown[] = [
      null,
      true,
      0,
      1.5,
      '',
      'x',
      '2026-01-01T00:00:00Z',
      [],
      {},
      { message: 'failed' },
      { client_id: 'a', client_name: 'b' },
      { limit: 3, spent: 1, remaining: 2, resets_at: '2026-01-02T00:00:00Z' },
    ];
    for (const { schema, original, portable } of pairs) {
      for (const value of probes)
        expect(portable(value), `${JSON.stringify(schema)} on ${JSON.stringify(value)}`).to.equal(original(value));
    }
    fc.assert(
      fc.property(fc.jsonValue(), (value) => pairs.every(({ original, portable }) => original(value) === portable(value))),
      { numRuns: 10_000 },
    );
  });

  it('the tools are the registry schemas rewritten, while /openapi.json keeps the registry form (type arrays) for GPT Actions', () => {
    const document = buildOpenApiDocument(publishedOperations(), 'http://localhost:8787');
    expect(document.components.schemas.Job.properties.started_at.type).to.deep.equal(['string', 'null']);
    expect(typeUnions(document.components.schemas).length).to.be.greaterThan(5);
    const getJob = buildToolDefinitions(publishedOperations()).find((tool) => tool.name === 'get_job')!;
    const published = document.paths['/v1/jobs/{id}'].get.responses['200'].content['application/json'].schema;
    expect(getJob.outputSchema).to.deep.equal(portableSchema(inlineSchema(published, document.components.schemas)));
  });
});
