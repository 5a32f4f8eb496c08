import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { capturePublishedFaces } from '../support/published-faces';
import { ROOT } from '../support/spawn-process';

/** The faces as the last commit that changed the contract served them; `UPDATE_FACES=1` rewrites it on purpose. */
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'published-faces.json');

describe('the published faces [memory]', () => {
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('memory');
  });
  after(() => connector.close());

  it('/openapi.json, /llms.txt, the root page, discovery, the fixed error answers and the MCP lists are byte-identical to the recorded ones', async () => {
    const served = `${JSON.stringify(await capturePublishedFaces(connector), null, 2)}\n`;
    if (process.env.UPDATE_FACES === '1') writeFileSync(FIXTURE, served);
    const recorded = readFileSync(FIXTURE, 'utf8');
    // Compared face by face first, so that a difference names the face it is in.
    const servedFaces = JSON.parse(served) as Record<string, unknown>;
    for (const [name, face] of Object.entries(JSON.parse(recorded) as Record<string, unknown>)) {
      expect(servedFaces[name], name).to.deep.equal(face);
    }
    expect(served).to.equal(recorded);
  });
});
