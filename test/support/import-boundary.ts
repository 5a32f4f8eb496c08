import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One module a file imports from outside the folders it may depend on. */
export interface ForbiddenImport {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
}

/**
 * Every module specifier of a source: imports, re-exports, `import x = require()`, `import()` and `require()`.
 * With `runtimeOnly`, the imports TypeScript erases are left out (`import type`, `export type`, and imports
 * whose every name is a `type` one): what the compiled module really loads.
 */
export function moduleSpecifiers(sf: ts.SourceFile, { runtimeOnly = false }: { runtimeOnly?: boolean } = {}): ts.StringLiteralLike[] {
  const found: ts.StringLiteralLike[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      if (!(runtimeOnly && typeOnly(node))) found.push(node.moduleSpecifier);
    } else if (ts.isExternalModuleReference(node) && ts.isStringLiteralLike(node.expression)) {
      found.push(node.expression);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        found.push(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** True for an import or export TypeScript erases: every name it brings in is a type. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/**
 * Reports the relative imports of `files` that resolve outside the `allowed` folders (absolute paths). Bare
 * specifiers are packages and are not reported; the repository has no path aliases.
 */
export function findForbiddenImports(
  root: string,
  files: readonly string[],
  allowed: readonly string[],
  read = (f: string) => readFileSync(f, 'utf8'),
): ForbiddenImport[] {
  const inside = (target: string) => allowed.some((dir) => target === dir || target.startsWith(dir + path.sep));
  const found: ForbiddenImport[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, read(file), ts.ScriptTarget.ES2022, true);
    for (const literal of moduleSpecifiers(sf)) {
      const specifier = literal.text;
      if (!specifier.startsWith('.')) continue;
      if (inside(path.resolve(path.dirname(file), specifier))) continue;
      const line = sf.getLineAndCharacterOfPosition(literal.getStart(sf)).line + 1;
      found.push({ file: path.relative(root, file), line, specifier });
    }
  }
  return found;
}
