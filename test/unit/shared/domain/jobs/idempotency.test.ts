import { expect } from 'chai';
import fc from 'fast-check';
import { MemoryJobIdKeyStore } from '../../../../../shared/adapters/memory/memory-job-id-key-store';
import { MemoryJobQueue } from '../../../../../shared/adapters/memory/memory-job-queue';
import { MemoryLedgerStore } from '../../../../../shared/adapters/memory/memory-ledger-store';
import { fingerprint } from '../../../../../shared/domain/jobs/idempotency';
import { StoredJobIdKey } from '../../../../../shared/domain/jobs/job-id-key';
import { JobLifecycle } from '../../../../../shared/domain/jobs/job-lifecycle';
import { JobService } from '../../../../../shared/domain/jobs/job-service';
import { deriveKeys } from '../../../../../shared/platform/secrets/derived-keys';

describe('payload fingerprints', () => {
  it('different prompts, or the same prompt for another operation, give different fingerprints', () => {
    expect(fingerprint('createJob', { prompt: 'a' })).to.not.equal(fingerprint('createJob', { prompt: 'b' }));
    expect(fingerprint('createJob', { prompt: 'a' })).to.not.equal(fingerprint('otherJob', { prompt: 'a' }));
    expect(fingerprint('createJob', { a: 1, b: [1, { c: 2, d: 3 }] })).to.equal(fingerprint('createJob', { b: [1, { d: 3, c: 2 }], a: 1 }));
  });
});

describe('job ids', () => {
  const queue = new MemoryJobQueue({
    lifecycle: new JobLifecycle({ processors: new Map() }),
    concurrency: 1,
    attempts: 1,
    backoffMs: 0,
    retentionMs: 1000,
  });
  const service = (secret: string) =>
    new JobService({
      ledger: new MemoryLedgerStore(),
      queue,
      lifecycle: queue.lifecycle,
      jobIdKey: new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys(secret).jobIdKey),
      retentionSeconds: 60,
    });
  const a = service('a'.repeat(32));

  it('the same subject and key always give the same BullMQ-safe id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), fc.string({ minLength: 1, maxLength: 255 }), async (subject, key) => {
        const id = await a.jobIdFor(subject, key);
        return id === (await a.jobIdFor(subject, key)) && /^job_[A-Za-z0-9_-]{32}$/.test(id) && !id.includes(':');
      }),
    );
  });

  it('subject and key cannot be shifted into each other, and another stored key gives other ids', async () => {
    expect(await a.jobIdFor('ab', 'c')).to.not.equal(await a.jobIdFor('a', 'bc'));
    expect(await a.jobIdFor('alice', 'k')).to.not.equal(await a.jobIdFor('bob', 'k'));
    expect(await service('b'.repeat(32)).jobIdFor('alice', 'k')).to.not.equal(await a.jobIdFor('alice', 'k'));
  });
});
