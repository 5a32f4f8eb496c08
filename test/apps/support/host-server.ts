import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';

/** The harness's own origin: the host page and its script, and nothing else. */
export interface HostServer {
  /** `http://127.0.0.1:<port>`, the only origin the browser may reach. */
  readonly origin: string;
  close(): Promise<void>;
}

/** The width of the chat column the card is shown in, in CSS pixels. */
export const COLUMN_WIDTH = 320;

/** Bundles host-page.ts, with the AppBridge from the repository's node_modules, into one browser script. */
async function bundleHostPage(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(__dirname, 'browser', 'host-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MCP Apps test host</title>
<style>
  body { margin: 0; padding: 12px; }
  #column { width: ${COLUMN_WIDTH}px; }
  #card { display: block; width: 100%; height: 200px; border: 0; }
</style>
</head>
<body><main id="column"></main><script src="/host.js"></script></body>
</html>
`;

/** Serves the host page at `/` and its bundle at `/host.js` on a free loopback port. */
export async function startHostServer(): Promise<HostServer> {
  const script = await bundleHostPage();
  const server: Server = createServer((req, res) => {
    const [type, body] =
      req.url === '/' ? ['text/html; charset=utf-8', PAGE] : req.url === '/host.js' ? ['text/javascript; charset=utf-8', script] : [];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
