/**
 * The layout of a Lua script file (BullMQ's): one script per file, named `<name>-<number of keys>.lua`, opening
 * with a block comment that says in a line what the script does, then under `Input:` one line per `KEYS[i]` and
 * `ARGV[i]` in order (`ARGV[i...]` for any number more), then under `Output:` what it answers. Two directives
 * take a line of their own: `--- @include "<name>"` puts a file of the `includes` folder in its place (a local
 * function several scripts share), and `--- @constant NAME` becomes `local NAME = <value>`, the value given by
 * the store that loads the script (a hash field name that TypeScript declares, say). Both are comments to Lua,
 * so a file parses as it stands.
 */

/** What a script's header declares. */
export interface LuaHeader {
  /** What each `KEYS[i]` is, in order from 1. */
  keys: string[];
  /** What each `ARGV[i]` is, in order from 1. */
  args: string[];
  /** What the arguments after those are, when the script takes any number more (`ARGV[i...]`). */
  moreArgs?: string;
  /** What the script answers. */
  output: string;
}

/** A value a script takes at load: a string literal, an integer or a list of strings. */
export type LuaConstant = string | number | readonly string[];
/** The values of a script's `--- @constant` directives, by name. */
export type LuaConstants = Readonly<Record<string, LuaConstant>>;

const FILE_NAME = /^([a-z][a-z0-9-]*)-(\d+)\.lua$/;
const ENTRY = /^(KEYS|ARGV)\[(\d+)(\.\.\.)?\] +(\S.*)$/;
const INCLUDE = /^--- @include "([a-z][a-z0-9-]*)"$/;
const CONSTANT = /^--- @constant ([A-Z][A-Z0-9_]*)$/;
const DIRECTIVE = /^--- ?@/;
/** A constant's characters: nothing a Lua string literal would need to escape. */
const SAFE_STRING = /^[\w.:-]*$/;

/** A script file's name split into the script's name and its key count; undefined for another name. */
export function parseScriptFileName(fileName: string): { name: string; numberOfKeys: number } | undefined {
  const match = FILE_NAME.exec(fileName);
  return match ? { name: match[1], numberOfKeys: Number(match[2]) } : undefined;
}

/** Reads a script's header; throws on a missing or malformed one, naming `file`. */
export function parseLuaHeader(file: string, text: string): LuaHeader {
  const lines = headerLines(file, text);
  const input = lines.findIndex((line) => line.trim() === 'Input:');
  const output = lines.findIndex((line) => line.trim() === 'Output:');
  if (input < 0 || output < input) throw new Error(`${file}: the header has no Input: section followed by an Output: section`);
  const outputText = lines
    .slice(output + 1)
    .join('\n')
    .trim();
  if (!outputText) throw new Error(`${file}: the header's Output: section is empty`);
  return { ...readEntries(file, lines.slice(input + 1, output)), output: outputText };
}

/** The header's lines, between `--[[` on the file's first line and the first `]]`. */
function headerLines(file: string, text: string): string[] {
  const end = text.indexOf('\n]]');
  if (!text.startsWith('--[[\n') || end < 0) throw new Error(`${file}: a script opens with its header, a --[[ … ]] comment`);
  return text.slice('--[[\n'.length, end).split('\n');
}

interface HeaderEntry {
  line: string;
  kind: 'KEYS' | 'ARGV';
  index: number;
  /** `ARGV[i...]`: any number of arguments from i on. */
  more: boolean;
  description: string;
}

/**
 * The KEYS and ARGV entries of the Input: section, each numbered one more than the last of its kind, an
 * `ARGV[i...]` last.
 */
function readEntries(file: string, lines: readonly string[]): Pick<LuaHeader, 'keys' | 'args' | 'moreArgs'> {
  const header: Pick<LuaHeader, 'keys' | 'args' | 'moreArgs'> = { keys: [], args: [] };
  for (const entry of headerEntries(file, lines)) {
    const list = entry.kind === 'KEYS' ? header.keys : header.args;
    if (entry.index !== list.length + 1 || header.moreArgs !== undefined || (entry.more && entry.kind === 'KEYS'))
      throw new Error(`${file}: header entry "${entry.line}" is out of order (KEYS and ARGV count 1, 2, …; ARGV[i...] comes last)`);
    if (entry.more) header.moreArgs = entry.description;
    else list.push(entry.description);
  }
  return header;
}

/** The Input: section's entries as written; a line that starts with neither KEYS nor ARGV continues the one above. */
function headerEntries(file: string, lines: readonly string[]): HeaderEntry[] {
  const entries: HeaderEntry[] = [];
  for (const line of lines.map((raw) => raw.trim()).filter(Boolean)) {
    const last = entries.at(-1);
    if (!/^(KEYS|ARGV)\[/.test(line) && last) {
      last.description += ` ${line}`;
      continue;
    }
    const [, kind, index, more, description] = ENTRY.exec(line) ?? [];
    if (!kind || !description) throw new Error(`${file}: malformed header entry "${line}"`);
    entries.push({ line, kind: kind as HeaderEntry['kind'], index: Number(index), more: more !== undefined, description });
  }
  return entries;
}

/** The names of the script's `--- @constant` directives, in order. */
export function declaredConstants(text: string): string[] {
  return text.split('\n').flatMap((line) => CONSTANT.exec(line)?.[1] ?? []);
}

/**
 * The script's text as sent to Redis: each directive replaced, each line otherwise as written. Refuses an
 * unknown directive, an include that has directives of its own, and a constant without its value or a value
 * without its directive.
 */
export function expandLua(file: string, text: string, include: (name: string) => string, constants: LuaConstants = {}): string {
  const used = new Set<string>();
  const expanded = text.split('\n').map((line) => {
    const included = INCLUDE.exec(line);
    if (included) return includedText(file, included[1], include(included[1]));
    const constant = CONSTANT.exec(line);
    if (constant) return constantLine(file, constant[1], constants, used);
    if (DIRECTIVE.test(line)) throw new Error(`${file}: unknown directive "${line}"`);
    return line;
  });
  const unused = Object.keys(constants).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`${file}: given constants the script does not declare: ${unused.join(', ')}`);
  return expanded.join('\n');
}

function includedText(file: string, name: string, text: string): string {
  if (text.split('\n').some((line) => DIRECTIVE.test(line))) throw new Error(`${file}: include "${name}" has directives of its own`);
  return text.trimEnd();
}

function constantLine(file: string, name: string, constants: LuaConstants, used: Set<string>): string {
  if (used.has(name)) throw new Error(`${file}: constant ${name} is declared twice`);
  if (!Object.hasOwn(constants, name)) throw new Error(`${file}: no value given for constant ${name}`);
  used.add(name);
  return `local ${name} = ${luaLiteral(file, name, constants[name])}`;
}

function luaLiteral(file: string, name: string, value: LuaConstant): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`${file}: constant ${name} is not an integer`);
    return String(value);
  }
  if (typeof value === 'string') {
    if (!SAFE_STRING.test(value)) throw new Error(`${file}: constant ${name} holds characters other than letters, digits and _.:-`);
    return `'${value}'`;
  }
  return `{${value.map((item) => luaLiteral(file, name, item)).join(', ')}}`;
}
