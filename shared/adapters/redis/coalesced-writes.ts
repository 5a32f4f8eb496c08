import type { Socket } from 'node:net';

/**
 * Makes every write a socket receives during one turn of the event loop go out in one system call. The
 * first write of a turn corks the socket and the check phase (`setImmediate`, after every I/O callback of
 * the turn has run) uncorks it, so the buffered commands leave together in one `writev`, in the order they
 * were written.
 * Under load a socket write costs about as much CPU as the rest of a command (figures: bench/README.md).
 * Unlike ioredis's auto-pipelining it adds no per-command bookkeeping; only the bytes wait, never past the turn.
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
