import { randomUUID } from 'node:crypto';
import http from 'node:http';

/** The requests of the mix: reads, a fresh paid job, a retry of an accepted key, and MCP tool calls. */
export type RequestKind = 'me' | 'readJob' | 'freshJob' | 'retryJob' | 'mcpGetMe' | 'mcpGetJob';

/**
 * One cycle of the mix, 20 requests: 1 fresh job and 1 retry in 20, the rest reads and MCP calls. A job
 * read, a retry and `get_job` need an accepted job; before the first one they send `GET /v1/me` instead.
 */
export const MIX: readonly RequestKind[] = [
  'me',
  'readJob',
  'mcpGetMe',
  'me',
  'freshJob',
  'readJob',
  'me',
  'mcpGetJob',
  'readJob',
  'me',
  'retryJob',
  'mcpGetMe',
  'me',
  'readJob',
  'me',
  'mcpGetJob',
  'readJob',
  'me',
  'mcpGetMe',
  'readJob',
];

/** An answer as the client saw it, for an outside check (the tests check each against the OpenAPI document). */
export interface SeenResponse {
  kind: RequestKind;
  method: string;
  path: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface TrafficOptions {
  /** `http://127.0.0.1:<port>`: HAProxy or an API. */
  baseUrl: string;
  /** Bearer tokens, one per subject; client `i` acts for subject `i % tokens.length`. */
  tokens: readonly string[];
  /** Concurrent clients, each on its own keep-alive socket. */
  clients: number;
  /** Requests per second over all clients (each client is paced to its share; a slow answer delays only it). */
  ratePerSecond: number;
  /** Bounds: no request is sent past either. */
  maxRequests: number;
  maxMs: number;
  onResponse?: (response: SeenResponse) => void;
}

/** Everything the traffic saw, counted. */
export interface TrafficOutcome {
  sent: number;
  /** Answers by status, and by request kind and status. */
  statuses: Record<string, number>;
  byKind: Record<string, Record<string, number>>;
  /** Requests that got no answer, by error code (ECONNRESET, ECONNREFUSED, …). */
  errors: Record<string, number>;
  /** 2xx answers that said the wrong thing: a retry with another job's id, a job read of another job, an MCP error. */
  wrongAnswers: string[];
  /** Every job answered 202 to a fresh key, by id: its subject (index into `tokens`) and key. */
  accepted: Map<string, { subject: number; key: string }>;
  /** Answer times: when each answer ended (ms since the start) and how long it took (ms), in order of ending. */
  latency: { at: number[]; ms: number[] };
}

/** A running traffic: its live outcome and a way to wait for (or ask for) its end. */
export interface Traffic {
  readonly outcome: TrafficOutcome;
  readonly finished: Promise<TrafficOutcome>;
  stop(): void;
}

const MCP_VERSION = '2026-07-28';

/** A stateless MCP `tools/call` (protocol 2026-07-28: no session, the standard headers). */
function mcpCall(token: string, tool: string, args: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MCP_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'connector-traffic', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

interface Planned {
  kind: RequestKind;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The job this request is about, when it is about one. */
  jobId?: string;
  key?: string;
}

/**
 * Sends the {@link MIX} through `baseUrl` with keep-alive clients at a steady rate, bounded in count and time,
 * and counts every outcome. Fresh jobs carry new idempotency keys; retries resend an accepted key with the same
 * body and must get the same job; job reads and `get_job` ask for an accepted job of the same subject.
 */
export function mixedTraffic(options: TrafficOptions): Traffic {
  const target = new URL(options.baseUrl);
  if (target.hostname !== '127.0.0.1') throw new Error('the traffic only targets 127.0.0.1');
  const run = new TrafficRun(options, target);
  const finished = Promise.all(Array.from({ length: options.clients }, (_, i) => run.client(i))).then(() => run.outcome);
  return {
    outcome: run.outcome,
    finished,
    stop: () => {
      run.stopped = true;
    },
  };
}

type KnownJob = { id: string; key: string };

/** One traffic's state: its outcome so far, the accepted jobs per subject, its pace and bounds. */
class TrafficRun {
  readonly outcome: TrafficOutcome = {
    sent: 0,
    statuses: {},
    byKind: {},
    errors: {},
    wrongAnswers: [],
    accepted: new Map(),
    latency: { at: [], ms: [] },
  };
  stopped = false;
  private readonly run = randomUUID().slice(0, 8);
  /** Accepted jobs per subject, for reads and retries. */
  private readonly jobsOf: KnownJob[][];
  private readonly start = performance.now();
  private readonly deadline: number;
  private readonly intervalMs: number;
  private keys = 0;

  constructor(
    private readonly options: TrafficOptions,
    private readonly target: URL,
  ) {
    this.jobsOf = options.tokens.map(() => []);
    this.deadline = this.start + options.maxMs;
    this.intervalMs = (1000 * options.clients) / options.ratePerSecond;
  }

  /** One keep-alive client, paced to its share of the rate, until the traffic is stopped or a bound is reached. */
  async client(index: number): Promise<void> {
    const { options, intervalMs } = this;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const subject = index % options.tokens.length;
    // Clients start spread over one interval and walk the mix from different places.
    let due = this.start + (index * intervalMs) / options.clients;
    let step = index * 7;
    while (this.mayContinue()) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!this.mayContinue() || performance.now() >= this.deadline) break;
      await this.once(agent, subject, MIX[step++ % MIX.length]);
      due += intervalMs;
    }
    agent.destroy();
  }

  private mayContinue(): boolean {
    return !this.stopped && this.outcome.sent < this.options.maxRequests;
  }

  private once(agent: http.Agent, subject: number, kind: RequestKind): Promise<void> {
    return new Promise((resolve) => {
      const planned = this.plan(kind, subject);
      const sentAt = performance.now();
      this.outcome.sent += 1;
      const fail = (error: NodeJS.ErrnoException) => {
        count(this.outcome.errors, error.code ?? error.message);
        resolve();
      };
      const { hostname: host, port } = this.target;
      const req = http.request({ host, port, agent, method: planned.method, path: planned.path, headers: planned.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => {
          this.answered(planned, subject, sentAt, res, Buffer.concat(chunks).toString('utf8'));
          resolve();
        });
        res.once('error', (error: NodeJS.ErrnoException) => fail(error));
      });
      req.once('error', fail);
      req.end(planned.body);
    });
  }

  /** Counts an answer, judges it, and hands it to `onResponse`. */
  private answered(planned: Planned, subject: number, sentAt: number, res: http.IncomingMessage, text: string): void {
    const { outcome } = this;
    const endedAt = performance.now();
    const status = res.statusCode ?? 0;
    count(outcome.statuses, String(status));
    outcome.byKind[planned.kind] ??= {};
    count(outcome.byKind[planned.kind], String(status));
    outcome.latency.at.push(endedAt - this.start);
    outcome.latency.ms.push(endedAt - sentAt);
    this.judge(planned, subject, status, text);
    this.options.onResponse?.({ kind: planned.kind, method: planned.method, path: planned.path, status, headers: res.headers, text });
  }

  /** The request `kind` becomes for `subject`: one needing an accepted job falls back to `GET /v1/me` before there is one. */
  private plan(kind: RequestKind, subject: number): Planned {
    const token = this.options.tokens[subject];
    const jobs = this.jobsOf[subject];
    const known = jobs.length > 0 ? jobs[Math.floor(Math.random() * jobs.length)] : undefined;
    if (kind === 'freshJob') return jobPost(kind, token, `traffic-${this.run}-${++this.keys}`, known?.id);
    if (kind === 'retryJob' && known) return jobPost(kind, token, known.key, known.id);
    if (kind === 'readJob' && known) return { kind, method: 'GET', path: `/v1/jobs/${known.id}`, headers: bearer(token), jobId: known.id };
    if (kind === 'mcpGetMe') return { kind, method: 'POST', path: '/mcp', ...mcpCall(token, 'get_me', {}), jobId: known?.id };
    if (kind === 'mcpGetJob' && known)
      return { kind, method: 'POST', path: '/mcp', ...mcpCall(token, 'get_job', { id: known.id }), jobId: known.id };
    return { kind: 'me', method: 'GET', path: '/v1/me', headers: bearer(token) };
  }

  /** A 2xx answer to a fresh job records the job; any other 2xx answer is checked against what was asked. */
  private judge(planned: Planned, subject: number, status: number, text: string): void {
    if (status < 200 || status >= 300) return;
    const body = parse(text);
    if (planned.kind !== 'freshJob') {
      const why = wrongRead(planned, body, text);
      if (why) this.wrong(planned, why);
    } else if (status !== 202 || typeof body?.id !== 'string') {
      this.wrong(planned, `fresh job answered ${status} without an id`);
    } else {
      this.outcome.accepted.set(body.id, { subject, key: planned.key! });
      this.jobsOf[subject].push({ id: body.id, key: planned.key! });
    }
  }

  private wrong(planned: Planned, why: string): void {
    this.outcome.wrongAnswers.push(`${planned.method} ${planned.path}: ${why}`);
  }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** `POST /v1/jobs` under idempotency key `key` (a retry resends an accepted key with the same body). */
function jobPost(kind: RequestKind, token: string, key: string, jobId: string | undefined): Planned {
  return {
    kind,
    method: 'POST',
    path: '/v1/jobs',
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ input: { prompt: `traffic ${key}` } }),
    key,
    jobId,
  };
}

/** Why a 2xx answer to a retry, a job read or an MCP call is wrong, if it is. */
// biome-ignore lint/suspicious/noExplicitAny: the answer is probed field by field, each read guarded by ?.
function wrongRead(planned: Planned, body: any, text: string): string | undefined {
  if ((planned.kind === 'retryJob' || planned.kind === 'readJob') && body?.id !== planned.jobId)
    return `answered job ${String(body?.id)} for ${planned.jobId}`;
  if (planned.kind.startsWith('mcp') && (body?.error || body?.result?.isError || !body?.result)) return `MCP answer ${text.slice(0, 200)}`;
  return undefined;
}

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

// biome-ignore lint/suspicious/noExplicitAny: the judge probes fields of any answer shape, each read guarded by ?.
function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The count of answers outside 2xx other than 429 (which a client is told to wait on, and may get). */
export function unexpectedStatuses(outcome: TrafficOutcome): number {
  return Object.entries(outcome.statuses).reduce((sum, [status, n]) => sum + (status.startsWith('2') || status === '429' ? 0 : n), 0);
}
