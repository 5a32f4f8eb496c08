import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A temporary folder laid out as shared/adapters/redis/lua/ is, for the tests of the loader and of the build's check. */
export interface LuaScriptsFolder {
  readonly dir: string;
  /** Writes `lines` as the file at `file` (relative to the folder), making its folder. */
  write(file: string, lines: readonly string[]): void;
  remove(): void;
}

/** A new, empty scripts folder with its `includes/` folder; `remove()` it after the test. */
export function luaScriptsFolder(): LuaScriptsFolder {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lua-scripts-'));
  mkdirSync(path.join(dir, 'includes'));
  return {
    dir,
    write(file, lines) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), `${lines.join('\n')}\n`);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The lines of a script header whose Input: section is `input` and whose Output: is `1`. */
export function luaHeader(...input: string[]): string[] {
  return ['--[[', '  Test.', '  Input:', ...input.map((line) => `    ${line}`), '  Output:', '    1', ']]'];
}
