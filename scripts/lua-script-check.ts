import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type Chunk, type Node, parse } from 'luaparse';
import { LUA_INCLUDES, listLuaScripts, readLuaInclude, readLuaScriptFile } from '../shared/adapters/redis/lua-script';
import { declaredConstants, expandLua, type LuaHeader } from '../shared/adapters/redis/lua-script-file';

/**
 * The build's and the tests' check of the Lua scripts (Redis runs Lua 5.1): each parses, as written and as
 * sent, its header is a list of exactly the KEYS and ARGV its body reads, it reads no global Redis does not
 * give a script, and every include is included somewhere. Uses luaparse, a development dependency: the
 * running service only reads the scripts (lua-script.ts), it never parses them.
 */

/** What a script's body reads of KEYS and ARGV. */
export interface KeysAndArgsUse {
  keys: Set<number>;
  args: Set<number>;
  /** KEYS read by a computed index, or as a whole (`#KEYS`, `unpack(KEYS)`). */
  anyKey: boolean;
  /** ARGV read by a computed index, or as a whole. */
  anyArg: boolean;
}

/** The globals Redis gives a script; anything else is an error when the script runs. */
const REDIS_GLOBALS = new Set([
  ...['redis', 'KEYS', 'ARGV', 'cjson', 'cmsgpack', 'bit', 'struct', 'math', 'string', 'table'],
  ...['tonumber', 'tostring', 'type', 'pairs', 'ipairs', 'next', 'select', 'unpack', 'pcall', 'xpcall', 'error', 'assert'],
  ...['rawget', 'rawset', 'rawequal', 'setmetatable', 'getmetatable'],
]);

/** Parses Lua 5.1 with scopes (so globals are listed); throws luaparse's error, `[line:column] message`. */
export function parseLua(text: string): Chunk & { globals?: Array<{ name: string }> } {
  return parse(text, { luaVersion: '5.1', scope: true, comments: false, locations: false });
}

/** The KEYS and ARGV a chunk reads. */
export function keysAndArgsUse(chunk: Chunk): KeysAndArgsUse {
  const use: KeysAndArgsUse = { keys: new Set(), args: new Set(), anyKey: false, anyArg: false };
  // The body only: with scopes, the chunk also lists its globals, KEYS and ARGV among them.
  visit(chunk.body, use);
  return use;
}

function visit(node: unknown, use: KeysAndArgsUse): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, use);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const typed = node as Node;
  if (typed.type === 'IndexExpression' && typed.base.type === 'Identifier' && isKeysOrArgs(typed.base.name)) {
    const literal = typed.index.type === 'NumericLiteral' ? typed.index.value : undefined;
    record(use, typed.base.name, literal);
    visit(typed.index, use);
    return;
  }
  if (typed.type === 'Identifier' && isKeysOrArgs(typed.name)) record(use, typed.name, undefined);
  for (const value of Object.values(node)) visit(value, use);
}

function isKeysOrArgs(name: string): name is 'KEYS' | 'ARGV' {
  return name === 'KEYS' || name === 'ARGV';
}

function record(use: KeysAndArgsUse, name: 'KEYS' | 'ARGV', index: number | undefined): void {
  if (name === 'KEYS' && index === undefined) use.anyKey = true;
  else if (name === 'KEYS') use.keys.add(index!);
  else if (index === undefined) use.anyArg = true;
  else use.args.add(index);
}

/** Where a header and the body's use disagree, one sentence each. */
export function headerMismatches(header: LuaHeader, use: KeysAndArgsUse): string[] {
  const problems: string[] = [];
  const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
  const unused = (kind: string, declared: number, read: Set<number>) =>
    range(declared)
      .filter((i) => !read.has(i))
      .map((i) => `the header names ${kind}[${i}], which the script never reads`);
  const undeclared = (kind: string, declared: number, read: Set<number>) =>
    [...read].filter((i) => i < 1 || i > declared).map((i) => `the script reads ${kind}[${i}], which the header does not name`);
  problems.push(...unused('KEYS', header.keys.length, use.keys), ...undeclared('KEYS', header.keys.length, use.keys));
  if (use.anyKey) problems.push('the script reads KEYS by a computed index or as a whole: a header names each key');
  problems.push(...unused('ARGV', header.args.length, use.args));
  if (header.moreArgs === undefined) {
    problems.push(...undeclared('ARGV', header.args.length, use.args));
    if (use.anyArg) problems.push('the script reads ARGV by a computed index or as a whole, and the header has no ARGV[i...] entry');
  } else if (!use.anyArg) {
    problems.push('the header names ARGV[i...], and the script reads no ARGV past its named ones');
  }
  return problems;
}

/**
 * A header is a list: `--[[`, what the script does in at most two lines, `Input:`, a line per entry, `Output:`,
 * the answers in four lines or so, `]]`. Why a script is so belongs in its store's module or a decision record.
 */
export const HEADER_DESCRIPTION_LINES = 2;
/** The lines a header may have beyond one per `KEYS[i]` and `ARGV[i]` entry (an include's has no entries). */
export const HEADER_SPARE_LINES = 9;

/** Where a header is longer than a list, one sentence each. */
export function headerLengthProblems(text: string, header?: LuaHeader): string[] {
  const lines = text.split('\n');
  const length = lines.findIndex((line) => line.startsWith(']]')) + 1;
  const input = lines.findIndex((line) => /^\s*(Input|Output):$/.test(line));
  const entries = header ? header.keys.length + header.args.length + (header.moreArgs === undefined ? 0 : 1) : 0;
  const problems: string[] = [];
  if (input - 1 > HEADER_DESCRIPTION_LINES)
    problems.push(`the header says what the script does in ${input - 1} lines, at most ${HEADER_DESCRIPTION_LINES}`);
  if (length > entries + HEADER_SPARE_LINES)
    problems.push(`the header has ${length} lines, at most ${entries + HEADER_SPARE_LINES} (${HEADER_SPARE_LINES} and one per entry)`);
  return problems;
}

/** Globals a chunk reads that Redis does not give a script. */
export function unknownGlobals(chunk: ReturnType<typeof parseLua>): string[] {
  return [...new Set((chunk.globals ?? []).map((global) => global.name))].filter((name) => !REDIS_GLOBALS.has(name));
}

/** Every problem of the script `<store>/<name>` in `dir`, each starting with its file; none when it passes. */
export function checkLuaScript(dir: string, name: string): string[] {
  let file = name;
  try {
    const script = readLuaScriptFile(dir, name);
    file = script.file;
    parseLua(script.text);
    // Constants' values come from their store at load; any value parses alike, so 0 stands in for each.
    const standIns = Object.fromEntries(declaredConstants(script.text).map((constant) => [constant, 0]));
    const chunk = parseLua(expandLua(script.file, script.text, (included) => readLuaInclude(dir, included), standIns));
    const problems = [
      ...headerMismatches(script.header, keysAndArgsUse(chunk)),
      ...headerLengthProblems(script.text, script.header),
      ...unknownGlobals(chunk).map(unknownGlobal),
    ];
    return problems.map((problem) => `${file}: ${problem}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [message.startsWith(file) ? message : `${file}: ${message}`];
  }
}

const unknownGlobal = (name: string) => `reads the global ${name}, which Redis does not give a script (a missing local or constant?)`;

/**
 * Every problem of an include: it parses, reads neither KEYS nor ARGV (its script passes what it needs), and
 * its header is as short as a script's.
 */
export function checkLuaInclude(dir: string, name: string): string[] {
  const file = `${LUA_INCLUDES}/${name}.lua`;
  try {
    const text = readLuaInclude(dir, name);
    const use = keysAndArgsUse(parseLua(text));
    const reads = use.keys.size + use.args.size > 0 || use.anyKey || use.anyArg ? ['an include reads KEYS or ARGV'] : [];
    return [...reads, ...headerLengthProblems(text)].map((problem) => `${file}: ${problem}`);
  } catch (error) {
    return [`${file}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** Every problem of every script and include in `dir`, an include no script includes among them. */
export function checkLuaScripts(dir: string): string[] {
  const scripts = listLuaScripts(dir);
  const includes = readdirSync(path.join(dir, LUA_INCLUDES))
    .filter((fileName) => fileName.endsWith('.lua'))
    .map((fileName) => fileName.slice(0, -'.lua'.length));
  const texts = scripts.map((name) => {
    try {
      return readLuaScriptFile(dir, name).text;
    } catch {
      return '';
    }
  });
  const unused = includes.filter((include) => !texts.some((text) => text.includes(`--- @include "${include}"`)));
  return [
    ...scripts.flatMap((name) => checkLuaScript(dir, name)),
    ...includes.flatMap((include) => checkLuaInclude(dir, include)),
    ...unused.map((include) => `${LUA_INCLUDES}/${include}.lua: no script includes it`),
  ];
}
