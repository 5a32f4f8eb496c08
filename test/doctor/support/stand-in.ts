import http from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolName } from '../../../shared/contract/mcp/tool-definitions';
import { listen } from '../../../shared/platform/lifecycle/listen';

/** What a stand-in gets wrong on purpose; nothing set means a connector that follows the contract. */
export interface Breakage {
  /** Rewrites the published /openapi.json before it is served. */
  document?: (document: Record<string, any>) => void;
  /** A tool that /mcp leaves out of tools/list. */
  omitTool?: string;
  /** The issuer the authorization-server metadata claims. */
  issuer?: string;
  /** The authorize endpoint goes ahead without a code_challenge. */
  authorizeWithoutPkce?: boolean;
}

/** A stand-in listening on a free port, in front of a real connector. */
export interface StandIn {
  readonly url: string;
  /** Points the stand-in at the connector it fronts (known only after the connector starts with this URL). */
  setUpstream(url: string): void;
  close(): Promise<void>;
}

/**
 * A connector's public face for the doctor's tests: everything is proxied to a real connector except
 * what the contract adds on top of it (/mcp, the OAuth metadata and endpoints), which the stand-in serves
 * itself from the contract, and whatever `breakage` deliberately gets wrong.
 */
export async function startStandIn(breakage: Breakage = {}): Promise<StandIn> {
  let upstream = '';
  let publicUrl = '';
  const mcp = createMcpHandler(async () => {
    const document = (await (await fetch(`${upstream}/openapi.json`)).json()) as Record<string, any>;
    const server = new McpServer({ name: 'stand-in', version: '1.0.0' });
    for (const item of Object.values<Record<string, any>>(document.paths)) {
      for (const operation of Object.values<Record<string, any>>(item)) {
        const name = toolName(operation.operationId);
        if (name === breakage.omitTool) continue;
        server.registerTool(
          name,
          { title: operation.summary, description: operation.description, inputSchema: z.object({}) },
          async () => ({
            content: [{ type: 'text', text: '{}' }],
          }),
        );
      }
    }
    return server;
  });

  const routes: Record<string, (req: http.IncomingMessage, body: Buffer) => Promise<Response>> = {
    'GET /openapi.json': async () => {
      const document = (await (await fetch(`${upstream}/openapi.json`)).json()) as Record<string, any>;
      breakage.document?.(document);
      return Response.json(document);
    },
    'POST /mcp': async (req, body) => {
      // The connector's own tokens: the stand-in asks the connector who a token is, so revoked ones fail too.
      const authorization = req.headers.authorization ?? '';
      const me = authorization ? await fetch(`${upstream}/v1/me`, { headers: { authorization } }) : undefined;
      if (me?.status !== 200) {
        return new Response(null, {
          status: 401,
          headers: { 'www-authenticate': `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource"` },
        });
      }
      return mcp.fetch(new Request(`${publicUrl}/mcp`, { method: 'POST', headers: toHeaders(req), body: new Uint8Array(body) }));
    },
    'GET /.well-known/oauth-protected-resource': async () =>
      Response.json({ resource: publicUrl, authorization_servers: [publicUrl], bearer_methods_supported: ['header'] }),
    'GET /.well-known/oauth-authorization-server': async () =>
      Response.json({
        issuer: breakage.issuer ?? publicUrl,
        authorization_endpoint: `${publicUrl}/oauth/authorize`,
        token_endpoint: `${publicUrl}/oauth/token`,
        registration_endpoint: `${publicUrl}/oauth/register`,
        revocation_endpoint: `${publicUrl}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
      }),
    'POST /oauth/register': async () => Response.json({ client_id: `client_${Date.now()}`, redirect_uris: [] }, { status: 201 }),
    'GET /oauth/authorize': async (req) => {
      const query = new URL(req.url!, publicUrl).searchParams;
      if (!query.get('code_challenge') && !breakage.authorizeWithoutPkce) {
        return Response.json({ error: 'invalid_request', error_description: 'code_challenge is required' }, { status: 400 });
      }
      return new Response(null, { status: 302, headers: { location: 'https://dashboard.example.com/connect?request=req_1' } });
    },
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = new URL(req.url!, 'http://stand-in').pathname;
      // The document is the connector's own unless this stand-in is there to break it.
      const route = path === '/openapi.json' && !breakage.document ? undefined : routes[`${req.method} ${path}`];
      const answer = route ? route(req, body) : proxy(req, body);
      answer.then(
        async (response) => {
          const headers: Record<string, string> = {};
          response.headers.forEach((value, key) => {
            if (!['content-encoding', 'transfer-encoding', 'connection', 'content-length'].includes(key)) headers[key] = value;
          });
          res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
        },
        () => res.writeHead(502).end(),
      );
    });
  });

  const proxy = (req: http.IncomingMessage, body: Buffer): Promise<Response> =>
    fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers: toHeaders(req),
      body: ['GET', 'HEAD'].includes(req.method!) ? undefined : new Uint8Array(body),
      redirect: 'manual',
    });

  const port = await listen(server, 0);
  publicUrl = `http://127.0.0.1:${port}`;
  return {
    url: publicUrl,
    setUpstream: (url) => {
      upstream = url;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function toHeaders(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(key)) headers.set(key, value);
  }
  return headers;
}
