import { expect } from 'chai';
import { buildLlmsTxt } from '../../../../../shared/contract/description/llms-txt';
import type { Operation } from '../../../../../shared/contract/operations/operation';

const GET_THING = { operationId: 'getThing', method: 'get', path: '/v1/things/{id}', description: 'Reads a thing.' };
const MAKE_THING = {
  operationId: 'makeThing',
  method: 'post',
  path: '/v1/things',
  description: 'Makes a thing.',
  price: { kind: 'fixed', credits: 2 },
  async: { pollOperationId: 'getThing', retryAfterSeconds: 3 },
};
const LINKS = { publicUrl: 'https://api.example.com', dashboardUrl: 'https://dash.example.com' };
const build = (operations: unknown[]) => buildLlmsTxt(operations as Operation[], LINKS);

/** The non-empty lines under `heading`, up to the next heading. */
function section(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  expect(start, heading).to.be.greaterThan(-1);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('#'));
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line !== '');
}

describe('buildLlmsTxt', () => {
  it('setup: the dashboard to connect at and the base URL, from the links given', () => {
    expect(section(build([GET_THING]), '## Setup').join('\n'))
      .to.contain('connects at https://dash.example.com')
      .and.contain('Base URL: https://api.example.com');
  });

  it('a free operation: its heading, its description verbatim, and "free"', () => {
    expect(section(build([GET_THING]), '### getThing: GET /v1/things/{id}')).to.deep.equal(['Reads a thing.', '- Cost: free.']);
  });

  it('a paid asynchronous operation: its price once, the yes and key it needs, and how to poll its job', () => {
    const lines = section(build([GET_THING, MAKE_THING]), '### makeThing: POST /v1/things');
    expect(lines[0]).to.equal('Makes a thing. Costs 2 credits.');
    expect(lines[1]).to.match(/^- Cost: 2 credits, charged once when the job is accepted\. Needs the person's explicit yes/);
    expect(lines[2]).to.equal(
      '- Asynchronous: answers 202 with a job at once. Poll getThing (GET /v1/things/{id}) every Retry-After seconds (3 s) until status is succeeded, failed or canceled.',
    );
  });

  it('a poll operation that is not published: named by its id alone', () => {
    expect(build([MAKE_THING])).to.contain('Poll getThing every Retry-After seconds (3 s)');
  });

  it('MCP: the endpoint under the public URL, every tool by name, and each paid tool with its key and polling tool', () => {
    const mcp = section(build([GET_THING, MAKE_THING]), '## MCP');
    expect(mcp[0]).to.match(/^- Endpoint: https:\/\/api\.example\.com\/mcp /);
    expect(mcp).to.include('- Tools: one per operation above, same description and schemas: get_thing (getThing), make_thing (makeThing).');
    expect(mcp.filter((line) => line.includes('is paid'))).to.have.length(1);
    expect(mcp[mcp.length - 1])
      .to.contain('make_thing is paid')
      .and.contain('otherwise poll get_thing with that id');
  });

  it('the reconnect rule and the OpenAPI link use the given addresses', () => {
    const text = build([GET_THING]);
    expect(text).to.contain('ask the person to reconnect at https://dash.example.com.');
    expect(text).to.contain('[OpenAPI description](https://api.example.com/openapi.json)');
  });
});
