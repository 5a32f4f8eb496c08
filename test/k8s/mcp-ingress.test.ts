import { expect } from 'chai';
import { helm, type K8sObject, render } from '../support/helm';
import { mustFind, ofKind } from '../support/manifests';

const TLS_VALUES = 'charts/connector/ci/ingress-tls-values.yaml';

function mcpIngress(objects: K8sObject[]): K8sObject | undefined {
  return ofKind(objects, 'Ingress').find((ingress) => ingress.metadata.name.endsWith('-mcp'));
}

describe('the chart’s Ingress for /mcp and the OAuth paths', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  it('routes /mcp, /oauth and the OAuth well-known paths on the API host with its TLS, to the api http port', function () {
    const objects = render({ valuesFiles: [TLS_VALUES] });
    const ingress = mcpIngress(objects)!;
    const api = ofKind(objects, 'Ingress').find((candidate) => candidate !== ingress)!;
    const service = mustFind(objects, 'Service', 'api');
    expect(ingress.spec.tls).to.deep.equal(api.spec.tls);
    expect(ingress.spec.ingressClassName).to.equal(api.spec.ingressClassName);
    const rule = ingress.spec.rules[0];
    expect(rule.host).to.equal('api.connector.example.org');
    expect(rule.http.paths.map((path: { path: string }) => path.path)).to.deep.equal([
      '/mcp',
      '/oauth',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
    ]);
    for (const path of rule.http.paths) {
      expect(path.pathType).to.equal('Prefix');
      expect(path.backend.service).to.deep.equal({ name: service.metadata.name, port: { name: 'http' } });
    }
  });

  it('carries MCP timeouts on top of the shared annotations, which it overrides, and leaves the API Ingress untouched', function () {
    const objects = render({
      valuesFiles: [TLS_VALUES],
      set: ['ingress.annotations.team=connectors', 'ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/proxy-buffering=on'],
    });
    const ingress = mcpIngress(objects)!;
    const api = ofKind(objects, 'Ingress').find((candidate) => candidate !== ingress)!;
    expect(ingress.metadata.annotations).to.include({
      team: 'connectors',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '60',
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
    });
    expect(api.metadata.annotations).to.deep.equal({ team: 'connectors', 'nginx.ingress.kubernetes.io/proxy-buffering': 'on' });
  });

  it('is absent when the ingress or ingress.mcp is disabled', function () {
    expect(mcpIngress(render({ valuesFiles: [TLS_VALUES], set: ['ingress.mcp.enabled=false'] }))).to.equal(undefined);
    expect(ofKind(render(), 'Ingress')).to.have.length(0);
  });
});
