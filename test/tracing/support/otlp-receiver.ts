import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import protobuf from 'protobufjs';
import { waitFor } from '../../testkit/wait-for';

/** An attribute value as the receiver normalises it: strings, numbers (64-bit ones as strings), booleans, lists. */
export type AttributeValue = string | number | boolean | AttributeValue[] | Record<string, unknown> | undefined;

/** One exported span, normalised from either OTLP encoding. */
export interface ReceivedSpan {
  service: string;
  resource: Record<string, AttributeValue>;
  scope: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
}

/** OTLP span kinds. */
export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

const ExportRequest = protobuf.loadSync(path.join(__dirname, 'otlp-trace.proto')).lookupType('otlp.ExportTraceServiceRequest');

type Raw = Record<string, any>;

const hex = (value: unknown): string =>
  typeof value === 'string' ? value.toLowerCase() : value instanceof Uint8Array ? Buffer.from(value).toString('hex') : '';

/** One AnyValue, from the JSON mapping (camelCase members) or protobufjs's decoded message (the same names). */
function anyValue(value: Raw | undefined): AttributeValue {
  if (!value) return undefined;
  if (value.stringValue !== undefined && value.stringValue !== null) return String(value.stringValue);
  if (value.boolValue !== undefined && value.boolValue !== null) return Boolean(value.boolValue);
  if (value.intValue !== undefined && value.intValue !== null) return String(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return Number(value.doubleValue);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map((v: Raw) => anyValue(v));
  if (value.kvlistValue) return attributes(value.kvlistValue.values);
  if (value.bytesValue) return hex(value.bytesValue);
  return undefined;
}

function attributes(list: Raw[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

function spansOf(request: Raw): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        spans.push({
          service: String(resource['service.name']),
          resource,
          scope: ss.scope?.name ?? '',
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: Number(span.kind ?? 0),
          attributes: attributes(span.attributes),
          events: (span.events ?? []).map((e: Raw) => ({ name: e.name, attributes: attributes(e.attributes) })),
        });
      }
    }
  }
  return spans;
}

/**
 * An OTLP/HTTP trace receiver inside the test process, as a collector would be: `POST /v1/traces` in
 * `http/protobuf` (decoded with protobufjs from the OTLP message definitions) or `http/json`. It keeps every
 * span and counts the requests of each encoding.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests = { protobuf: 0, json: 0, other: 0 };

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = http.createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporters add `/v1/traces`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every request received, whatever its encoding. */
  get requestCount(): number {
    return this.requests.protobuf + this.requests.json + this.requests.other;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** Waits until `find` returns something from the spans received so far. */
  waitFor<T>(find: (spans: ReceivedSpan[]) => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
    return waitFor(() => find(this.spans), { what, timeoutMs });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        this.requests.other++;
        res.statusCode = 404;
        res.end();
        return;
      }
      if (type.startsWith('application/x-protobuf')) {
        this.requests.protobuf++;
        // Only the fields that were sent (a decoded message has every default), 64-bit integers as strings.
        const decoded = ExportRequest.toObject(ExportRequest.decode(body), { longs: String, defaults: false });
        this.spans.push(...spansOf(decoded));
        res.setHeader('content-type', 'application/x-protobuf');
        res.end();
        return;
      }
      if (type.startsWith('application/json')) {
        this.requests.json++;
        this.spans.push(...spansOf(JSON.parse(body.toString('utf8'))));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
        return;
      }
      this.requests.other++;
      res.statusCode = 415;
      res.end();
    });
  }
}
