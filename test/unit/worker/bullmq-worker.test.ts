import { expect } from 'chai';
import { disconnectWorkers, drainWorkers } from '../../../worker/bullmq-worker';

const never = () => new Promise<void>(() => undefined);

describe('the BullMQ worker kit', () => {
  describe('drainWorkers', () => {
    it('workers that all close within the grace period: true', async () => {
      const closed: string[] = [];
      const workers = ['a', 'b'].map((name) => ({ close: async () => void closed.push(name) }));
      expect(await drainWorkers(workers, 1000)).to.equal(true);
      expect(closed).to.deep.equal(['a', 'b']);
    });

    it('a worker still closing when the grace period ends: false', async () => {
      expect(await drainWorkers([{ close: async () => {} }, { close: never }], 10)).to.equal(false);
    });

    it('a worker whose close fails: counted as closed (true), never thrown', async () => {
      expect(await drainWorkers([{ close: () => Promise.reject(new Error('gone')) }], 1000)).to.equal(true);
    });
  });

  describe('disconnectWorkers', () => {
    it('cuts every worker’s connection, a failing one included, and resolves', async () => {
      const cut: string[] = [];
      await disconnectWorkers([
        { disconnect: async () => void cut.push('a') },
        {
          disconnect: () => {
            cut.push('b');
            return Promise.reject(new Error('already closed'));
          },
        },
      ]);
      expect(cut).to.deep.equal(['a', 'b']);
    });

    it('a disconnect that never answers: resolves anyway after half a second at most', async () => {
      const started = Date.now();
      await disconnectWorkers([{ disconnect: never }]);
      expect(Date.now() - started).to.be.within(400, 2000);
    });
  });
});
