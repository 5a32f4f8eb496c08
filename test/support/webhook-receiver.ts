import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '../testkit/wait-for';

/** One request as the receiver got it, with the outcome of verifying its signature. */
export interface Received {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  /** The parsed body when the signature verified, undefined when it did not. */
  readonly payload: any;
  readonly verified: boolean;
  /** The `traceparent` header the sender sent (W3C trace context), when it traces. */
  readonly traceparent?: string;
}

/** How the receiver answers a request: a status, or `hang` (never answer). */
export type Answer = number | 'hang';

/** A fresh Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A real HTTP receiver, as a dashboard would run one: every request is verified with the `standardwebhooks`
 * package and recorded; `answer` decides the status (204 unless told otherwise), per request.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: Received, attemptOfId: number) => Answer = () => 204;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly secret: string,
  ) {}

  /** Listens on 127.0.0.1 on a free port. */
  static async start(secret = newWebhookSecret()): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server, secret);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The URL to give the connector as WEBHOOK_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/connector`;
  }

  /** Verifies a body and headers as a receiver would; throws the package's error when they do not match. */
  verify(body: string, headers: { id: string; timestamp: string; signature: string }): unknown {
    return new Webhook(this.secret).verify(body, {
      'webhook-id': headers.id,
      'webhook-timestamp': headers.timestamp,
      'webhook-signature': headers.signature,
    });
  }

  /** Requests (every attempt) whose verified payload matches. */
  matching(accept: (payload: any) => boolean): Received[] {
    return this.received.filter((r) => r.verified && accept(r.payload));
  }

  /** Waits until some verified request matches, and returns the first. */
  async next(accept: (payload: any) => boolean, what: string, timeoutMs = 15_000): Promise<Received> {
    return waitFor(() => this.matching(accept)[0], { what, timeoutMs });
  }

  /** Requests left hanging so far and not cut. */
  get hangingCount(): number {
    return this.hanging.size;
  }

  /** Cuts the connections of the requests left hanging (the sender sees a reset and retries). */
  cutHanging(): void {
    for (const res of this.hanging) res.socket?.destroy();
    this.hanging.clear();
  }

  /** Stops listening and cuts every connection, hanging ones included. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const headers = { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature') };
      let payload: unknown;
      let verified = false;
      try {
        payload = this.verify(body, headers);
        verified = true;
      } catch {
        payload = undefined;
      }
      const traceparent = req.headers.traceparent;
      const received: Received = { ...headers, body, payload, verified, ...(typeof traceparent === 'string' ? { traceparent } : {}) };
      this.received.push(received);
      const answer = this.answer(received, this.received.filter((r) => r.id === received.id).length);
      if (answer === 'hang') {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      res.statusCode = answer;
      res.end();
    });
  }
}
