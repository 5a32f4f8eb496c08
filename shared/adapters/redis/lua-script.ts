import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EncodedCommand } from './encoded-command';
import { expandLua, type LuaConstants, type LuaHeader, parseLuaHeader, parseScriptFileName } from './lua-script-file';
import type { RedisClient } from './redis-client';

/** A Lua script bound to a client: call it with its keys and arguments. */
export type LuaScript<T> = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<T>;

/**
 * The scripts' folder, beside this module: `lua/<store>/<name>-<number of keys>.lua`, one folder per store
 * (named as its module) and `lua/includes/` for what several share. The build copies it into dist/.
 */
export const LUA_DIR = path.join(__dirname, 'lua');
/** The folder of included files, which are no scripts of their own. */
export const LUA_INCLUDES = 'includes';

/** A script file as read, its header checked against its name. */
export interface LuaScriptFile {
  /** `<store>/<name>`. */
  name: string;
  /** Its path under the scripts' folder. */
  file: string;
  numberOfKeys: number;
  header: LuaHeader;
  /** As written, directives unexpanded. */
  text: string;
}

/** A script ready to register: its name (`<store>/<name>`), file, key count and text as Redis runs it. */
export type LoadedLuaScript = Pick<LuaScriptFile, 'name' | 'file' | 'numberOfKeys'> & { lua: string };

const SCRIPT_NAME = /^([a-z][a-z0-9-]*)\/([a-z][a-z0-9-]*)$/;

/**
 * Reads the script `<store>/<name>` from `dir`: the one file of the store's folder named `<name>-<n>.lua`,
 * whose header must name exactly n KEYS.
 */
export function readLuaScriptFile(dir: string, name: string): LuaScriptFile {
  const match = SCRIPT_NAME.exec(name);
  if (!match || match[1] === LUA_INCLUDES) throw new Error(`a script is named <store>/<name> in kebab case, not "${name}"`);
  const [, store, script] = match;
  const found = readdirSync(path.join(dir, store)).filter((fileName) => parseScriptFileName(fileName)?.name === script);
  if (found.length !== 1) throw new Error(`script ${name}: ${found.length} files named ${script}-<number of keys>.lua in ${store}/`);
  const file = `${store}/${found[0]}`;
  const text = readFileSync(path.join(dir, file), 'utf8');
  const { numberOfKeys } = parseScriptFileName(found[0])!;
  const header = parseLuaHeader(file, text);
  if (header.keys.length !== numberOfKeys)
    throw new Error(`${file}: the name says ${numberOfKeys} keys, the header names ${header.keys.length}`);
  return { name, file, numberOfKeys, header, text };
}

/** The text of an include of `dir` (`includes/<name>.lua`). */
export function readLuaInclude(dir: string, name: string): string {
  return readFileSync(path.join(dir, LUA_INCLUDES, `${name}.lua`), 'utf8');
}

/** {@link readLuaScriptFile}, then its directives expanded: includes from `dir`, and `constants`. */
export function readLuaScript(dir: string, name: string, constants: LuaConstants = {}): LoadedLuaScript {
  const { file, numberOfKeys, text } = readLuaScriptFile(dir, name);
  return { name, file, numberOfKeys, lua: expandLua(file, text, (included) => readLuaInclude(dir, included), constants) };
}

/** Every script under `dir`, as `<store>/<name>` (includes excluded). */
export function listLuaScripts(dir: string = LUA_DIR): string[] {
  const stores = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== LUA_INCLUDES);
  return stores.flatMap((store) =>
    readdirSync(path.join(dir, store.name))
      .filter((fileName) => fileName.endsWith('.lua'))
      .map((fileName) => `${store.name}/${parseScriptFileName(fileName)?.name ?? fileName}`),
  );
}

const loaded = new Map<string, { script: LoadedLuaScript; constants: string }>();

/**
 * A script of {@link LUA_DIR}, read once per process: stores load theirs when they are made, at start, and a
 * request never reads a file. The same script loaded with other constants is a mistake, and refused.
 */
export function loadLuaScript(name: string, constants: LuaConstants = {}): LoadedLuaScript {
  const given = JSON.stringify(constants);
  const cached = loaded.get(name);
  if (cached && cached.constants !== given) throw new Error(`script ${name} loaded again with other constants`);
  if (cached) return cached.script;
  const script = readLuaScript(LUA_DIR, name, constants);
  loaded.set(name, { script, constants: given });
  return script;
}

/**
 * Binds a script of {@link LUA_DIR} to a client, by its name (`<store>/<name>`; the key count comes from its
 * file's name). The first call goes through ioredis's command for the script, which sends its source; every
 * later call is one `EVALSHA` command built here and handed to the client as it is: ioredis's own
 * script commands (`defineCommand`) cost every call two more copies of its arguments, a second promise and
 * two closures, which a request holds across its wait for Redis (docs/decisions/per-request-bookkeeping.md);
 * it is written as one Buffer ({@link EncodedCommand}). When
 * the server answers NOSCRIPT (a restarted Redis, a cluster node that never ran it) that one call goes again
 * through ioredis's command for the script, which sends the source on a connection that has not sent it yet,
 * so the script is loaded and later calls find it. A script runs atomically: no other client's command
 * interleaves with it, which is what makes claims and counters safe across replicas.
 */
export function defineLuaScript<T>(client: RedisClient, name: string, constants?: LuaConstants): LuaScript<T> {
  const { numberOfKeys, lua } = loadLuaScript(name, constants);
  const commandName = `lua:${name}`;
  if (!(commandName in client)) client.defineCommand(commandName, { numberOfKeys, lua });
  const loadAndRun = (client as unknown as Record<string, (...args: Array<string | number>) => Promise<T>>)[commandName];
  const sha = createHash('sha1').update(lua).digest('hex');
  let sent = false;
  return (keys, args) => {
    if (keys.length !== numberOfKeys) throw new Error(`script ${name} takes ${numberOfKeys} keys`);
    if (!sent) {
      // The first call sends the source, as ioredis does: no NOSCRIPT round trip on a Redis that lacks it.
      sent = true;
      return loadAndRun.call(client, ...keys, ...args);
    }
    const command = new EncodedCommand('evalsha', [sha, numberOfKeys, ...keys, ...args], { replyEncoding: 'utf8' });
    void client.sendCommand(command);
    return (command.promise as Promise<T>).catch((error: unknown) =>
      isNoScript(error) ? loadAndRun.call(client, ...keys, ...args) : Promise.reject(error),
    );
  };
}

/** Whether Redis refused a script call because it does not have the script (NOSCRIPT). */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.includes('NOSCRIPT');
}
