import { expect } from 'chai';
import type { Connection } from '../../../../../shared/domain/connections/connection-store';
import type { JobRecord } from '../../../../../shared/domain/jobs/job';
import { CONNECTION_FACT_WAIT_MS, establish, recheckDelay } from '../../../../../shared/domain/webhooks/event-facts';
import { newEvent } from '../../../../../shared/domain/webhooks/webhook-event';

describe('event facts: establishing what a webhook event announces', () => {
  const job = (status: JobRecord['status']): JobRecord => ({
    id: 'job_1',
    subject: 's@example.com',
    operation: 'createJob',
    status,
    input: { prompt: 'p' },
    cost: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    attempts: 1,
    progress: null,
    partial: null,
    cancel_requested_at: null,
    refunded_credits: 0,
  });
  const connection: Connection = {
    id: 'conn_1',
    subject: 's@example.com',
    issuedAt: 1_700_000_000,
    expiresAt: 1_800_000_000,
    revoked: false,
  };
  const sources = (j?: JobRecord, c?: Connection) => ({ jobs: { get: async () => j }, connections: { get: async () => c } });

  it('a job event is pending while the job runs, true once it ended with that outcome, never if it ended otherwise or is gone', async () => {
    const succeeded = newEvent('job.succeeded', 'job_1');
    expect(await establish(succeeded, sources(job('running')))).to.deep.equal({ kind: 'pending' });
    expect(await establish(succeeded, sources(job('queued')))).to.deep.equal({ kind: 'pending' });
    const { subject, ...shown } = job('succeeded');
    expect(await establish(succeeded, sources(job('succeeded')))).to.deep.equal({ kind: 'true', data: { ...shown, subject } });
    expect(await establish(succeeded, sources(job('failed')))).to.deep.equal({ kind: 'never' });
    expect(await establish(succeeded, sources())).to.deep.equal({ kind: 'never' });
  });

  it('a connection event waits a few minutes for its write, then gives up; a revoked event for a vanished connection never comes true', async () => {
    const now = Date.now();
    const created = newEvent('connection.created', 'conn_1', new Date(now));
    expect(await establish(created, sources(undefined, connection), now)).to.deep.include({ kind: 'true' });
    expect(await establish(created, sources(), now + 1000)).to.deep.equal({ kind: 'pending' });
    expect(await establish(created, sources(), now + CONNECTION_FACT_WAIT_MS)).to.deep.equal({ kind: 'never' });
    const revoked = newEvent('connection.revoked', 'conn_1', new Date(now));
    expect(await establish(revoked, sources(undefined, connection), now + 1000)).to.deep.equal({ kind: 'pending' });
    const fact = await establish(revoked, sources(undefined, { ...connection, revoked: true }), now);
    expect(fact).to.deep.equal({
      kind: 'true',
      data: {
        connection_id: 'conn_1',
        subject: 's@example.com',
        kind: 'link',
        client: null,
        created_at: new Date(1_700_000_000_000).toISOString(),
        last_used_at: null,
        expires_at: new Date(1_800_000_000_000).toISOString(),
        revoked: true,
      },
    });
    expect(await establish(revoked, sources(), now)).to.deep.equal({ kind: 'never' });
  });

  it('a pending event is looked at again after a quarter of its age, between 200 ms and 30 s', () => {
    const now = Date.now();
    const at = (ageMs: number) => recheckDelay(newEvent('job.succeeded', 'job_1', new Date(now - ageMs)), now);
    expect([at(0), at(4000), at(3_600_000)]).to.deep.equal([200, 1000, 30_000]);
  });
});
