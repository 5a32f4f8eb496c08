import { AppError } from './app-error';

/** 413: the body is over the size limit. */
export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'payload-too-large', 'Payload too large', `The request body is over the limit of ${limitBytes} bytes.`);
  }
}
