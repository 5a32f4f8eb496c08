import net from 'node:net';
import { expect } from 'chai';
import { type DelayingProxy, startDelayingProxy } from '../../../testkit/delaying-proxy';
import { waitFor } from '../../../testkit/wait-for';

/** A server that answers each chunk with `reply:` and the chunk, and records when each chunk arrived. */
async function replyingServer(): Promise<{ port: number; arrivals: number[]; close(): Promise<void> }> {
  const arrivals: number[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => {
      arrivals.push(Date.now());
      socket.write(`reply:${data.toString()}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    arrivals,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connects to the proxy and collects what comes back, with the time each piece arrived. */
async function connectTo(
  proxy: DelayingProxy,
): Promise<{ socket: net.Socket; received(length: number): Promise<{ text: string; at: number }> }> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let text = '';
  let waiting: { length: number; resolve(value: { text: string; at: number }): void } | undefined;
  socket.on('data', (data) => {
    text += data.toString();
    if (waiting && text.length >= waiting.length) waiting.resolve({ text, at: Date.now() });
  });
  return {
    socket,
    received: (length) =>
      new Promise((resolve) => {
        if (text.length >= length) resolve({ text, at: Date.now() });
        else waiting = { length, resolve };
      }),
  };
}

describe('testkit/delaying-proxy', () => {
  let server: Awaited<ReturnType<typeof replyingServer>>;
  let proxy: DelayingProxy;

  beforeEach(async () => {
    server = await replyingServer();
    proxy = await startDelayingProxy({ targetPort: server.port });
  });
  afterEach(async () => {
    await proxy.close();
    await server.close();
  });

  it('without a delay forwards both directions unchanged', async () => {
    const client = await connectTo(proxy);
    client.socket.write('ping');
    expect((await client.received('reply:ping'.length)).text).to.equal('reply:ping');
    expect(proxy.connections).to.equal(1);
    client.socket.destroy();
  });

  it('with a delay set, the request reaches the server at once and its reply arrives no sooner than the delay', async () => {
    const client = await connectTo(proxy);
    proxy.delay(300);
    const sent = Date.now();
    client.socket.write('slow');
    const reply = await client.received('reply:slow'.length);
    expect(reply.text).to.equal('reply:slow');
    expect(server.arrivals[0] - sent, 'the request was not held').to.be.below(250);
    expect(reply.at - sent, 'the reply was held').to.be.at.least(300);
    client.socket.destroy();
  });

  it('switching the delay off keeps replies in order: a later reply never overtakes a held one', async () => {
    const client = await connectTo(proxy);
    proxy.delay(200);
    client.socket.write('a');
    await waitFor(() => proxy.held === 1, { what: 'the first reply to be held' });
    proxy.delay(0);
    client.socket.write('b');
    const reply = await client.received('reply:areply:b'.length);
    expect(reply.text).to.equal('reply:areply:b');
    expect(proxy.held, 'nothing is held once delivered').to.equal(0);
    client.socket.destroy();
  });

  it('a server that closes its side ends the client after the held replies', async () => {
    const client = await connectTo(proxy);
    proxy.delay(100);
    client.socket.write('bye');
    await waitFor(() => server.arrivals.length === 1, { what: 'the request to reach the server' });
    const ended = new Promise<void>((resolve) => client.socket.once('end', () => resolve()));
    await server.close();
    await ended;
    expect((await client.received('reply:bye'.length)).text).to.equal('reply:bye');
  });
});
