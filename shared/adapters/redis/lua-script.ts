import type { RedisClient } from './redis-client';

/** A Lua script bound to a client: call it with its keys and arguments. */
export type LuaScript<T> = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<T>;

/**
 * Registers a Lua script on a client. ioredis sends it by SHA and falls back to the full source when the
 * server answers NOSCRIPT, so a restarted (script-cache-less) Redis needs nothing from us. A script runs
 * atomically: no other client's command interleaves with it, which is what makes claims and counters safe
 * across replicas.
 */
export function defineLuaScript<T>(client: RedisClient, name: string, numberOfKeys: number, lua: string): LuaScript<T> {
  const commandName = `connector_${name}`;
  if (!(commandName in client)) client.defineCommand(commandName, { numberOfKeys, lua });
  const command = (client as unknown as Record<string, (...args: Array<string | number>) => Promise<T>>)[commandName];
  return (keys, args) => {
    if (keys.length !== numberOfKeys) throw new Error(`script ${name} takes ${numberOfKeys} keys`);
    return command.call(client, ...keys, ...args);
  };
}
