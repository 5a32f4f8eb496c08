import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the stub facilitator answers: as a facilitator would, refusing every verify, failing like one that is
 * down, or settling and then failing (`lost`: the chain moved, the answer never came).
 */
export type FacilitatorMode = 'ok' | 'refuse' | 'down' | 'lost';

/** The reason `@x402/evm` gives for a nonce the token has used. */
const NONCE_USED = 'invalid_exact_evm_nonce_already_used';

/**
 * A facilitator stand-in for the connector's own tests that need no chain: it answers `/verify` and `/settle`
 * as the x402 HTTP facilitator API does, settles each nonce once (a verify or a second settle of a settled
 * nonce is refused, as the token's `authorizationState` would), and counts its settlements. The tests that move real tokens use
 * the x402 stand (a local chain and the facilitator of `@x402/evm`).
 */
export class StubFacilitator {
  mode: FacilitatorMode = 'ok';
  readonly settled: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<StubFacilitator> {
    let stub: StubFacilitator | undefined;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () =>
        stub?.answer(req.url ?? '', body, (status, json) => res.writeHead(status, { 'content-type': 'application/json' }).end(json)),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stub = new StubFacilitator(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return stub;
  }

  private answer(path: string, body: string, send: (status: number, json: string) => void): void {
    if (this.mode === 'down') return send(502, '<html>bad gateway</html>');
    const { paymentPayload, paymentRequirements } = JSON.parse(body);
    const auth = paymentPayload?.payload?.authorization ?? {};
    const network = paymentRequirements?.network;
    const used = this.settled.includes(auth.nonce);
    if (path === '/verify') {
      if (this.mode === 'refuse' || used) {
        const invalidReason = used ? NONCE_USED : 'insufficient_funds';
        return send(400, JSON.stringify({ isValid: false, invalidReason, payer: auth.from }));
      }
      return send(200, JSON.stringify({ isValid: true, payer: auth.from }));
    }
    if (used) return send(400, JSON.stringify({ success: false, errorReason: NONCE_USED, transaction: '', network }));
    this.settled.push(auth.nonce);
    if (this.mode === 'lost') return send(502, '<html>bad gateway</html>');
    return send(200, JSON.stringify({ success: true, transaction: `0x${randomBytes(32).toString('hex')}`, network, payer: auth.from }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
