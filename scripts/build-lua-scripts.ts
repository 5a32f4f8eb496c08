import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { LUA_DIR, listLuaScripts } from '../shared/adapters/redis/lua-script';
import { checkLuaScripts } from './lua-script-check';

/**
 * `npm run build`, after tsc (run from the sources, by tsx): checks every Lua script (lua-script-check.ts) and
 * copies the scripts' folder into dist/ beside the compiled loader, where the image's processes read it. A
 * script that does not pass fails the build, before anything is copied.
 */
function main(): void {
  const root = path.dirname(__dirname);
  const target = path.join(root, 'dist', path.relative(root, LUA_DIR));
  if (!existsSync(path.dirname(target))) throw new Error(`no compiled loader in ${path.dirname(target)}: run tsc first`);
  const problems = checkLuaScripts(LUA_DIR);
  if (problems.length > 0) throw new Error(`Lua scripts:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  cpSync(LUA_DIR, target, { recursive: true });
  process.stdout.write(`lua scripts: ${listLuaScripts().length} checked, copied to ${path.relative(process.cwd(), target)}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
