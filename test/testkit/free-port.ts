import net from 'node:net';

/**
 * Every port this process handed out: the kernel may offer a port again as soon as it is closed, before the
 * process it was meant for has bound it, so two listeners started side by side could be given one port.
 */
const handedOut = new Set<number>();

/** Asks the kernel for a free TCP port on the loopback interface, never one this process handed out before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `count` distinct free ports (the kernel may hand the same one out twice in a row once it is closed). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** A free port other than `taken`, for a second listener of the process that will bind `taken`. */
export async function freePortBeside(taken: number): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port !== taken) return port;
  }
}
