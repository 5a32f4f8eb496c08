import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import type { Response } from 'express';
import { admittedPrincipal, matchedRoute, state } from '../../../../api/http/locals';
import type { Principal } from '../../../../shared/domain/connections/principal';

const responseWith = (locals: Record<string, unknown>) => ({ locals }) as unknown as Response;

describe('request state in res.locals', () => {
  it('state: the same object as res.locals, so what one middleware sets the next one reads', () => {
    const res = responseWith({ requestId: 'r1', route: '/v1/me' });
    state(res).route = '/v1/jobs';
    expect(res.locals.route).to.equal('/v1/jobs');
  });

  it('matchedRoute: the route template; undefined when unmatched or when the response has no locals', () => {
    expect(matchedRoute(responseWith({ route: '/v1/jobs/{id}' }) as unknown as ServerResponse)).to.equal('/v1/jobs/{id}');
    expect(matchedRoute(responseWith({ route: 'unmatched' }) as unknown as ServerResponse)).to.equal(undefined);
    expect(matchedRoute({} as ServerResponse)).to.equal(undefined);
  });

  it('admittedPrincipal: the principal bearer admission set', () => {
    const principal = { subject: 'sub-1' } as unknown as Principal;
    expect(admittedPrincipal(responseWith({ route: '/v1/me', principal }))).to.equal(principal);
  });

  it('admittedPrincipal without one: throws, naming the route (a wiring mistake, answered as a 500)', () => {
    expect(() => admittedPrincipal(responseWith({ route: '/v1/me' }))).to.throw('/v1/me: a bearer route ran without an admitted principal');
  });
});
