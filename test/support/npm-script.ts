import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './spawn-process';

/** A command line to spawn: the program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

const fromRoot = createRequire(path.join(ROOT, 'package.json'));

/**
 * The command `npm run <name>` runs, for a process spawned in any working directory: `node` is this Node, each
 * `--import` is resolved from the repository (a private working directory has no node_modules) and the entry
 * is made absolute; `entry` replaces the script's own. The scripts that serve (`dev`, `dev:x402`,
 * `example:dashboard`) are `node --import tsx <entry>`, one process (docs/decisions/dev-runs-as-one-process.md).
 */
export function npmScriptCommand(name: string, entry?: string): CommandLine {
  const scripts = fromRoot('./package.json').scripts as Record<string, string>;
  const words = scripts[name]?.split(/\s+/) ?? [];
  if (words[0] !== 'node') throw new Error(`npm run ${name} is not a node command: ${scripts[name]}`);
  const args: string[] = [];
  for (let i = 1; i < words.length - 1; i++) {
    args.push(words[i]);
    if (words[i] === '--import') args.push(pathToFileURL(fromRoot.resolve(words[++i])).href);
  }
  args.push(entry ?? path.join(ROOT, words.at(-1)!));
  return { command: process.execPath, args };
}
