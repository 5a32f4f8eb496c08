import { AppError } from './app-error';

/** 415: a body that is not `application/json`. */
export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(415, 'unsupported-media-type', 'Unsupported media type', 'Send the body as application/json.');
  }
}
