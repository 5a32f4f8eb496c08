import type { Response } from 'express';

/** A stand-in for an Express response that keeps the headers set on it and the body it ended with. */
export interface RecordingResponse {
  /** The response to hand to the code under test. */
  res: Response;
  /** Headers set so far, names in lower case. */
  headers: Map<string, unknown>;
  /** The body passed to `end`, or undefined while the response is open. */
  body(): string | undefined;
}

/** A response that records `setHeader`, `getHeader` and `end`, for unit tests of code that writes answers. */
export function recordingResponse(): RecordingResponse {
  const headers = new Map<string, unknown>();
  let ended: string | undefined;
  const res = {
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    end: (chunk?: string) => {
      ended = chunk ?? '';
    },
  };
  return { res: res as unknown as Response, headers, body: () => ended };
}
