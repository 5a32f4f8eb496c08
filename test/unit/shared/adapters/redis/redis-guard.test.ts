import { expect } from 'chai';
import { RedisGuard } from '../../../../../shared/adapters/redis/redis-guard';
import { AppError } from '../../../../../shared/platform/errors/app-error';
import { NotFoundError, ServiceUnavailableError } from '../../../../../shared/platform/errors/problems';

/** A promise settled from outside, standing in for a command still waiting for Redis. */
function pending<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('RedisGuard', () => {
  for (const method of ['commands', 'run'] as const) {
    it(`${method}: a result passes through unchanged and counts no failure`, async () => {
      let failures = 0;
      const guard = new RedisGuard(1000, () => (failures += 1));
      expect(await guard[method](async () => ['admitted', 3])).to.deep.equal(['admitted', 3]);
      expect(failures).to.equal(0);
    });

    it(`${method}: a failed command becomes a 503 with Retry-After, carrying the cause for the log, and is counted`, async () => {
      let failures = 0;
      const guard = new RedisGuard(1000, () => (failures += 1));
      const cause = new Error('Command timed out');
      const error = await guard[method](() => Promise.reject(cause)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).headers['Retry-After']).to.match(/^\d+$/);
      expect((error as Error).message).to.not.contain('timed out');
      expect((error as { cause?: unknown }).cause).to.equal(cause);
      expect(failures).to.equal(1);
    });

    it(`${method}: an error that already has an HTTP status passes through uncounted`, async () => {
      let failures = 0;
      const guard = new RedisGuard(1000, () => (failures += 1));
      const notFound = new NotFoundError();
      const error = await guard[method](() => Promise.reject(notFound)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.equal(notFound).and.to.be.instanceOf(AppError);
      expect(failures).to.equal(0);
    });
  }

  it('run: work that never settles is refused with a 503 at the deadline', async () => {
    const guard = new RedisGuard(30);
    const error = await guard
      .run(() => new Promise(() => {}))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(ServiceUnavailableError);
  });

  it('commands arms no timer of its own while its work waits (the client bounds each command); run arms one', async () => {
    const guard = new RedisGuard(60_000);
    // Mocha arms its own test timeout once this function has returned its promise: count from after that.
    await new Promise((resolve) => setImmediate(resolve));
    const before = timers();
    const forCommands = pending<string>();
    const viaCommands = guard.commands(() => forCommands.promise);
    expect(timers()).to.equal(before);
    const forRun = pending<string>();
    const viaRun = guard.run(() => forRun.promise);
    expect(timers()).to.equal(before + 1);
    forCommands.resolve('a');
    forRun.resolve('b');
    expect([await viaCommands, await viaRun]).to.deep.equal(['a', 'b']);
    expect(timers()).to.equal(before);
  });
});
