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

/** A step of a verify or settle call: received, done (`ok`: valid, or settled), answered. */
export interface FacilitatorEvent {
  readonly call: 'verify' | 'settle';
  readonly phase: 'received' | 'done' | 'answered';
  readonly ok?: boolean;
}

/** How the facilitator is served. */
export interface FacilitatorServerOptions {
  /** 0 (any free port) unless said. */
  readonly port?: number;
  /** Told of each step of each call (the facilitator process prints them for tests to wait on). */
  readonly onEvent?: (event: FacilitatorEvent) => void;
}

/** Which call a facilitator settles or verifies and then never answers: none, or `settle`. */
export type Stall = 'settle' | undefined;

/**
 * Whether the facilitator stalls, and the answers it keeps back meanwhile: stalling on `settle`, the money moves
 * and the caller never hears it, as when the facilitator dies between the two.
 */
class Stalling {
  call: Stall;
  private readonly kept = new Set<http.ServerResponse>();

  keep(response: http.ServerResponse): void {
    this.kept.add(response);
    response.once('close', () => this.kept.delete(response));
  }

  /** Stalls on `call`; `undefined` answers again, and each answer kept back is lost for good (its connection cut). */
  set(call: Stall): void {
    this.call = call;
    if (call !== undefined) return;
    for (const response of this.kept) response.destroy();
    this.kept.clear();
  }
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

/** One verify or settle call, with what it needs to run and to report. */
interface PaymentCall {
  readonly facilitator: x402Facilitator;
  readonly call: FacilitatorEvent['call'];
  readonly options: FacilitatorServerOptions;
  readonly stalling: Stalling;
}

/** The facilitator's answer to `body`, and whether it was a yes. */
async function runCall({ facilitator, call }: PaymentCall, body: FacilitatorRequest) {
  if (call === 'verify') {
    const verified = await facilitator.verify(body.paymentPayload, body.paymentRequirements);
    return { answer: verified, ok: verified.isValid };
  }
  const settled = await facilitator.settle(body.paymentPayload, body.paymentRequirements);
  return { answer: settled, ok: settled.success };
}

/**
 * POST /verify or /settle: the facilitator's answer with 200 whether the payment holds or not (the answer says
 * which, as the x402 reference facilitator does); 400 for a body that is not a facilitator request; 500 with
 * the error's message when the facilitator throws (the chain unreachable).
 */
async function paymentCall(call: PaymentCall, request: http.IncomingMessage, response: http.ServerResponse, send: Send) {
  const report = (phase: FacilitatorEvent['phase'], ok?: boolean) => call.options.onEvent?.({ call: call.call, phase, ok });
  let body: FacilitatorRequest;
  try {
    body = await readRequest(request);
  } catch (error) {
    return send(400, { error: (error as Error).message });
  }
  report('received');
  try {
    const { answer, ok } = await runCall(call, body);
    report('done', ok);
    if (call.stalling.call === call.call) return call.stalling.keep(response);
    send(200, answer);
  } catch (error) {
    report('done', false);
    send(500, { error: (error as Error).message });
  }
  report('answered');
}

/** A listening facilitator, how to make it stall, and how to stop it. */
export interface FacilitatorServer {
  readonly url: string;
  /** Stalls on `call` from now on; `undefined` answers again, cutting the connections of the answers kept back. */
  stall(call: Stall): void;
  close(): Promise<void>;
}

/**
 * Serves `facilitator` with the x402 facilitator API that `@x402/core`'s `HTTPFacilitatorClient` calls:
 * `GET /supported`, `POST /verify`, `POST /settle`, on the loopback.
 */
export function serveFacilitator(facilitator: x402Facilitator, options: FacilitatorServerOptions = {}): Promise<FacilitatorServer> {
  const stalling = new Stalling();
  const server = http.createServer((request, response) => {
    const send: Send = (status, value) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    const route = `${request.method} ${new URL(request.url ?? '/', 'http://facilitator').pathname}`;
    if (route === 'GET /supported') return send(200, facilitator.getSupported());
    if (route === 'POST /verify') return void paymentCall({ facilitator, call: 'verify', options, stalling }, request, response, send);
    if (route === 'POST /settle') return void paymentCall({ facilitator, call: 'settle', options, stalling }, request, response, send);
    send(404, { error: 'GET /supported, POST /verify or POST /settle' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        stall: (call) => stalling.set(call),
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
