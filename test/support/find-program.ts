import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** True when `file` is a regular file this user may execute (a directory named like a program is not one). */
export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Where `spawn(name)` would find `name` on `searchPath` (PATH's syntax), or undefined. Looked up in the file
 * system rather than by running `command -v`, so that a check of five programs costs no process at all.
 */
export function findProgram(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    // An empty entry means the current directory to a shell; the tests never rely on that.
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
