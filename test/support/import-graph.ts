import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { moduleSpecifiers } from './import-boundary';

/** Every TypeScript source under `dir` (declaration files excluded), as absolute paths. */
export function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The file a relative specifier of `from` names, as TypeScript would find it; undefined for a package. */
export function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/**
 * The files each source imports (type-only imports, re-exports, `import()`, `require()` and `import('…')`
 * types included; with `runtimeOnly`, only what the compiled module loads).
 */
export function fileImports(
  files: readonly string[],
  read = (f: string) => readFileSync(f, 'utf8'),
  runtimeOnly = false,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, read(file), ts.ScriptTarget.ES2022, true);
    const specifiers = moduleSpecifiers(sf, { runtimeOnly }).map((literal) => literal.text);
    if (!runtimeOnly) specifiers.push(...importTypeSpecifiers(sf));
    graph.set(file, [...new Set(specifiers.flatMap((specifier) => resolveRelative(file, specifier) ?? []))]);
  }
  return graph;
}

/** The specifiers of `import('…')` types (as in `typeof import('./x')`): edges only the type checker follows. */
function importTypeSpecifiers(sf: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The file graph of `files` as {@link findCycles} takes it: each file and the files it imports, type-only edges included. */
export function fileGraph(files: readonly string[], read = (f: string) => readFileSync(f, 'utf8')): Map<string, Set<string>> {
  return new Map([...fileImports(files, read)].map(([file, targets]) => [file, new Set(targets)]));
}

/** Collapses a file graph into a graph of groups (`group` names a file's group); edges inside a group are dropped. */
export function groupGraph(
  files: ReadonlyMap<string, readonly string[]>,
  group: (file: string) => string | undefined,
): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = group(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = group(target);
      if (to === undefined || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/**
 * Every cycle a depth-first walk meets, each as the list of its nodes with the first repeated at the end. A
 * graph has a cycle exactly when such a walk meets an edge back to a node still open, so an empty answer means
 * none; each group of nodes caught in cycles is named at least once.
 */
export function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * The files `entry` loads, itself included, following relative imports (type-only ones too, unless
 * `runtimeOnly`: then only what the compiled process loads).
 */
export function importClosure(entry: string, read = (f: string) => readFileSync(f, 'utf8'), runtimeOnly = false): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(fileImports([file], read, runtimeOnly).get(file) ?? []));
  }
  return seen;
}
