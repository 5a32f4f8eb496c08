import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One place where a source file names a path that lies outside the repository. */
export interface OutsidePath {
  readonly file: string;
  readonly line: number;
  readonly resolved: string;
}

type Env = Map<string, string>;

const PATH_CALLS = new Set(['resolve', 'join']);

/**
 * Statically evaluates the path expressions of TypeScript/JavaScript sources (`path.resolve`/`path.join` over
 * string literals, `__dirname` and constants built the same way, also across imports between the scanned files)
 * and string literals that start with `../`, and reports those that land outside `root`. A user's clone has
 * nothing beside it, so no test or script may read there. Expressions it cannot evaluate are not reported.
 */
export function findOutsidePaths(root: string, files: readonly string[], read = (f: string) => readFileSync(f, 'utf8')): OutsidePath[] {
  const sources = new Map(files.map((f) => [f, ts.createSourceFile(f, read(f), ts.ScriptTarget.ES2022, true)]));
  const exported = new Map<string, Env>();
  const found: OutsidePath[] = [];

  const envOf = (file: string, seen: Set<string>): Env => {
    const cached = exported.get(file);
    if (cached) return cached;
    const env: Env = new Map();
    exported.set(file, env);
    const sf = sources.get(file);
    if (!sf || seen.has(file)) return env;
    seen.add(file);
    for (const stmt of sf.statements) {
      if (ts.isImportDeclaration(stmt) && ts.isStringLiteral(stmt.moduleSpecifier) && stmt.importClause?.namedBindings) {
        const target = resolveModule(file, stmt.moduleSpecifier.text, sources);
        const bindings = stmt.importClause.namedBindings;
        if (target && ts.isNamedImports(bindings)) {
          const theirs = envOf(target, seen);
          for (const el of bindings.elements) {
            const value = theirs.get((el.propertyName ?? el.name).text);
            if (value !== undefined) env.set(el.name.text, value);
          }
        }
      }
      if (ts.isVariableStatement(stmt)) {
        for (const decl of stmt.declarationList.declarations) {
          if (ts.isIdentifier(decl.name) && decl.initializer) {
            const value = evaluate(root, decl.initializer, file, env);
            if (value !== undefined) env.set(decl.name.text, value);
          }
        }
      }
    }
    return env;
  };

  for (const [file, sf] of sources) {
    const env = envOf(file, new Set());
    const report = (node: ts.Node, resolved: string) => {
      if (isOutside(root, resolved)) {
        found.push({ file: path.relative(root, file), line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, resolved });
      }
    };
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isPathCall(node)) {
        const value = evaluate(root, node, file, env);
        if (value !== undefined) report(node, path.resolve(root, value));
        return;
      }
      if (ts.isStringLiteralLike(node) && /^\.\.\/[\w.]/.test(node.text) && !isModuleSpecifier(node)) {
        // A relative path in a read runs against the working directory, which is the repository root.
        report(node, path.resolve(root, node.text));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

/** Shell lines that climb above the script's repository root: any `..` segment beyond `$(dirname …)/..`. */
export function findOutsideShellPaths(
  root: string,
  files: readonly string[],
  read = (f: string) => readFileSync(f, 'utf8'),
): OutsidePath[] {
  const found: OutsidePath[] = [];
  for (const file of files) {
    read(file)
      .split('\n')
      .forEach((text, i) => {
        const code = text.replace(/#.*$/, '').replace(/\$\(dirname [^)]*\)\/\.\./g, 'ROOT');
        if (/(^|[\s"'=/])\.\.(\/|$|["'\s])/.test(code)) {
          found.push({ file: path.relative(root, file), line: i + 1, resolved: text.trim() });
        }
      });
  }
  return found;
}

function isOutside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

function isPathCall(node: ts.CallExpression): boolean {
  const callee = node.expression;
  if (ts.isPropertyAccessExpression(callee)) {
    return ts.isIdentifier(callee.expression) && callee.expression.text === 'path' && PATH_CALLS.has(callee.name.text);
  }
  return false;
}

function isModuleSpecifier(node: ts.StringLiteralLike): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent)) return true;
  if (ts.isImportTypeNode(parent.parent ?? parent)) return true;
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression;
    return callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
  }
  return false;
}

function evaluate(root: string, node: ts.Expression, file: string, env: Env): string | undefined {
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isIdentifier(node)) return node.text === '__dirname' ? path.dirname(file) : env.get(node.text);
  if (ts.isParenthesizedExpression(node)) return evaluate(root, node.expression, file, env);
  if (ts.isCallExpression(node) && isPathCall(node)) {
    const parts: string[] = [];
    for (const arg of node.arguments) {
      const value = evaluate(root, arg, file, env);
      if (value === undefined) return undefined;
      parts.push(value);
    }
    const name = (node.expression as ts.PropertyAccessExpression).name.text;
    // Relative results are taken against the working directory, which is the repository root.
    return name === 'join' ? path.join(...parts) : path.resolve(root, ...parts);
  }
  return undefined;
}

function resolveModule(from: string, spec: string, sources: Map<string, unknown>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.ts`, `${base}.js`, path.join(base, 'index.ts')].find((c) => sources.has(c));
}
