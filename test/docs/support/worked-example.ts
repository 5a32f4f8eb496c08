import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '../../../shared/contract/operations/operation';
import { readMarkdown } from '../../support/markdown';
import { ROOT } from '../../support/spawn-process';

/** The guide that holds the worked example, and the marker of each of its files. */
export const WORKED_EXAMPLE_PAGE = path.join(ROOT, 'docs', 'building-operations.md');
const MARKER = /^worked-example:\s*(\S+)$/;

/** One file of the worked example as the guide shows it, and the repository path it is meant for. */
export interface WorkedExampleFile {
  readonly file: string;
  readonly code: string;
}

/** The worked example's files (domain functions, jobs and operations), in the guide's order. */
export function workedExampleSources(): WorkedExampleFile[] {
  return markedSources(MARKER, 'worked-example');
}

/**
 * The worked example as a later section of the guide changes it: each block marked `<!-- <marker>: <path> -->`
 * replaces the worked example's file of that path (e.g. `events-example`, the report job with its own events).
 */
export function variantSources(marker: string): WorkedExampleFile[] {
  const variant = markedSources(new RegExp(`^${marker}:\\s*(\\S+)$`), marker);
  return workedExampleSources().map((source) => variant.find(({ file }) => file === source.file) ?? source);
}

function markedSources(pattern: RegExp, name: string): WorkedExampleFile[] {
  const blocks = readMarkdown(WORKED_EXAMPLE_PAGE).blocks.filter((block) => block.comment && pattern.test(block.comment));
  if (blocks.length === 0) throw new Error(`expected ${name} blocks in ${WORKED_EXAMPLE_PAGE}, found none`);
  return blocks.map((block) => ({ file: pattern.exec(block.comment!)![1], code: block.code }));
}

/**
 * Loads the worked example exactly as printed in the guide: each block is written to a temporary folder at
 * the path it names, its relative imports pointed at the repository's folder (or at another block of the
 * example) and its packages at the repository's, and every file is loaded (tsx compiles it). Returns the operations the blocks export, in the
 * guide's order, the printed files, and a cleanup that removes the folder.
 */
export function loadWorkedExample(files: WorkedExampleFile[] = workedExampleSources()): {
  operations: Operation[];
  files: WorkedExampleFile[];
  /** What the block printed as `file` exports, as loaded. */
  exportsOf(file: string): Record<string, unknown>;
  cleanup(): void;
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worked-example-'));
  const inExample = new Map(
    files.map(({ file }) => [path.join(ROOT, file).replace(/\.ts$/, ''), path.join(dir, file).replace(/\.ts$/, '')]),
  );
  for (const { file, code } of files) {
    const home = path.dirname(path.join(ROOT, file));
    const rewritten = code.replace(/(from\s+')([^']+)(')/g, (_all, before: string, specifier: string, after: string) => {
      // A package resolves from the repository (the folder has no node_modules), so it is the very module it uses.
      if (!specifier.startsWith('.'))
        return before + (specifier.startsWith('node:') ? specifier : require.resolve(specifier, { paths: [ROOT] })) + after;
      const target = path.resolve(home, specifier);
      return before + (inExample.get(target) ?? target) + after;
    });
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), rewritten);
  }
  const exportsOf = (file: string) => require(path.join(dir, file)) as Record<string, unknown>;
  const operations = files.flatMap(({ file }) => {
    const exports = exportsOf(file);
    return Object.values(exports).filter(
      (value): value is Operation => typeof value === 'object' && value !== null && 'path' in value && 'handle' in value,
    );
  });
  if (operations.length === 0) throw new Error('the worked example exports no operation');
  return { operations, files, exportsOf, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
