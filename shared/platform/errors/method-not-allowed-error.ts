import { AppError } from './app-error';

/** 405: the path exists but not with this method; `Allow` lists the methods it has. */
export class MethodNotAllowedError extends AppError {
  constructor(allowed: readonly string[]) {
    super(405, 'method-not-allowed', 'Method not allowed', `This path accepts ${allowed.join(', ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
}
