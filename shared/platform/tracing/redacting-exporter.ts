import { type Attributes, SpanKind } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

/**
 * Attributes that may hold a job's input or result, an error's message (which can quote either), or the
 * client's address, dropped wherever they come from. BullMQ's telemetry records a job's result, its progress
 * object and its failure message as JSON; an exception event carries the error's message and stack.
 */
const DROPPED = new Set([
  'bullmq.job.result',
  'bullmq.job.progress',
  'bullmq.job.failed.reason',
  'bullmq.job.data',
  'exception.message',
  'exception.stacktrace',
  'url.query',
]);

/** The caller's address on server spans: personal data, and the access log already has what is needed. */
const CLIENT_ADDRESS = new Set([
  'net.peer.ip',
  'net.peer.port',
  'http.client_ip',
  'client.address',
  'client.port',
  'network.peer.address',
  'network.peer.port',
  'net.sock.peer.addr',
  'net.sock.peer.port',
]);

/** Attributes holding a URL or a request target: kept without query, fragment or credentials (client spans: the origin only). */
const URLS = new Set(['http.url', 'http.target', 'url.full', 'url.original']);

/**
 * What a server span may not keep of the request's target at all: its path holds ids (a job's, a consent
 * request's) and whatever text a caller put there. A server span names its route by `http.route` instead.
 */
const REQUEST_TARGET = new Set([...URLS, 'url.path', 'url.query']);

/** What happens to one attribute: dropped, rewritten, or (undefined) kept as it is. */
type Rule = 'drop' | ((value: string) => string) | undefined;

/**
 * A URL or request target without its query string (OAuth's `state`, `code`, `code_challenge`, a receiver's
 * token), its fragment and any `user:password@`.
 */
export function withoutQuery(value: string): string {
  const bare = value.replace(/[?#].*$/s, '');
  return bare.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/**
 * The origin of an absolute URL (`https://hooks.example.com`): what an outgoing request's span keeps, since the
 * path of a webhook receiver's URL may itself be its secret (as some services issue them).
 */
function originOf(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    return withoutQuery(value);
  }
}

/** The rule for one attribute of a span of `kind` (an event's attributes have no kind). */
function ruleFor(key: string, kind: SpanKind | undefined): Rule {
  if (DROPPED.has(key)) return 'drop';
  if (kind === SpanKind.SERVER && (CLIENT_ADDRESS.has(key) || REQUEST_TARGET.has(key))) return 'drop';
  if (!URLS.has(key)) return undefined;
  return kind === SpanKind.CLIENT ? originOf : withoutQuery;
}

/** The attributes of one span or event with the rules above applied; the same object when nothing changes. */
export function redactAttributes(attributes: Attributes, kind?: SpanKind): Attributes {
  let copy: Attributes | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    const rule = ruleFor(key, kind);
    if (rule === undefined) continue;
    const rewritten = rule === 'drop' || typeof value !== 'string' ? undefined : rule(value);
    if (rewritten === value) continue;
    copy ??= { ...attributes };
    if (rewritten === undefined) delete copy[key];
    else copy[key] = rewritten;
  }
  return copy ?? attributes;
}

/** One finished span as it is exported: the same span with its attributes and events' attributes redacted. */
function redacted(span: ReadableSpan): ReadableSpan {
  const attributes = redactAttributes(span.attributes, span.kind);
  let eventsChanged = false;
  const events = span.events.map((event) => {
    if (!event.attributes) return event;
    const eventAttributes = redactAttributes(event.attributes);
    if (eventAttributes === event.attributes) return event;
    eventsChanged = true;
    return { ...event, attributes: eventAttributes };
  });
  if (attributes === span.attributes && !eventsChanged) return span;
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes,
    links: span.links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * The last line of the privacy rule (no subject, token, secret, input or result in a span): whatever an
 * instrumentation library records, spans pass through here before they leave the process. The libraries are
 * configured not to record such values in the first place (see start-tracing.ts); this catches what they
 * record regardless, such as BullMQ's job result and the query strings of OAuth redirects.
 */
export class RedactingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans.map(redacted), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
