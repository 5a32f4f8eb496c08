import { expect } from 'chai';
import type { RedisClient } from '../../../shared/adapters/redis/redis-client';
import { createCancelWatch } from '../../../worker/cancel-watch';
import { waitFor } from '../../testkit/wait-for';

/** A client whose job hashes hold a cancel request for the keys in `asked`; it counts its reads. */
function fakeClient(asked: Set<string>, reads = { count: 0 }) {
  const client = {
    hexists: async (key: string) => {
      reads.count++;
      return asked.has(key) ? 1 : 0;
    },
  } as unknown as RedisClient;
  return { client, reads };
}

describe('the cancel watch', () => {
  it('requested: true for a job whose cancel was asked, false otherwise (one read each)', async () => {
    const { client, reads } = fakeClient(new Set(['q:1']));
    const watch = createCancelWatch(client, 5);
    expect(await watch.requested('q:1')).to.equal(true);
    expect(await watch.requested('q:2')).to.equal(false);
    expect(reads.count).to.equal(2);
  });

  it('a watched job whose cancel is asked: its controller fires on a later poll; another job’s does not', async () => {
    const asked = new Set<string>();
    const watch = createCancelWatch(fakeClient(asked).client, 5);
    const canceled = new AbortController();
    const other = new AbortController();
    watch.abortOnCancel('q:1', canceled);
    watch.abortOnCancel('q:2', other);
    asked.add('q:1');
    await waitFor(() => canceled.signal.aborted, { what: 'the abort' });
    expect(other.signal.aborted).to.equal(false);
    watch.close();
  });

  it('a job no longer watched (its attempt ended): the poll that fires a watched job’s controller leaves it alone', async () => {
    const asked = new Set<string>();
    const watch = createCancelWatch(fakeClient(asked).client, 5);
    const ended = new AbortController();
    const watched = new AbortController();
    const stop = watch.abortOnCancel('q:1', ended);
    watch.abortOnCancel('q:2', watched);
    stop();
    asked.add('q:1');
    asked.add('q:2');
    await waitFor(() => watched.signal.aborted, { what: 'the watched job’s abort' });
    expect(ended.signal.aborted).to.equal(false);
    watch.close();
  });

  it('a read that fails: the job is not taken for canceled, and the watch goes on', async () => {
    let failing = true;
    let failedReads = 0;
    const client = {
      hexists: async () => {
        if (!failing) return 1;
        failedReads++;
        throw new Error('Connection is closed.');
      },
    } as unknown as RedisClient;
    const watch = createCancelWatch(client, 5);
    const controller = new AbortController();
    watch.abortOnCancel('q:1', controller);
    await waitFor(() => failedReads >= 2, { what: 'two failed polls' });
    expect(controller.signal.aborted).to.equal(false);
    failing = false;
    await waitFor(() => controller.signal.aborted, { what: 'the abort once Redis answers' });
    watch.close();
  });
});
