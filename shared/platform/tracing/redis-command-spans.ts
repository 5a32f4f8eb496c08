import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Redis, type Command } from 'ioredis';

let patched = false;

/**
 * A client span for each Redis command sent inside a trace, named after the command. Its statement is the
 * command's name only: keys hold subjects and idempotency keys, and values hold job inputs.
 *
 * By hand, with the OpenTelemetry API, because `@opentelemetry/instrumentation-ioredis` (0.71, which claims
 * ioredis below 7) does not patch ioredis 6: it wraps `module.prototype.sendCommand`, and ioredis 6's main
 * module is a namespace of named exports (`Redis`, `Cluster`, …) without a prototype, so the instrumentation's
 * hook throws and leaves every command untraced. Wrapping `Redis.prototype.sendCommand` covers every
 * connection: ours, BullMQ's duplicates, and a cluster's or sentinel's node connections.
 *
 * Commands outside any recorded span (BullMQ's polling, a request that was sampled out) record nothing and
 * cost one check.
 */
export function traceRedisCommands(): void {
  if (patched) return;
  patched = true;
  const tracer = trace.getTracer('connector-redis');
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, command: Command, stream?: Parameters<typeof send>[1]) {
    // Inside a trace that is not being recorded (sampled out), a child would not be recorded either: skip it.
    if (!trace.getSpan(context.active())?.isRecording()) return send.call(this, command, stream);
    const name = command.name.toLowerCase();
    const span = tracer.startSpan(name, {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'redis',
        'db.system.name': 'redis',
        'db.operation.name': name,
        'db.statement': name,
        'server.address': this.options.host,
        'server.port': this.options.port,
      },
    });
    command.promise.then(
      () => span.end(),
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
        span.end();
      },
    );
    return send.call(this, command, stream);
  };
}
