import { expect } from 'chai';
import { waitFor } from '../testkit/wait-for';
import { type ConnectorUnderTest, newKey, newSubject } from './harness';
import { measurement } from './measurement';
import { moneyClient, placeholderOperation, type Statement } from './money-flows';

/** What the slow-Redis scenario drives: an API behind delaying proxies, a worker started later, the sweep's index. */
export interface SlowRedisStand {
  /** The API (HOLD_ORPHAN_SECONDS short, prepaid, a short command timeout), reaching Redis only through the proxies, with no worker. */
  api: ConnectorUnderTest;
  /** Holds back every Redis reply the API receives by `ms` (0: none). */
  delay(ms: number): void;
  /** How many Redis replies are held back now, all proxies together. */
  heldReplies(): number;
  /** Starts a worker on the same Redis (not through the proxies) that runs the queued jobs. */
  startWorker(): Promise<ConnectorUnderTest>;
  /** How many holds the orphan sweep's index still lists (0: the sweep has seen every hold). */
  indexedHolds(): Promise<number>;
  /** `HOLD_ORPHAN_SECONDS` the API was started with. */
  orphanSeconds: number;
}

/** The scenario's sizes: subjects, submits per subject, how many each one's grant funds. */
const SUBJECTS = 4;
const SUBMITS_PER_SUBJECT = 40;
const FUNDED_PER_SUBJECT = 36;
const IN_FLIGHT = 32;
/** At most this many passes of `SUBMITS_PER_SUBJECT` submits each, until the bursts have made a 503. */
const MAX_PASSES = 5;
/**
 * How long a reply is held back while the delay is on (past the 250 ms command timeout), and how long the
 * delay stays on, then off: short bursts, so that a submit's claim or its enqueue, rather than always its
 * first command, is the one answered late.
 */
const REPLY_DELAY_MS = 300;
const DELAY_ON_MS = [5, 30] as const;
const DELAY_OFF_MS = [100, 300] as const;

/** A whole number of ms between the bounds: the bursts' shapes vary, so over a run every step of a submit is hit. */
function between([low, high]: readonly [number, number]): number {
  return low + Math.floor(Math.random() * (high - low));
}

interface Person {
  subject: string;
  token: string;
}

interface Submit {
  person: Person;
  key: string;
  status: number;
  jobId?: string;
  /** The answer's body, for a failure's message. */
  text?: string;
}

/** A job as `GET /v1/jobs` lists it (the members the proof reads). */
interface ListedJob {
  id: string;
  status: string;
  created_at: string;
}

const FINAL = new Set(['succeeded', 'failed', 'canceled']);

/**
 * A read or a setup step, again until it answers: with a short command timeout on a shared machine, a reply
 * can miss it without any delay of the proxy's, and the step is safe to repeat (a read, a link, a grant).
 */
function answered<T>(step: () => Promise<T>): Promise<NonNullable<T>> {
  return waitFor(step, { timeoutMs: 15_000, intervalMs: 50, what: 'the API to answer' });
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function bounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

/** Every job of a person, through the API, paging. */
function jobsOf(api: ConnectorUnderTest, token: string): Promise<ListedJob[]> {
  return answered(() => jobPages(api, token));
}

async function jobPages(api: ConnectorUnderTest, token: string): Promise<ListedJob[]> {
  const jobs: ListedJob[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api.call('GET', `/v1/jobs?${query}`, { token });
    expect(res.status, res.text).to.equal(200);
    jobs.push(...(res.body.items as ListedJob[]));
    cursor = res.body.next_cursor;
  } while (cursor);
  return jobs;
}

/** Credits each kind of entry moved on an account, by kind. */
function movedBy(statement: Statement): (kind: string) => number {
  return (kind) => statement.entries.filter((entry) => entry.kind === kind).reduce((sum, entry) => sum + entry.credits, 0);
}

/** Per job id, the credits still held by its holds: holds − captures − releases of entries naming it. */
function heldByJob(statement: Statement): Map<string, number> {
  const sign: Record<string, number> = { hold: 1, capture: -1, release: -1 };
  const held = new Map<string, number>();
  for (const entry of statement.entries) {
    if (!entry.job_id || !(entry.kind in sign)) continue;
    held.set(entry.job_id, (held.get(entry.job_id) ?? 0) + sign[entry.kind] * entry.credits);
  }
  return held;
}

/**
 * The ledger against the jobs, on every account: `held` is the price of each non-final job and nothing else
 * (no job without its hold, no hold without its job), and grants − captures − expired − voided = balance +
 * held, per account and summed, as the summary says too.
 */
async function expectLedgerMatchesJobs(api: ConnectorUnderTest, people: readonly Person[], price: number): Promise<Statement[]> {
  const money = moneyClient(api);
  const statements: Statement[] = [];
  for (const person of people) {
    const [statement, jobs] = [await answered(() => money.statement(person.subject)), await jobsOf(api, person.token)];
    const open = jobs.filter((job) => !FINAL.has(job.status));
    expect(statement.held, `${person.subject}: held is the price of its ${open.length} non-final jobs`).to.equal(open.length * price);
    const heldFor = heldByJob(statement);
    for (const job of open) expect(heldFor.get(job.id), `job ${job.id} (${job.status}) holds its price`).to.equal(price);
    const openIds = new Set(open.map((job) => job.id));
    for (const [jobId, credits] of heldFor)
      if (!openIds.has(jobId)) expect(credits, `no credit held for ${jobId}, not a non-final job`).to.equal(0);
    const moved = movedBy(statement);
    expect(
      moved('grant') + moved('adjustment') - moved('capture') - moved('expire') - moved('void'),
      `${person.subject} reconciles`,
    ).to.equal(statement.balance + statement.held);
    statements.push(statement);
  }
  const res = await answered(async () => {
    const reply = await api.call('GET', '/v1/link/credits/summary', { headers: { 'x-link-secret': api.config.linkSecret } });
    return reply.status === 200 ? reply : undefined;
  });
  const summary = res.body;
  const total = (pick: (statement: Statement) => number) => statements.reduce((sum, statement) => sum + pick(statement), 0);
  expect(summary.reconciles, JSON.stringify(summary)).to.equal(true);
  expect(summary.granted + summary.adjusted - summary.captured - summary.expired - summary.voided).to.equal(summary.balance + summary.held);
  expect({ balance: summary.balance, held: summary.held, captured: summary.captured }).to.deep.equal({
    balance: total((s) => s.balance),
    held: total((s) => s.held),
    captured: total((s) => movedBy(s)('capture')),
  });
  return statements;
}

/** Submits while the proxies hold replies back in bursts: some answer 503 after their claim ran. */
async function submitWhileSlow(stand: SlowRedisStand, people: readonly Person[]): Promise<Submit[]> {
  const submits: Submit[] = [];
  const { operation, input } = placeholderOperation();
  const money = moneyClient(stand.api);
  const plan = () => people.flatMap((person) => Array.from({ length: SUBMITS_PER_SUBJECT }, () => ({ person, key: newKey() })));
  // The delay goes on and off while submits are in flight, so that some claims answer late (a hold, no job)
  // and some enqueues do (a job, answered 503); which ones varies, the invariants do not.
  let timer: NodeJS.Timeout | undefined;
  const burst = () => {
    stand.delay(REPLY_DELAY_MS);
    timer = setTimeout(() => {
      stand.delay(0);
      timer = setTimeout(burst, between(DELAY_OFF_MS));
    }, between(DELAY_ON_MS));
  };
  burst();
  try {
    // A fast machine can answer a whole pass between two bursts: another pass of fresh keys follows until a
    // burst has turned some submit into a 503 (the later passes mostly meet spent balances: 402s, still claims).
    for (let pass = 0; pass < MAX_PASSES && !submits.some((submit) => submit.status === 503); pass++) {
      const answers = await bounded(plan(), IN_FLIGHT, async ({ person, key }) => {
        const res = await money.submit(person.token, operation, input, key);
        return { person, key, status: res.status, jobId: res.status === 202 ? res.body.id : undefined, text: res.text };
      });
      submits.push(...answers);
    }
  } finally {
    clearTimeout(timer);
    stand.delay(0);
  }
  // Replies held back when the delay went off still go out in order, ahead of any later one: Redis is fast
  // again only once they have.
  await waitFor(() => stand.heldReplies() === 0, { what: 'the held replies to go out' });
  return submits;
}

/** Resends a key (again on a 503, as a retrying client does): a replay (the same job), a fresh submit (a new hold), or a 402. */
async function resend(api: ConnectorUnderTest, submit: Submit): Promise<Submit> {
  const { operation, input } = placeholderOperation();
  const res = await answered(async () => {
    const reply = await moneyClient(api).submit(submit.person.token, operation, input, submit.key);
    return reply.status === 503 ? undefined : reply;
  });
  expect([200, 202, 402], res.text).to.include(res.status);
  return { ...submit, status: res.status, jobId: res.status === 402 ? undefined : res.body.id };
}

/**
 * A retry after the sweep of a key whose hold was released as orphaned is a fresh submit: its job (if it
 * answered one) was held again after that release. Answers how many retries were such fresh submits.
 */
function expectFreshAfterOrphan(statements: readonly Statement[], retries: readonly Submit[], price: number): number {
  const entries = statements.flatMap((statement) => statement.entries as Array<Statement['entries'][number] & { reason?: string }>);
  let fresh = 0;
  for (const retry of retries) {
    const ofJob = entries.filter((entry) => entry.job_id !== undefined && entry.job_id === retry.jobId);
    const released = ofJob.findIndex((entry) => entry.kind === 'release' && entry.reason === 'orphaned');
    if (released < 0) continue;
    // Entries are newest first: a hold newer than the orphaned release is the fresh submit's.
    expect(
      ofJob.slice(0, released).filter((entry) => entry.kind === 'hold' && entry.credits === price),
      `the retry of ${retry.key} after the sweep holds its price again`,
    ).to.have.length(1);
    fresh += 1;
  }
  return fresh;
}

/** Waits until the deadline of every hold made so far has passed and the sweep has seen each of them. */
async function sweptAfter(stand: SlowRedisStand, lastClaimAt: number): Promise<void> {
  await waitFor(async () => Date.now() > lastClaimAt + stand.orphanSeconds * 1000 && (await stand.indexedHolds()) === 0, {
    timeoutMs: 20_000,
    intervalMs: 100,
    what: 'the sweep to have seen every hold past its deadline',
  });
}

/**
 * The proof of issue 45 item 1 on a slow Redis: submits answered 503 after their claim ran leave holds that
 * the sweep releases once their deadline passed, unless their job was enqueued; a retry of a 503'd key finds
 * the job that was enqueued, and one after the sweep is a fresh submit (a new hold or a 402); after the
 * deadline the ledger matches the jobs on every account, before and after the worker ran them.
 */
export async function slowRedisHoldsProof(stand: SlowRedisStand, label: string): Promise<void> {
  const { api } = stand;
  const money = moneyClient(api);
  const { price } = placeholderOperation();
  const people: Person[] = [];
  for (let i = 0; i < SUBJECTS; i++) {
    const subject = newSubject();
    people.push({ subject, token: await answered(() => api.link(subject)) });
    await answered(() => money.grant(subject, FUNDED_PER_SUBJECT * price).then(() => true));
  }
  const orphanedBefore = await money.counter('connector_credits_orphaned_total', {});

  const submits = await submitWhileSlow(stand, people);
  const unavailable = submits.filter((submit) => submit.status === 503);
  expect(unavailable.length, 'the slow Redis turned some submits into 503s').to.be.greaterThan(0);
  for (const submit of submits) expect([202, 402, 503], `a submit answered ${submit.status}: ${submit.text}`).to.include(submit.status);

  // What exists now that Redis answers again: the jobs the 503'd submits enqueued are among these.
  const before = new Map<string, ListedJob>();
  for (const person of people) for (const job of await jobsOf(api, person.token)) before.set(job.id, job);
  const answeredIds = new Set(submits.flatMap((submit) => (submit.jobId ? [submit.jobId] : [])));
  const ranAfter503 = [...before.keys()].filter((id) => !answeredIds.has(id)).length;

  // Half of the 503'd keys are retried at once (some before the sweep, some after it, as the timing falls),
  // a quarter after the sweep; the rest never are, as some clients never retry.
  const soon = unavailable.filter((_, index) => index % 4 < 2);
  const late = unavailable.filter((_, index) => index % 4 === 2);
  const retriedSoon = await bounded(soon, 8, (submit) => resend(api, submit));
  await sweptAfter(stand, Date.now());
  const retriedLate = await bounded(late, 8, (submit) => resend(api, submit));
  await sweptAfter(stand, Date.now());

  for (const retry of [...retriedSoon, ...retriedLate]) {
    if (!retry.jobId) continue;
    const job = await answered(() => money.job(retry.person.token, retry.jobId!));
    const enqueued = before.get(retry.jobId);
    // The job a 503'd submit did enqueue is the one its retry finds, not a second one.
    if (enqueued) expect(job.created_at, `the retry of ${retry.key} finds the job its first submit enqueued`).to.equal(enqueued.created_at);
  }
  const statements = await expectLedgerMatchesJobs(api, people, price);
  const freshAfterSweep = expectFreshAfterOrphan(statements, retriedLate, price);
  const orphaned = (await money.counter('connector_credits_orphaned_total', {})) - orphanedBefore;
  const orphanReleases = statements
    .flatMap((statement) => statement.entries as Array<Statement['entries'][number] & { reason?: string }>)
    .filter((entry) => entry.kind === 'release' && entry.reason === 'orphaned').length;
  // A release that ran while its reply came too late (a sweep in a burst) is in the ledger, not in the counter.
  expect(orphaned, 'the orphan counter counts no more than the orphaned releases').to.be.at.most(orphanReleases * price);

  // The worker runs every job: each is captured once, and nothing stays held.
  const worker = await stand.startWorker();
  try {
    for (const person of people) {
      await waitFor(async () => (await jobsOf(api, person.token)).every((job) => FINAL.has(job.status)), {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: `every job of ${person.subject} to end`,
      });
    }
    const settled = await expectLedgerMatchesJobs(api, people, price);
    for (const [index, person] of people.entries()) {
      const jobs = await jobsOf(api, person.token);
      const captures = settled[index].entries.filter((entry) => entry.kind === 'capture');
      expect(new Set(captures.map((entry) => entry.job_id)), 'one capture per job that ran, for no other').to.deep.equal(
        new Set(jobs.filter((job) => job.status === 'succeeded').map((job) => job.id)),
      );
      expect(captures.length).to.equal(new Set(captures.map((entry) => entry.job_id)).size);
    }
  } finally {
    await worker.close();
  }
  const count = (of: readonly Submit[], status: number) => of.filter((submit) => submit.status === status).length;
  measurement(
    `${label}: ${submits.length} submits, ${count(submits, 202)} × 202, ${count(submits, 402)} × 402, ${unavailable.length} × 503 ` +
      `(${ranAfter503} of them enqueued their job); ${orphanReleases} holds released as orphaned; retried at once ` +
      `${retriedSoon.length} (${count(retriedSoon, 202) + count(retriedSoon, 200)} answered a job, ${count(retriedSoon, 402)} × 402), ` +
      `after the sweep ${retriedLate.length} (${count(retriedLate, 202) + count(retriedLate, 200)} a job, ${freshAfterSweep} of them held afresh ` +
      `after an orphaned release, ${count(retriedLate, 402)} × 402)`,
  );
}
