import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { sourcesUnder } from '../support/import-graph';
import { ROOT } from '../support/spawn-process';

/** The folders of the product; `test/` and `examples/` may take what they like. */
const PRODUCT = ['api', 'worker', 'shared', 'doctor', 'scripts'];
/** More than this many positional parameters calls for one options or dependencies object. */
const MOST_PARAMETERS = 4;

/** A function-like node's name as a reader finds it: its own, its variable's or property's, or its class's for a constructor. */
function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node) || ts.isConstructSignatureDeclaration(node)) {
    const owner = node.parent as ts.ClassLikeDeclaration | ts.InterfaceDeclaration;
    return `${owner.name?.text ?? '(class)'}.constructor`;
  }
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(sf);
  }
  return '(anonymous)';
}

/** Its parameters as a caller passes them: TypeScript's `this` parameter is no argument; a rest parameter is one. */
const positional = (node: ts.SignatureDeclaration) =>
  node.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this')).length;

/**
 * Every function, method, arrow function, constructor or signature of a source that takes more than
 * {@link MOST_PARAMETERS} positional parameters, as `file:line:name (count)`.
 */
function tooManyParameters(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && positional(node) > MOST_PARAMETERS) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      found.push(`${path.relative(ROOT, file)}:${line}:${nameOf(node, sf)} (${positional(node)})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('positional parameters of the product', () => {
  it('no function, method, arrow function or constructor of api/, worker/, shared/, doctor/ or scripts/ takes more than 4', () => {
    const files = PRODUCT.flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));
    expect(files.length, 'sources scanned').to.be.greaterThan(200);
    expect(files.flatMap((file) => tooManyParameters(file, readFileSync(file, 'utf8')))).to.deep.equal([]);
  });

  it('the check names each kind of function past 4 parameters by file, line and name, and passes 4, a rest parameter and `this`', () => {
    const source = [
      'export function declared(a: 1, b: 2, c: 3, d: 4, e: 5) {}',
      'const arrow = (a: 1, b: 2, c: 3, d: 4, e: 5) => a;',
      'const handlers = { expressed: function (a: 1, b: 2, c: 3, d: 4, e: 5) {} };',
      'class Store {',
      '  constructor(a: 1, b: 2, c: 3, d: 4, e: 5) {}',
      '  method(a: 1, b: 2, c: 3, d: 4, e: 5) {}',
      '}',
      'interface Port { send(a: 1, b: 2, c: 3, d: 4, e: 5): void }',
      'export function four(a: 1, b: 2, c: 3, d: 4) {}',
      'export function rest(a: 1, b: 2, c: 3, ...more: 4[]) {}',
      'export function bound(this: Store, a: 1, b: 2, c: 3, d: 4) {}',
      'void [arrow, handlers];',
    ].join('\n');
    expect(tooManyParameters(path.join(ROOT, 'shared', 'x.ts'), source)).to.deep.equal([
      'shared/x.ts:1:declared (5)',
      'shared/x.ts:2:arrow (5)',
      'shared/x.ts:3:expressed (5)',
      'shared/x.ts:5:Store.constructor (5)',
      'shared/x.ts:6:method (5)',
      'shared/x.ts:8:send (5)',
    ]);
  });
});
