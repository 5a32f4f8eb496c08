import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '../../../shared/operations/operation';
import { ROOT } from '../../support/spawn-process';
import { readMarkdown } from './markdown';

/** The guide that holds the worked example, and the marker of its operation file. */
export const WORKED_EXAMPLE_PAGE = path.join(ROOT, 'docs', 'building-operations.md');
const MARKER = /^worked-example:\s*(\S+)$/;

/** The worked example's source as the guide shows it, and the repository path it is meant for. */
export function workedExampleSource(): { file: string; code: string } {
  const blocks = readMarkdown(WORKED_EXAMPLE_PAGE).blocks.filter((block) => block.comment && MARKER.test(block.comment));
  if (blocks.length !== 1) throw new Error(`expected one worked-example block in ${WORKED_EXAMPLE_PAGE}, found ${blocks.length}`);
  return { file: MARKER.exec(blocks[0].comment!)![1], code: blocks[0].code };
}

/**
 * Loads the worked example's operation exactly as printed in the guide: the block is written to a temporary
 * folder, with its relative imports pointed at the repository's folder it names, and loaded (tsx compiles
 * it). Returns the operation and a cleanup that removes the folder.
 */
export function loadWorkedExample(): { operation: Operation; file: string; source: string; cleanup(): void } {
  const { file, code } = workedExampleSource();
  const home = path.dirname(path.join(ROOT, file));
  const rewritten = code.replace(/(from\s+')(\.{1,2}\/[^']+)(')/g, (_all, before: string, specifier: string, after: string) => {
    return before + path.resolve(home, specifier) + after;
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worked-example-'));
  const target = path.join(dir, path.basename(file));
  writeFileSync(target, rewritten);
  const exports = require(target) as Record<string, unknown>;
  const operations = Object.values(exports).filter((value): value is Operation => typeof value === 'object' && value !== null && 'operationId' in value);
  if (operations.length !== 1) throw new Error(`the worked example should export one operation, found ${operations.length}`);
  return { operation: operations[0], file, source: code, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
