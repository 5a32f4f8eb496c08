import { expect } from 'chai';
import * as z from 'zod';
import { bearerOperation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { callOk, connectMcp, OutputChecker } from '../support/mcp-client';
import { portabilityFindings } from '../support/schema-portability';

/** A body using every zod form an operation is likely to declare: what express-openapi-validator must accept. */
const Shape = z.strictObject({
  title: z.string().min(1).max(40).regex(/\S/),
  kind: z.enum(['note', 'task']),
  size: z.int().min(1).max(9),
  ratio: z.number().min(0).max(1).optional(),
  due: z.string().max(30).nullable(),
  tags: z.array(z.string().max(10)).max(3),
  flag: z.literal(true).optional(),
  target: z.xor([z.strictObject({ user: z.string().max(20) }), z.strictObject({ team: z.string().max(20) })]),
});

const echoShape = bearerOperation({
  operationId: 'echoShape',
  method: 'post',
  path: '/v1/shapes',
  summary: 'Echo a shape',
  description: 'Repeats a shaped body, to show every zod form reaches the validator and the handler. Free.',
  published: true,
  consequential: false,
  requestBody: Shape,
  responses: { 200: { description: 'The body back.', schema: { type: 'object' } } },
  errors: [400, 401, 429, 500],
  // Typed from the schema: `kind` is 'note' | 'task', `due` string | null.
  handle: async ({ body }) => ({ status: 200, body: { ...body, title: body.title.toUpperCase(), due: body.due ?? 'none' } }),
});

const VALID = { title: 'hello', kind: 'task', size: 3, due: null, tags: ['a'], target: { user: 'ann' } } as const;

// Validation happens before anything touches a backend: the memory one is enough.
describe('request bodies declared with zod, as the validator and the handler see them [memory]', () => {
  let c: ConnectorUnderTest;
  let token: string;
  before(async () => {
    c = await startConnector('memory', {}, { operations: withOperations(OPERATIONS, [echoShape]) });
    token = await c.link(newSubject());
  });
  after(async () => c?.close());

  const post = (body: unknown) => c.call('POST', '/v1/shapes', { token, body });

  it('a body that fits (nullable, optional, enum, integer, array, exclusive union) reaches the typed handler', async () => {
    const res = await post({ ...VALID, ratio: 0.5, flag: true });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.include({ title: 'HELLO', kind: 'task', due: 'none', ratio: 0.5, target: { user: 'ann' } });
    expect((await post({ ...VALID, due: '2030-01-01', target: { team: 'red' } })).status).to.equal(200);
  });

  it('each form refuses what its schema denies with a 400 naming the field', async () => {
    const broken: Array<Record<string, unknown>> = [
      { ...VALID, title: ' ' },
      { ...VALID, kind: 'idea' },
      { ...VALID, size: 2.5 },
      { ...VALID, size: 10 },
      { ...VALID, ratio: 2 },
      { ...VALID, due: 5 },
      { ...VALID, tags: ['a', 'b', 'c', 'd'] },
      { ...VALID, flag: false },
      { ...VALID, target: { user: 'ann', team: 'red' } },
      { ...VALID, extra: 1 },
    ];
    for (const body of broken) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.errors, JSON.stringify(body)).to.be.an('array').that.is.not.empty;
    }
  });

  it('its MCP tool carries the same schema in portable form and runs the same handler', async () => {
    const client = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((candidate) => candidate.name === 'echo_shape')!;
      expect(portabilityFindings(tool.inputSchema)).to.deep.equal([]);
      expect(await callOk(client, new OutputChecker(tools), 'echo_shape', { ...VALID })).to.deep.include({ title: 'HELLO' });
    } finally {
      await client.close();
    }
  });
});
