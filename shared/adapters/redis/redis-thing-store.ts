import type { Thing } from '../../domain/things/thing';
import type { ThingStore } from '../../domain/things/thing-store';
import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { pageBySeq } from './sequence-page';

/**
 * Things per subject in a sorted set scored by a per-subject sequence number. A page is "the newest `limit`
 * with a sequence number below the cursor", so things added while someone pages never shift or repeat
 * items on later pages (a time score could tie; a sequence cannot).
 */
export class RedisThingStore implements ThingStore {
  private readonly addScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.addScript = defineLuaScript(client, 'redis-thing-store/add');
  }

  async add(subject: string, thing: Thing): Promise<void> {
    await this.guard.commands(() =>
      this.addScript([this.keys.subjectThings(subject), this.keys.subjectSequence(subject)], [JSON.stringify(thing)]),
    );
  }

  async list(subject: string, query: PageQuery): Promise<Array<SeqItem<Thing>>> {
    const flat = await this.guard.commands(() => pageBySeq(this.client, this.keys.subjectThings(subject), query));
    return flat.map(({ seq, member }) => ({ seq, value: JSON.parse(member) as Thing }));
  }
}
