import { AppError } from './app-error';

/** 431: the request's headers (a token included) are over the HTTP server's header size limit. */
export class HeaderFieldsTooLargeError extends AppError {
  constructor() {
    super(431, 'header-fields-too-large', 'Request header fields too large', 'The request headers are over the size limit.');
  }
}
