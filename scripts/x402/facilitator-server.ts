import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';

/** The body `HTTPFacilitatorClient` posts to `/verify` and `/settle`. */
interface FacilitatorRequest {
  x402Version: number;
  paymentPayload: PaymentPayload;
  paymentRequirements: PaymentRequirements;
}

const MAX_BODY_BYTES = 64 * 1024;

async function readRequest(request: http.IncomingMessage): Promise<FacilitatorRequest> {
  let body = '';
  for await (const chunk of request) {
    body += chunk;
    if (body.length > MAX_BODY_BYTES) throw new Error('request body too large');
  }
  const parsed = JSON.parse(body) as Partial<FacilitatorRequest> | null;
  if (typeof parsed?.paymentPayload !== 'object' || typeof parsed?.paymentRequirements !== 'object') {
    throw new Error('expected { x402Version, paymentPayload, paymentRequirements }');
  }
  return parsed as FacilitatorRequest;
}

type Send = (status: number, value: unknown) => void;

/**
 * POST /verify or /settle: the facilitator's answer with 200 whether the payment holds or not (the answer says
 * which, as the x402 reference facilitator does); 400 for a body that is not a facilitator request; 500 with
 * the error's message when the facilitator throws (the chain unreachable).
 */
async function paymentCall(facilitator: x402Facilitator, action: 'verify' | 'settle', request: http.IncomingMessage, send: Send) {
  let body: FacilitatorRequest;
  try {
    body = await readRequest(request);
  } catch (error) {
    return send(400, { error: (error as Error).message });
  }
  try {
    send(200, await facilitator[action](body.paymentPayload, body.paymentRequirements));
  } catch (error) {
    send(500, { error: (error as Error).message });
  }
}

/** A listening facilitator and how to stop it. */
export interface FacilitatorServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `facilitator` with the x402 facilitator API that `@x402/core`'s `HTTPFacilitatorClient` calls:
 * `GET /supported`, `POST /verify`, `POST /settle`, on the loopback at `port` (0: any free one).
 */
export function serveFacilitator(facilitator: x402Facilitator, port = 0): Promise<FacilitatorServer> {
  const server = http.createServer((request, response) => {
    const send: Send = (status, value) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    const route = `${request.method} ${new URL(request.url ?? '/', 'http://facilitator').pathname}`;
    if (route === 'GET /supported') return send(200, facilitator.getSupported());
    if (route === 'POST /verify') return void paymentCall(facilitator, 'verify', request, send);
    if (route === 'POST /settle') return void paymentCall(facilitator, 'settle', request, send);
    send(404, { error: 'GET /supported, POST /verify or POST /settle' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
