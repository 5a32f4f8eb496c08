import { expect } from 'chai';
import { createMemoryBackend } from '../../../../shared/adapters/memory-backend';
import { StoredJobIdKey } from '../../../../shared/domain/jobs/job-id-key';
import type { EventQueue } from '../../../../shared/domain/webhooks/event-queue';
import { deriveKeys } from '../../../../shared/platform/secrets/derived-keys';
import { waitFor } from '../../../testkit/wait-for';

const CONFIG = { idempotencyTtlSeconds: 60, workerConcurrency: 1, jobAttempts: 1, jobBackoffMs: 0 };
const SUBMISSION = { subject: 's', operation: 'op', input: {}, cost: 0, idempotencyKey: 'k' };

describe('the embedded backend (createMemoryBackend)', () => {
  it('its job service runs a submitted job in this process, and its event is recorded on the backend’s event queue', async () => {
    const recorded: string[] = [];
    const events = (): EventQueue => ({
      enabled: true,
      enqueue: async (event) => void recorded.push(event.type),
      close: async () => {},
    });
    const backend = createMemoryBackend({ config: CONFIG, processors: new Map([['op', async () => ({ ok: true })]]), events });
    const jobs = backend.jobService({ jobIdKey: new StoredJobIdKey(backend.jobIdKeys, deriveKeys('s'.repeat(32)).jobIdKey) });
    const { job } = await jobs.submit(SUBMISSION);
    const done = await waitFor(async () => {
      const stored = await backend.queue.get(job.id);
      return stored?.status === 'succeeded' ? stored : undefined;
    });
    expect(done.result).to.deep.equal({ ok: true });
    expect(recorded).to.deep.equal(['job.succeeded']);
    await backend.close(1000);
  });

  it('without an event factory: no events, and it is ready at once', async () => {
    const backend = createMemoryBackend({ config: CONFIG, processors: new Map() });
    expect(backend.kind).to.equal('memory');
    expect(backend.events.enabled).to.equal(false);
    expect(await backend.ready()).to.equal(true);
    await backend.close(0);
  });
});
