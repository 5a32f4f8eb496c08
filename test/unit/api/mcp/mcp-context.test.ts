import { expect } from 'chai';
import { callerOf, type McpCaller } from '../../../../api/mcp/mcp-context';

describe('callerOf (the caller of an MCP handler)', () => {
  it('auth info carrying a caller: that caller', () => {
    const caller = { principal: { subject: 'user-1' }, requestId: 'req-1' } as unknown as McpCaller;
    expect(callerOf({ http: { authInfo: { token: 't', clientId: 'c', scopes: [], extra: { caller } } } })).to.equal(caller);
  });

  it('no auth info, or none carrying a caller: throws (the route must authenticate first)', () => {
    for (const ctx of [{}, { http: {} }, { http: { authInfo: { token: 't', clientId: 'c', scopes: [] } } }])
      expect(() => callerOf(ctx), JSON.stringify(ctx)).to.throw('the MCP route must authenticate before a handler runs');
  });
});
