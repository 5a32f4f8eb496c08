import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Command, Redis } from 'ioredis';

let patched = false;

/**
 * A client span for each Redis command sent inside a trace, named after the command. Its statement is the
 * command's name only: keys hold subjects and idempotency keys, and values hold job inputs.
 * Wrapping `Redis.prototype.sendCommand` covers every connection: ours, BullMQ's duplicates, and a cluster's
 * or sentinel's node connections. Why by hand: docs/decisions/redis-command-spans-by-hand.md.
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
