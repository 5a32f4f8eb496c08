import { once } from 'node:events';
import type { Response } from 'express';

/**
 * Streams newline-delimited JSON lines as they come, waiting for the socket to drain whenever its buffer is
 * full, so that an export of any size is sent in bounded memory. A failure after the first line can no longer
 * change the status: the answer is cut short (the client sees no final newline-terminated end), and the
 * client resumes from the cursor of the last line it got.
 */
export async function writeLines(res: Response, lines: AsyncIterable<string>): Promise<void> {
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  let started = false;
  try {
    for await (const line of lines) {
      started = true;
      if (res.destroyed) return;
      if (!res.write(`${line}\n`)) await once(res, 'drain');
    }
    res.end();
  } catch (error) {
    if (!started) throw error;
    res.destroy(error as Error);
  }
}
