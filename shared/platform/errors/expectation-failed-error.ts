import { AppError } from './app-error';

/** 417: the request's `Expect` header asks for something other than `100-continue`. */
export class ExpectationFailedError extends AppError {
  constructor() {
    super(417, 'expectation-failed', 'Expectation failed', 'The only supported Expect value is 100-continue.');
  }
}
