import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppError } from '../../shared/platform/errors/app-error';
import {
  ExpectationFailedError,
  HeaderFieldsTooLargeError,
  RequestTimeoutError,
  ValidationError,
} from '../../shared/platform/errors/problems';
import { problemBody } from './problem';

/** Maps an error of Node's HTTP parser (or its timers) to the problem the client is told. */
function toProblem(error: NodeJS.ErrnoException): AppError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new HeaderFieldsTooLargeError();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeoutError();
  return new ValidationError('The request is not valid HTTP.');
}

/**
 * Requests Node refuses before Express sees them (headers over the size limit, unparseable HTTP, a request
 * that took too long, an `Expect` other than 100-continue) are answered with problem+json too, instead of
 * Node's bare status line. The parser's message is never sent: it can quote the request's bytes back.
 */
export function answerClientErrors(server: Server): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    res.writeHead(417, { 'Content-Type': 'application/problem+json; charset=utf-8', 'X-Request-Id': requestId, Connection: 'close' });
    res.end(JSON.stringify(problemBody(new ExpectationFailedError(), requestId)));
  });
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex & { _httpMessage?: ServerResponse | null }) => {
      // A reset connection has no one to answer. A keep-alive socket may be mid-way through an earlier
      // answer: writing then would corrupt it (Node's own handler makes the same check on the same field).
      const midResponse = socket._httpMessage?.headersSent === true;
      if (error.code !== 'ECONNRESET' && socket.writable && !midResponse) {
        const problem = toProblem(error);
        const requestId = randomUUID();
        const body = JSON.stringify(problemBody(problem, requestId));
        // An answer to HEAD has no body, even when the HEAD request could not be parsed to the end. The raw
        // packet is the chunk being parsed: best effort, but a bodiless HEAD nearly always arrives in one.
        const head = error.rawPacket?.toString('latin1', 0, 5) === 'HEAD ';
        socket.write(
          `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
            'Content-Type: application/problem+json; charset=utf-8\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${requestId}\r\n` +
            'Connection: close\r\n\r\n' +
            (head ? '' : body),
        );
      }
      socket.destroy();
    },
  );
}
