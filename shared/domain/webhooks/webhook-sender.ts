import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookSettings } from '../../platform/config/webhook-settings';
import { checkedLookup, isNonPublicHost } from '../../platform/net/address-policy';

/** An attempt without a complete answer after this long has failed (the contract's 10 s). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A receiver's answer is read (so the connection can be reused) up to this many bytes, then cut. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What one attempt came to: 2xx delivered it, 410 asks to stop, anything else is retried. */
export type SendResult =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'gone'; status: 410 }
  | { outcome: 'failed'; status?: number; reason: string };

/** Why an address was refused; thrown from the lookup, reported as the attempt's reason. */
class RefusedAddress extends Error {}

/**
 * Posts signed events to the receiver. Each attempt is signed afresh (`webhook-timestamp` is the attempt's
 * time, so a receiver's replay window holds) with the `standardwebhooks` package, under the current secret and,
 * during a rotation, the previous one too, so a receiver holding either verifies it. The receiver's address
 * follows the OAuth metadata fetcher's rules: every address a name resolves to must be public unless
 * `WEBHOOK_ALLOW_PRIVATE` is set, and the connection goes to the very address checked. Redirects are not
 * followed: an event goes to the configured URL or nowhere.
 */
export class WebhookSender {
  /** The current secret's signer, then the previous one's during a rotation. */
  private readonly signers: readonly Webhook[];
  private readonly target: URL;
  private readonly agent: http.Agent;
  private readonly lookup: LookupFunction;

  constructor(
    private readonly settings: Pick<WebhookSettings, 'url' | 'secret' | 'previousSecret' | 'allowPrivate' | 'concurrency'>,
    private readonly timeoutMs = DELIVERY_TIMEOUT_MS,
  ) {
    this.signers = [settings.secret, ...(settings.previousSecret ? [settings.previousSecret] : [])].map((secret) => new Webhook(secret));
    this.target = new URL(settings.url);
    const Agent = this.target.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: settings.concurrency });
    this.lookup = checkedLookup({
      allowPrivate: settings.allowPrivate,
      refuse: (reason) =>
        new RefusedAddress(
          reason === 'unresolved'
            ? 'the receiver host does not resolve'
            : 'the receiver host is not on the public internet (WEBHOOK_ALLOW_PRIVATE)',
        ),
    });
  }

  /** One attempt: posts `body` as event `id`, signed now. Never rejects. */
  send(id: string, body: string, now = new Date()): Promise<SendResult> {
    if (!this.settings.allowPrivate && isNonPublicHost(this.target.hostname)) {
      return Promise.resolve({ outcome: 'failed', reason: 'the receiver host is not on the public internet (WEBHOOK_ALLOW_PRIVATE)' });
    }
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'connector-webhooks',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      // Standard Webhooks: space-separated `v1,<signature>` entries; a receiver accepts any one that verifies.
      'webhook-signature': this.signers.map((signer) => signer.sign(id, now, body)).join(' '),
    };
    const request = (this.target.protocol === 'https:' ? https : http).request(this.target, {
      method: 'POST',
      headers,
      agent: this.agent,
      lookup: this.lookup,
    });
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const settle = (result: SendResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      // One deadline for the whole exchange, the answer's body included: a receiver that trickles is cut.
      const deadline = setTimeout(() => {
        settle({ outcome: 'failed', reason: `no answer within ${this.timeoutMs} ms` });
        request.destroy();
      }, this.timeoutMs);
      request.on('close', () => clearTimeout(deadline));
      request.on('error', (error) => {
        const reason =
          error instanceof RefusedAddress
            ? error.message
            : `could not reach the receiver (${(error as NodeJS.ErrnoException).code ?? 'connection error'})`;
        settle({ outcome: 'failed', reason });
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) settle({ outcome: 'delivered', status });
        else if (status === 410) settle({ outcome: 'gone', status: 410 });
        else settle({ outcome: 'failed', status, reason: `answered ${status}` });
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) request.destroy();
        });
        response.on('error', () => request.destroy());
      });
      request.end(body);
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
