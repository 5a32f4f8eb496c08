import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { parseLua } from '../../../../../scripts/lua-script-check';
import { BullmqJobQueue } from '../../../../../shared/adapters/redis/bullmq-job-queue';
import { jobProgressStore } from '../../../../../shared/adapters/redis/job-progress-store';
import {
  defineLuaScript,
  LUA_DIR,
  listLuaScripts,
  loadLuaScript,
  readLuaScript,
  readLuaScriptFile,
} from '../../../../../shared/adapters/redis/lua-script';
import { parseScriptFileName } from '../../../../../shared/adapters/redis/lua-script-file';
import { RedisAdmissionStore } from '../../../../../shared/adapters/redis/redis-admission-store';
import { RedisClaimReader } from '../../../../../shared/adapters/redis/redis-claim-reader';
import type { RedisClient } from '../../../../../shared/adapters/redis/redis-client';
import { RedisConnectionStore } from '../../../../../shared/adapters/redis/redis-connection-store';
import { RedisCreditStore } from '../../../../../shared/adapters/redis/redis-credit-store';
import { RedisGuard } from '../../../../../shared/adapters/redis/redis-guard';
import { RedisJobIdKeyStore } from '../../../../../shared/adapters/redis/redis-job-id-key-store';
import { RedisKeys } from '../../../../../shared/adapters/redis/redis-keys';
import { RedisLedgerStore } from '../../../../../shared/adapters/redis/redis-ledger-store';
import { RedisOAuthStateStore } from '../../../../../shared/adapters/redis/redis-oauth-state-store';
import { RedisRateLimitStore } from '../../../../../shared/adapters/redis/redis-rate-limit-store';
import { RedisThingStore } from '../../../../../shared/adapters/redis/redis-thing-store';
import { type LuaScriptsFolder, luaHeader, luaScriptsFolder } from '../../../../support/lua-scripts-folder';

interface Defined {
  numberOfKeys: number;
  lua: string;
}

/** A client that only records the scripts defined on it (ioredis's defineCommand), under their command names. */
function recordingClient(): { client: RedisClient; defined: Map<string, Defined> } {
  const defined = new Map<string, Defined>();
  const client = {
    defineCommand(name: string, definition: Defined) {
      defined.set(name, definition);
      (this as Record<string, unknown>)[name] = async () => undefined;
    },
  };
  return { client: client as unknown as RedisClient, defined };
}

const keys = new RedisKeys('test:');
const guard = new RedisGuard(1000);

/**
 * Every module of shared/adapters/redis that runs scripts, by its name, which is also its scripts' folder.
 * A new store with scripts goes here; the test below names any script folder or file no entry loads.
 */
const jobQueue = (client: RedisClient) =>
  new BullmqJobQueue(client, keys, guard, {
    attempts: 1,
    backoffMs: 1,
    retentionSeconds: 60,
    logger: pino({ level: 'silent' }),
    shards: 1,
    durability: { minReplicas: 0, waitMs: 0 },
  });

const STORES: Record<string, (client: RedisClient) => unknown> = {
  'bullmq-job-queue': jobQueue,
  'job-progress-store': (client) => jobProgressStore(client),
  'redis-admission-store': (client) => new RedisAdmissionStore(client, keys, guard),
  // Its ledger and queue define their scripts on a client of their own: only the reader's own are counted here.
  'redis-claim-reader': (client) => {
    const other = recordingClient().client;
    return new RedisClaimReader(client, {
      ledger: new RedisLedgerStore(other, keys, guard),
      queue: jobQueue(other),
      admissions: new RedisAdmissionStore(other, keys, guard),
    });
  },
  'redis-connection-store': (client) => new RedisConnectionStore(client, keys, guard),
  'redis-credit-store': (client) => new RedisCreditStore(client, keys, guard),
  'redis-job-id-key-store': (client) => new RedisJobIdKeyStore(client, keys, guard),
  'redis-ledger-store': (client) => new RedisLedgerStore(client, keys, guard),
  'redis-oauth-state-store': (client) => new RedisOAuthStateStore(client, keys, guard),
  'redis-rate-limit-store': (client) => new RedisRateLimitStore(client, keys, guard),
  'redis-thing-store': (client) => new RedisThingStore(client, keys, guard),
};

describe('the Lua scripts of the Redis stores (lua/<store>/<name>-<keys>.lua)', () => {
  const files = listLuaScripts();

  it('every store defines exactly the scripts of its own folder: no script file is left unused, none is missing', () => {
    expect(files.length, 'scripts found').to.be.greaterThan(15);
    const used: string[] = [];
    for (const [store, make] of Object.entries(STORES)) {
      const { client, defined } = recordingClient();
      make(client);
      const names = [...defined.keys()].map((command) => command.replace(/^lua:/, ''));
      expect(names.length, `${store} defines scripts`).to.be.greaterThan(0);
      expect(
        names.filter((name) => !name.startsWith(`${store}/`)),
        `${store} defines only its own folder's scripts`,
      ).to.deep.equal([]);
      used.push(...names);
    }
    expect([...used].sort(), 'script files without a store that defines them, or defined scripts without a file').to.deep.equal(
      [...files].sort(),
    );
  });

  it('each script a store defines has its file name’s key count and parses as Lua 5.1 once its constants are in place', () => {
    for (const make of Object.values(STORES)) {
      const { client, defined } = recordingClient();
      make(client);
      for (const [command, { numberOfKeys, lua }] of defined) {
        const name = command.replace(/^lua:/, '');
        const { file } = readLuaScriptFile(LUA_DIR, name);
        expect(numberOfKeys, name).to.equal(parseScriptFileName(path.basename(file))!.numberOfKeys);
        expect(() => parseLua(lua), name).not.to.throw();
        expect(lua, `${name}: no directive left`).not.to.match(/^--- ?@/m);
      }
    }
  });

  it('a script is read once per process: loading it again answers the same script, and other constants are refused', () => {
    const first = loadLuaScript('redis-thing-store/add');
    expect(loadLuaScript('redis-thing-store/add')).to.equal(first);
    expect(() => loadLuaScript('redis-thing-store/add', { FIELD: 'x' })).to.throw(/loaded again with other constants/);
  });

  it('a bound script refuses a call with another number of keys than its file name says, before sending anything', async () => {
    const { client } = recordingClient();
    const add = defineLuaScript<number>(client, 'redis-thing-store/add');
    expect(() => add(['only-one'], ['{}'])).to.throw(/takes 2 keys/);
    expect(await add(['things', 'seq'], ['{}'])).to.equal(undefined);
  });
});

describe('readLuaScript (a script by name from a folder of scripts)', () => {
  let folder: LuaScriptsFolder;
  const write = (file: string, lines: string[]) => folder.write(file, lines);
  const read = (name: string) => readLuaScript(folder.dir, name);

  beforeEach(() => {
    folder = luaScriptsFolder();
    write('includes/double.lua', ['--[[', '  double(n)', ']]', 'local function double(n) return 2 * n end']);
  });
  afterEach(() => folder.remove());

  it('finds <store>/<name> by its file <name>-<n>.lua, takes n as its key count and expands its directives', () => {
    write('store/pair-2.lua', [...luaHeader('KEYS[1] a', 'KEYS[2] b', 'ARGV[1] n'), '--- @include "double"', 'return double(ARGV[1])']);
    const script = read('store/pair');
    expect(script).to.include({ name: 'store/pair', file: 'store/pair-2.lua', numberOfKeys: 2 });
    expect(script.lua).to.contain('\nlocal function double(n) return 2 * n end\nreturn double(ARGV[1])\n');
    expect(listLuaScripts(folder.dir)).to.deep.equal(['store/pair']);
  });

  it('refuses a file whose header names another number of keys than its name, naming the file', () => {
    write('store/pair-3.lua', [...luaHeader('KEYS[1] a', 'KEYS[2] b'), 'return 1']);
    expect(() => read('store/pair')).to.throw('store/pair-3.lua: the name says 3 keys, the header names 2');
  });

  it('refuses a name with no file, a name with two files, and a name that is not <store>/<name>', () => {
    write('store/pair-2.lua', [...luaHeader('KEYS[1] a', 'KEYS[2] b'), 'return 1']);
    expect(() => read('store/other')).to.throw(/0 files named other-<number of keys>\.lua/);
    write('store/pair-1.lua', [...luaHeader('KEYS[1] a'), 'return 1']);
    expect(() => read('store/pair')).to.throw(/2 files named pair-<number of keys>\.lua/);
    for (const bad of ['pair', 'store/Pair', 'includes/double', 'store/sub/pair', '.store/pair', 'store/pair-2.lua'])
      expect(() => read(bad), bad).to.throw(/a script is named <store>\/<name>/);
  });
});
