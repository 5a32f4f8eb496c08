import express from 'express';

// The baseline: Express 5 answering a bare JSON route, nothing else.
const app = express();
app.get('/bare', (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as import('node:net').AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
