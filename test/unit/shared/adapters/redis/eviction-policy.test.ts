import { expect } from 'chai';
import { checkEvictionPolicy, type PolicySource } from '../../../../../shared/adapters/redis/eviction-policy';
import { createLogger } from '../../../../../shared/platform/logging/logger';
import { LogCapture } from '../../../../support/log-capture';

/** A Redis that answers CONFIG GET with `config` (or refuses it when undefined) and INFO memory with `info`. */
function redis(config: string | undefined, info = ''): PolicySource & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    call: async (...args: string[]) => {
      calls.push(args.join(' '));
      if (config === undefined) throw new Error("ERR unknown command 'CONFIG'");
      return ['maxmemory-policy', config];
    },
    info: async (section: string) => {
      calls.push(`INFO ${section}`);
      return info;
    },
  };
}

/** The policy the check reads from `source`, and the messages it logged. */
async function check(source: PolicySource): Promise<{ policy: string | undefined; messages: string[] }> {
  const capture = new LogCapture();
  const policy = await checkEvictionPolicy(source, createLogger('info', 'eviction-policy-test', capture));
  return { policy, messages: capture.lines.map((line) => JSON.parse(line).msg) };
}

describe('the Redis eviction policy check (checkEvictionPolicy)', () => {
  it('reads noeviction from CONFIG GET and warns of nothing', async () => {
    const source = redis('noeviction');
    expect(await check(source)).to.deep.equal({ policy: 'noeviction', messages: [] });
    expect(source.calls).to.deep.equal(['CONFIG GET maxmemory-policy']);
  });

  it('warns when the policy lets Redis evict keys', async () => {
    const { policy, messages } = await check(redis('allkeys-lru'));
    expect(policy).to.equal('allkeys-lru');
    expect(messages).to.deep.equal(['Redis maxmemory-policy is not noeviction: jobs, charges and idempotency records may be evicted']);
  });

  it('falls back to INFO memory where CONFIG is refused, and warns when neither tells', async () => {
    const source = redis(undefined, '# Memory\r\nmaxmemory_policy:volatile-lru\r\n');
    expect((await check(source)).policy).to.equal('volatile-lru');
    expect(source.calls).to.deep.equal(['CONFIG GET maxmemory-policy', 'INFO memory']);
    expect(await check(redis(undefined, '# Memory\r\n'))).to.deep.equal({
      policy: undefined,
      messages: ['could not read the Redis maxmemory-policy; it must be noeviction'],
    });
  });
});
