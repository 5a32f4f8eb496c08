import type { NextFunction, Request, Response } from 'express';
import type { Operation } from '../../shared/contract/operations/operation';
import { MethodNotAllowedError, NotFoundError } from '../../shared/platform/errors/problems';
import { state } from '../http/locals';

interface CompiledPath {
  template: string;
  pattern: RegExp;
  names: string[];
  byMethod: Map<string, Operation>;
}

/** Compiles the registry's path templates once; `{name}` matches one non-empty segment. */
function compile(operations: readonly Operation[]): CompiledPath[] {
  const paths = new Map<string, CompiledPath>();
  for (const operation of operations) {
    let compiled = paths.get(operation.path);
    if (!compiled) {
      const names: string[] = [];
      const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      compiled = { template: operation.path, pattern: new RegExp(`^${source}$`), names, byMethod: new Map() };
      paths.set(operation.path, compiled);
    }
    compiled.byMethod.set(operation.method.toUpperCase(), operation);
  }
  return [...paths.values()];
}

/**
 * Finds the registry operation for the request: 404 for an unknown path, 405 with `Allow` for a known path
 * with another method. This is the only routing: the registry is the route table.
 */
export function matchOperation(operations: readonly Operation[]) {
  const compiled = compile(operations);
  return (req: Request, res: Response, next: NextFunction): void => {
    for (const path of compiled) {
      const match = path.pattern.exec(req.path);
      if (!match) continue;
      const locals = state(res);
      locals.route = path.template;
      const operation = path.byMethod.get(req.method);
      if (!operation) return next(new MethodNotAllowedError([...path.byMethod.keys()].sort()));
      const params: Record<string, string> = {};
      try {
        path.names.forEach((name, i) => {
          params[name] = decodeURIComponent(match[i + 1]);
        });
      } catch {
        return next(new NotFoundError());
      }
      locals.operation = operation;
      locals.params = params;
      return next();
    }
    next(new NotFoundError());
  };
}
