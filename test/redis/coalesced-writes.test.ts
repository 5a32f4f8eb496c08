import net from 'node:net';
import { expect } from 'chai';
import { coalesceWrites } from '../../shared/adapters/redis/coalesced-writes';
import { connectStoreClient, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('coalesced socket writes (coalesceWrites)', () => {
  let server: net.Server;
  let received = '';
  let socket: net.Socket;

  before(async () => {
    server = net.createServer((peer) => peer.on('data', (chunk) => (received += chunk.toString('utf8'))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    coalesceWrites(socket);
  });
  after(async () => {
    socket?.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('writes of one event-loop turn are held together and leave in their order once the turn ends', async () => {
    socket.write('a');
    socket.write(Buffer.from('b'));
    socket.write('c', 'utf8');
    expect(socket.writableCorked).to.equal(1);
    expect(socket.writableLength).to.equal(3);
    await nextTurn();
    expect(socket.writableCorked).to.equal(0);
    await waitFor(() => received === 'abc', { what: 'the three writes to arrive' });
  });

  it('a write in a later turn is held anew and its callback still runs once it is written', async () => {
    let written = false;
    socket.write('d', () => (written = true));
    expect(socket.writableCorked).to.equal(1);
    await waitFor(() => written && received === 'abcd', { what: 'the later write and its callback' });
    expect(socket.writableCorked).to.equal(0);
  });
});

describe('the API’s commands client coalesces its writes, on a private redis-server', () => {
  let redis: TestRedis;
  let store: StoreClient;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'cw:');
  });
  after(async () => {
    await store?.close();
    await redis?.stop();
  });

  it('200 commands sent in one turn each get their own reply, in order', async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, () => store.client.incr('cw:counter')));
    expect(replies).to.deep.equal(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('a command is held until the turn ends, on the first connection and on the one after a reconnect', async () => {
    const first = store.client.stream;
    const ping = store.client.ping();
    expect(first.writableCorked).to.equal(1);
    expect(await ping).to.equal('PONG');

    const admin = await connectStoreClient(redis.url, 'cw-admin:');
    try {
      await admin.client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await waitFor(
        async () => store.client.status === 'ready' && store.client.stream !== first && (await store.client.ping()) === 'PONG',
        {
          what: 'the client to reconnect on a new socket',
        },
      );
    } finally {
      await admin.close();
    }
    const again = store.client.ping();
    expect(store.client.stream.writableCorked).to.equal(1);
    expect(await again).to.equal('PONG');
  });
});
