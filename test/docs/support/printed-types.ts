import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../support/spawn-process';
import type { WorkedExampleFile } from './worked-example';

/*
 * Type-checks several sets of printed files (the worked example, a variant of it) against the repository in ONE
 * TypeScript program: the repository's files, zod's and viem's types among them, are parsed and checked once
 * however many sets there are, where a program per set cost as much again each time (about 15 s apiece on a
 * loaded CI). Two sets may print the same path, so each set's files live in a folder of their own that nothing
 * on disk has; an import is resolved from the place the file names, exactly as it would be there, and lands on
 * the same set's file when it names one of the set's paths.
 */

/** Where a set's files live in the program: a folder under the repository, so packages resolve as from it. */
const VIRTUAL = path.join(ROOT, '.printed-types');

/** The folder of the set named `set`. */
const setFolder = (set: string) => path.join(VIRTUAL, set);

/** Each set's diagnostics, as "<printed path>: <message>", in the order the files were given. */
export type PrintedDiagnostics<Set extends string> = Record<Set, string[]>;

/** Type-checks each set of printed files as the files they name, with the repository's compiler options. */
export function printedDiagnostics<Set extends string>(sets: Record<Set, readonly WorkedExampleFile[]>): PrintedDiagnostics<Set> {
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const options = { ...ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options, noEmit: true };
  const entries = Object.entries(sets) as Array<[Set, readonly WorkedExampleFile[]]>;
  const virtual = new Map(entries.flatMap(([set, files]) => files.map(({ file, code }) => [path.join(setFolder(set), file), code])));
  const program = ts.createProgram([...virtual.keys()], options, printedHost(options, entries, virtual));
  const general = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((d) => message('', d));
  const result = {} as PrintedDiagnostics<Set>;
  for (const [set, files] of entries) {
    result[set] = [
      ...general,
      ...files.flatMap(({ file }) => {
        const source = program.getSourceFile(path.join(setFolder(set), file))!;
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => message(file, d));
      }),
    ];
  }
  return result;
}

const message = (file: string, d: ts.Diagnostic) => `${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;

/**
 * A compiler host that serves the printed files from memory and resolves their imports from the paths they
 * name; every other file (the repository's, the packages') is read and resolved as tsc would.
 */
function printedHost(
  options: ts.CompilerOptions,
  entries: ReadonlyArray<readonly [string, readonly WorkedExampleFile[]]>,
  virtual: ReadonlyMap<string, string>,
): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const [readFile, fileExists] = [host.readFile.bind(host), host.fileExists.bind(host)];
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  const cache = ts.createModuleResolutionCache(ROOT, host.getCanonicalFileName, options);
  const bySet = new Map(entries.map(([set, files]) => [setFolder(set), setResolver(options, set, files)]));
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions, sourceFile) => {
    const printed = bySet.get(setOf(containingFile));
    return literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(sourceFile, literal, compilerOptions);
      return printed
        ? printed(literal.text, containingFile, mode)
        : ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected, mode);
    });
  };
  return host;
}

/** The set folder a file of the program lies in, or '' for the repository's own. */
function setOf(file: string): string {
  if (!file.startsWith(`${VIRTUAL}${path.sep}`)) return '';
  return path.join(VIRTUAL, file.slice(VIRTUAL.length + 1).split(path.sep)[0]);
}

/**
 * Resolves a printed file's import as from the path the file names (the set's files taken as present there,
 * in folders the repository may not have yet), then moves a hit on one of the set's paths into its folder.
 */
function setResolver(options: ts.CompilerOptions, set: string, files: readonly WorkedExampleFile[]) {
  const named = new Set(files.map(({ file }) => path.join(ROOT, file)));
  const resolution: ts.ModuleResolutionHost = {
    ...ts.sys,
    fileExists: (name) => named.has(name) || ts.sys.fileExists(name),
    directoryExists: (name) => [...named].some((file) => file.startsWith(`${name}${path.sep}`)) || ts.sys.directoryExists(name),
  };
  return (specifier: string, containingFile: string, mode: ts.ResolutionMode): ts.ResolvedModuleWithFailedLookupLocations => {
    const asNamed = path.join(ROOT, path.relative(setFolder(set), containingFile));
    const resolved = ts.resolveModuleName(specifier, asNamed, options, resolution, undefined, undefined, mode);
    const target = resolved.resolvedModule?.resolvedFileName;
    if (!target || !named.has(target)) return resolved;
    return {
      ...resolved,
      resolvedModule: { ...resolved.resolvedModule!, resolvedFileName: path.join(setFolder(set), path.relative(ROOT, target)) },
    };
  };
}
