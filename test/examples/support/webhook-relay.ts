import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One delivery attempt the relay passed on: the event id, its unverified body, and what the target answered. */
export interface RelayedAttempt {
  readonly id: string;
  readonly body: string;
  readonly targetStatus: number;
}

/**
 * Stands between the connector and a webhook receiver: passes every attempt on verbatim (body and the three
 * signature headers) and tells the connector the first attempt of each event failed (500) whatever the
 * receiver answered, as when the receiver's answer is lost. The connector then delivers the event again with
 * the same `webhook-id`, so the receiver gets every event twice.
 */
export class WebhookRelay {
  readonly attempts: RelayedAttempt[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly target: string,
  ) {}

  static async start(target: string): Promise<WebhookRelay> {
    const server = http.createServer();
    const relay = new WebhookRelay(server, target);
    server.on('connection', (socket) => {
      relay.sockets.add(socket);
      socket.on('close', () => relay.sockets.delete(socket));
    });
    server.on('request', (req, res) => void relay.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  /** The URL to give the connector as WEBHOOK_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** The attempts of the event whose body matches. */
  attemptsOf(accept: (event: any) => boolean): RelayedAttempt[] {
    return this.attempts.filter((attempt) => accept(JSON.parse(attempt.body)));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const pass = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
    const headers = Object.fromEntries(pass.map((name) => [name, String(req.headers[name] ?? '')]));
    let targetStatus = 0;
    try {
      targetStatus = (await fetch(this.target, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) })).status;
    } catch {
      targetStatus = 0;
    }
    const id = headers['webhook-id'];
    const first = !this.attempts.some((attempt) => attempt.id === id);
    this.attempts.push({ id, body, targetStatus });
    res.statusCode = first ? 500 : targetStatus || 502;
    res.end();
  }
}
