import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { WebhookSender } from '../../../../../shared/domain/webhooks/webhook-sender';
import { newWebhookSecret } from '../../../../support/webhook-receiver';

describe('the webhook sender', () => {
  let server: http.Server;
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string; url: string }> = [];
  const secret = newWebhookSecret();
  let url: string;

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ headers: req.headers, body, url: req.url ?? '' });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  const sender = (overrides: { allowPrivate?: boolean; timeoutMs?: number } = {}) =>
    new WebhookSender({ url, secret, allowPrivate: overrides.allowPrivate ?? true, concurrency: 2 }, overrides.timeoutMs);

  it('posts the body signed per Standard Webhooks; a 2xx is delivered', async () => {
    answer = (_req, res) => res.writeHead(204).end();
    const s = sender();
    const result = await s.send('evt_1', '{"type":"job.succeeded"}');
    s.close();
    expect(result).to.deep.equal({ outcome: 'delivered', status: 204 });
    const { headers, body } = seen[0];
    expect(headers['content-type']).to.equal('application/json');
    expect(headers['webhook-id']).to.equal('evt_1');
    expect(new Webhook(secret).verify(body, headers as Record<string, string>)).to.deep.equal({ type: 'job.succeeded' });
  });

  it('a 410 is gone, a 500 and a redirect are failures (the redirect is not followed)', async () => {
    const s = sender();
    answer = (_req, res) => res.writeHead(410).end();
    expect(await s.send('evt_2', '{}')).to.deep.equal({ outcome: 'gone', status: 410 });
    answer = (_req, res) => res.writeHead(500).end('boom');
    expect(await s.send('evt_2', '{}')).to.deep.include({ outcome: 'failed', status: 500 });
    answer = (req, res) => (req.url === '/hook' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end());
    expect(await s.send('evt_2', '{}')).to.deep.include({ outcome: 'failed', status: 302 });
    s.close();
    expect(seen.map((r) => r.url)).to.deep.equal(['/hook', '/hook', '/hook']);
  });

  it('a receiver that does not answer within the timeout is a failure', async () => {
    answer = () => {};
    const s = sender({ timeoutMs: 200 });
    const started = Date.now();
    expect(await s.send('evt_3', '{}')).to.deep.equal({ outcome: 'failed', reason: 'no answer within 200 ms' });
    expect(Date.now() - started).to.be.below(2000);
    s.close();
  });

  it('without WEBHOOK_ALLOW_PRIVATE a loopback receiver is never contacted', async () => {
    answer = (_req, res) => res.writeHead(204).end();
    const s = sender({ allowPrivate: false });
    const result = await s.send('evt_4', '{}');
    s.close();
    expect(result).to.deep.include({ outcome: 'failed' });
    expect(seen).to.deep.equal([]);
  });
});
