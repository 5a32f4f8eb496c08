import type { NextFunction, Request, Response } from 'express';
import { state } from './locals';

/**
 * Marks a request as one for an OAuth endpoint: its route label, no caching, and CORS for any origin (MCP
 * Inspector and other browser-based clients call these across origins; none of them uses cookies). A
 * preflight is answered here.
 */
export function oauthEndpoint(route: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    state(res).route = route;
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    if (req.method !== 'OPTIONS') return next();
    res.set({
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': 'authorization, content-type, mcp-protocol-version',
      'Access-Control-Max-Age': '600',
    });
    res.status(204).end();
  };
}
