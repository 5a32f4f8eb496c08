import type { Socket } from 'node:net';

/**
 * Makes every write a socket receives during one turn of the event loop go out in one system call. The
 * first write of a turn corks the socket and the check phase (`setImmediate`, after every I/O callback of
 * the turn has run) uncorks it, so the buffered commands leave together in one `writev`, in the order they
 * were written.
 *
 * Why: under load the API handles many requests per turn, each sending its own Redis command, and on
 * loopback a socket write costs about as much CPU as the rest of the command (the kernel delivers the
 * segment on the sender's time). Coalescing cut the API's CPU per `GET /v1/me` by about a sixth
 * (bench/README.md). Unlike ioredis's auto-pipelining, it adds no per-command bookkeeping: commands, replies
 * and timeouts are the client's as before; only the bytes wait, and never past the current turn.
 */
export function coalesceWrites(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const flush = (): void => {
    corked = false;
    socket.uncork();
  };
  socket.write = function coalescedWrite(this: Socket, ...args: Parameters<Socket['write']>): boolean {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return (write as (...a: Parameters<Socket['write']>) => boolean).apply(socket, args);
  } as Socket['write'];
}
