import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { ROOT } from '../support/spawn-process';
import { newWebhookSecret } from '../support/webhook-receiver';
import { freePort } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';

/** The code of the fenced block of `docs/<page>` whose info string is `info`. */
function block(info: string, page = 'webhooks.md'): string {
  const text = readFileSync(path.join(ROOT, 'docs', page), 'utf8');
  const found = [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1].trim() === info);
  expect(found, `one block "${info}"`).to.have.length(1);
  return found[0][2];
}

/** The receivers the guides show (the dashboard guide links the events guide's). */
const RECEIVERS = [{ page: 'webhooks.md', info: 'js webhook-receiver' }] as const;

for (const { page, info } of RECEIVERS)
  describe(`docs/${page}: the receiver, and the forged request of docs/webhooks.md, run against a connector`, function () {
    this.timeout(30_000);
    const secret = newWebhookSecret();
    let port: number;
    let receiver: ChildProcess;
    let output = '';
    let connector: ConnectorUnderTest;

    before(async () => {
      port = await freePort();
      // Run from the repository, so that require('standardwebhooks') finds the package as a reader's project would.
      receiver = spawn(process.execPath, ['-e', block(info, page)], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      receiver.stdout!.on('data', (chunk) => (output += chunk));
      await waitFor(
        () =>
          fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
            (r) => r.status === 400,
            () => false,
          ),
        { what: 'the receiver to listen' },
      );
      connector = await startConnector('memory', {
        WEBHOOK_URL: `http://127.0.0.1:${port}/`,
        WEBHOOK_SECRET: secret,
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
    });
    after(async () => {
      await connector?.close();
      receiver?.kill();
    });

    it('the receiver prints the connection.created of a new link', async () => {
      const { connection_id } = (
        await connector.call('POST', '/v1/link', {
          body: { subject: newSubject() },
          headers: { 'x-link-secret': connector.config.linkSecret },
        })
      ).body;
      await waitFor(() => output.includes(`connection.created ${connection_id}\n`), { what: 'the receiver to print the event' });
    });

    it('the receiver handles one event id once, however often it arrives', async () => {
      const body = JSON.stringify({
        type: 'connection.revoked',
        timestamp: new Date().toISOString(),
        data: { connection_id: 'conn_twice' },
      });
      const now = new Date();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': 'evt_twice',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('evt_twice', now, body),
      };
      for (let i = 0; i < 3; i++)
        expect((await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body })).status).to.equal(204);
      expect(output.split('\n').filter((line) => line === 'connection.revoked conn_twice')).to.have.length(1);
    });

    it('the curl of a forged request gets 400', () => {
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', block('sh webhook-forged')], {
        env: { PATH: process.env.PATH ?? '', PORT: String(port) },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout.trim()).to.equal('400');
      expect(output).to.not.include('connection.revoked undefined');
    });
  });
