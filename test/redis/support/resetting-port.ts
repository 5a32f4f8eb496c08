import net from 'node:net';

/** A port that takes every connection and resets it, counting the attempts by the client's connection name. */
export interface ResettingPort {
  /** Connections reset so far from clients that named themselves `name` (CLIENT SETNAME, as ioredis does first). */
  attempts(name: string): number;
  /** Stops listening and resets whatever is still open, so that a redis-server can take the port again. */
  close(): Promise<void>;
}

/** The name in a `CLIENT SETNAME <name>` command of the RESP a client sent (the bulk string after SETNAME). */
const SETNAME = /\$7\r\nSETNAME\r\n\$\d+\r\n([^\r]*)\r\n/i;

/**
 * Listens on 127.0.0.1:`port` (a redis-server that was just killed frees it) and answers each connection with
 * a TCP reset once the client has named itself, or at its first data when it sends no name: every reconnect
 * attempt then fails visibly and is counted, which a refused port cannot tell a test.
 */
export async function resetConnectionsOn(port: number): Promise<ResettingPort> {
  const counts = new Map<string, number>();
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const name = SETNAME.exec(received)?.[1];
      // ioredis sends its name among the first commands; other data without one is not waited on further.
      if (name === undefined && !/SETINFO|INFO|PING|HELLO|AUTH|SELECT/i.test(received)) return;
      counts.set(name ?? '', (counts.get(name ?? '') ?? 0) + 1);
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    attempts: (name) => counts.get(name) ?? 0,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of open) socket.resetAndDestroy();
      await closed;
    },
  };
}
