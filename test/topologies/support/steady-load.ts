import { newKey } from '../../support/harness';
import type { ApiUnderTest, Reply } from '../../support/processes';

/** Statuses a client may see while a primary is replaced; anything else (another 4xx or 5xx, no answer) is a fault. */
export const ALLOWED_DURING_FAILOVER: ReadonlySet<number> = new Set([200, 201, 202, 429, 503]);

/** How long a client waits after a refused submission before it retries (far below Retry-After's whole seconds). */
const REFUSED_PAUSE_MS = 50;

/** A request that has not answered after this long counts as hung. */
const HUNG_MS = 20_000;

/** Everything a steady load saw. */
export interface LoadOutcome {
  /** Answers by `METHOD status`, e.g. `POST 202`, `GET 503`. */
  readonly answers: Record<string, number>;
  /** Requests without an answer (connection errors, answers the published document does not allow, hangs), by cause. */
  readonly errors: Record<string, number>;
  /** 503 or 429 answers that lacked a numeric Retry-After or a problem+json body. */
  readonly badRefusals: string[];
  /** Job id of every key answered 202. */
  readonly accepted: Map<string, string>;
  /** The statuses each accepted job showed to the load's reads, in order. */
  readonly seen: Map<string, string[]>;
  /** When each request was sent and what it got (0 for no answer). */
  readonly timeline: Array<{ sentAt: number; answeredAt: number; method: string; status: number }>;
}

/** A running load: its outcome so far, a way to ask it to wind down, and the promise of its end. */
export interface SteadyLoad {
  readonly outcome: LoadOutcome;
  /** Asks every client to stop once its pending key (if any) has been accepted. */
  stop(): void;
  readonly finished: Promise<LoadOutcome>;
}

/**
 * `clients` well-behaved clients of one subject, each alternating between the APIs: a paid job under a fresh
 * idempotency key, retried with the same key after any answer other than 202 (as clients must, after a short
 * pause), then a read (the job just accepted, or `/v1/me`). Every answer goes through the checked client (the
 * published document). Asked to stop, a client still finishes its pending key, so that every charge has its accepted
 * job; `deadline` bounds it all.
 */
export function steadyLoad(
  apis: readonly ApiUnderTest[],
  token: string,
  { clients = 4, deadline }: { clients?: number; deadline: number },
): SteadyLoad {
  const outcome: LoadOutcome = { answers: {}, errors: {}, badRefusals: [], accepted: new Map(), seen: new Map(), timeline: [] };
  let stopping = false;
  let turn = 0;

  const send = async (method: 'GET' | 'POST', path: string, options: Parameters<ApiUnderTest['call']>[2]): Promise<Reply | undefined> => {
    const api = apis[turn++ % apis.length];
    const sentAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const hung = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 20 s')), HUNG_MS);
      });
      const reply = await Promise.race([api.call(method, path, options), hung]);
      outcome.timeline.push({ sentAt, answeredAt: Date.now(), method, status: reply.status });
      const label = `${method} ${reply.status}`;
      outcome.answers[label] = (outcome.answers[label] ?? 0) + 1;
      if (
        (reply.status === 503 || reply.status === 429) &&
        (!/^\d+$/.test(reply.headers.get('retry-after') ?? '') ||
          !/^application\/problem\+json/.test(reply.headers.get('content-type') ?? ''))
      ) {
        outcome.badRefusals.push(`${method} ${path} ${reply.status} retry-after=${reply.headers.get('retry-after')}`);
      }
      return reply;
    } catch (error) {
      outcome.timeline.push({ sentAt, answeredAt: Date.now(), method, status: 0 });
      const cause = ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message).slice(0, 200);
      outcome.errors[cause] = (outcome.errors[cause] ?? 0) + 1;
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };

  const client = async (): Promise<void> => {
    let pendingKey: string | undefined;
    let lastJob: string | undefined;
    while (Date.now() < deadline && (!stopping || pendingKey)) {
      pendingKey ??= newKey();
      const created = await send('POST', '/v1/jobs', {
        token,
        body: { input: { prompt: 'through the failover' } },
        headers: { 'idempotency-key': pendingKey },
      });
      if (created?.status === 202) {
        outcome.accepted.set(pendingKey, created.body.id);
        lastJob = created.body.id;
        pendingKey = undefined;
      } else {
        // Pacing, not synchronisation: a refused client pauses briefly instead of spinning on 503s.
        await new Promise((resolve) => setTimeout(resolve, REFUSED_PAUSE_MS));
      }
      const read = await send('GET', lastJob && turn % 2 === 0 ? `/v1/jobs/${lastJob}` : '/v1/me', { token });
      if (read?.status === 200 && typeof read.body?.status === 'string' && read.body.id) {
        outcome.seen.set(read.body.id, [...(outcome.seen.get(read.body.id) ?? []), read.body.status]);
      }
    }
  };

  const finished = Promise.all(Array.from({ length: clients }, client)).then(() => outcome);
  return { outcome, stop: () => (stopping = true), finished };
}

/** When the first answer with one of `statuses` came to a request of `method` sent at or after `since`, if one did. */
export function firstAnswerSince(outcome: LoadOutcome, since: number, method: string, statuses: readonly number[]): number | undefined {
  const times = outcome.timeline
    .filter((entry) => entry.sentAt >= since && entry.method === method && statuses.includes(entry.status))
    .map((entry) => entry.answeredAt);
  return times.length > 0 ? Math.min(...times) : undefined;
}
