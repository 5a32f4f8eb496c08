import express, { type NextFunction, type Request, type Response } from 'express';
import { UnsupportedMediaTypeError } from '../../shared/errors/unsupported-media-type-error';
import { BODY_LIMIT_BYTES } from '../http/problem';

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: 'application/json' });

/** Parses JSON bodies up to 64 KiB; any other body is a 415 before a byte of it is read. */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) return next();
  if (!req.is('application/json')) return next(new UnsupportedMediaTypeError());
  parseJson(req, res, next);
}
