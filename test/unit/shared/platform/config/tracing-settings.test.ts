import { expect } from 'chai';
import type { ConfigProblem } from '../../../../../shared/platform/config/settings-table';
import { loadTracingSettings } from '../../../../../shared/platform/config/tracing-settings';

/** The settings and the problems `env` gives. */
function load(env: Record<string, string>) {
  const problems: ConfigProblem[] = [];
  return { settings: loadTracingSettings(env, problems), problems };
}

describe('loadTracingSettings', () => {
  it('no endpoint: tracing off (undefined), with no problem', () => {
    expect(load({})).to.deep.equal({ settings: undefined, problems: [] });
  });

  it('an endpoint, or only a traces endpoint: on, with the defaults of the specification', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).settings).to.deep.equal({
      endpoint: 'http://collector:4318',
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
    expect(load({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' }).settings?.tracesEndpoint).to.equal(
      'https://collector/v1/traces',
    );
  });

  it('an empty value counts as unset, as the SDKs read it', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_SAMPLER: '' })).to.deep.equal({ settings: undefined, problems: [] });
  });

  it('tracing off but a variable invalid: still refused, so a typo is caught before it matters', () => {
    expect(load({ OTEL_TRACES_SAMPLER: 'sometimes' }).problems).to.deep.equal([
      {
        name: 'OTEL_TRACES_SAMPLER',
        reason:
          'must be one of parentbased_always_on, parentbased_always_off, parentbased_traceidratio, always_on, always_off, traceidratio',
      },
    ]);
  });

  it('invalid endpoint, headers or ratio: named problems that never echo the value, and no settings', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:pw@collector',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key-without-equals',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
    };
    const { settings, problems } = load(env);
    expect(settings).to.equal(undefined);
    expect(problems).to.deep.equal([
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', reason: 'must be an absolute http or https URL' },
      { name: 'OTEL_EXPORTER_OTLP_HEADERS', reason: 'must be key=value pairs separated by commas' },
      { name: 'OTEL_TRACES_SAMPLER_ARG', reason: 'must be a number from 0 to 1' },
    ]);
  });

  it('valid headers and a ratio of 0: accepted', () => {
    const { settings } = load({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1, b = 2',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    expect(settings).to.include({ headers: 'a=1, b = 2', samplerRatio: 0 });
  });
});
