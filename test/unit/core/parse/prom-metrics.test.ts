// Prometheus text exposition parsing and kube-proxy sync metrics. The fixture is a kube-proxy 1.33-style
// /metrics excerpt (ip_family labels) with a queued change 50 s newer than the last successful sync.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {histogram, histogramQuantile, kubeProxySyncMetrics, parsePrometheusText, samplesNamed, sumSamples} from '../../../../src/core/parse/prom-metrics.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const P = 'config/kube-proxy/'

describe('parsePrometheusText', () => {
  it('groups samples into families with HELP and TYPE', () => {
    const fams = parsePrometheusText(readFixture(P + 'kube-proxy-metrics.txt'))
    const hist = fams.find((f) => f.name === 'kubeproxy_sync_proxy_rules_duration_seconds')
    assert.equal(hist?.type, 'histogram')
    assert.equal(hist?.samples.length, 9, 'buckets, _sum and _count belong to the family')
    assert.equal(hist?.help, '[ALPHA] SyncProxyRules latency in seconds')
    assert.deepEqual(samplesNamed(fams, 'rest_client_requests_total', {code: '<error>'}).map((s) => s.value), [1])
    expectGolden(P + 'kube-proxy-metrics.golden.json', JSON.stringify(fams, null, 2) + '\n')
  })

  it('handles escapes, special values, timestamps and untyped samples', () => {
    const text = [
      '# HELP m A \\\\ backslash\\nand newline',
      '# TYPE m gauge',
      'm{path="C:\\\\dir",msg="say \\"hi\\"\\n",} +Inf 1700000000000',
      'm{path="x"} -Inf',
      'm NaN',
      'other_metric 1.5e3',
      '# a plain comment',
      '# EOF',
      'ignored after EOF',
    ].join('\n')
    const fams = parsePrometheusText(text)
    assert.equal(fams[0]?.help, 'A \\ backslash\nand newline')
    assert.deepEqual(fams[0]?.samples[0]?.labels, {path: 'C:\\dir', msg: 'say "hi"\n'})
    assert.equal(fams[0]?.samples[0]?.value, Infinity)
    assert.equal(fams[0]?.samples[0]?.timestamp, 1700000000000)
    assert.equal(fams[0]?.samples[1]?.value, -Infinity)
    assert.ok(Number.isNaN(fams[0]?.samples[2]?.value))
    assert.deepEqual(fams[1], {name: 'other_metric', type: 'untyped', samples: [{name: 'other_metric', labels: {}, value: 1500, line: 6}]})
  })

  it('throws ParseError with the line of malformed input', () => {
    const cases: Array<[string, number, RegExp]> = [
      ['ok 1\nbad{ 1', 2, /invalid label name/],
      ['m{a="1} 2', 1, /unterminated value/],
      ['m{a="\\q"} 1', 1, /invalid escape/],
      ['m one', 1, /invalid value/],
      ['m 1 2 3', 1, /unexpected text/],
      ['m 1 1.5', 1, /invalid timestamp/],
      ['# TYPE m gauge\n# TYPE m counter', 2, /second TYPE/],
      ['m 1\n# TYPE m gauge', 2, /after its samples/],
      ['# TYPE m wat', 1, /unknown metric type/],
      ['{a="b"} 1', 1, /metric name/],
      ['m{a="1",a="2"} 1', 1, /repeated/],
    ]
    for (const [text, line, re] of cases) {
      assert.throws(() => parsePrometheusText(text), (e: unknown) => e instanceof ParseError && e.line === line && re.test(e.message), text)
    }
  })
})

describe('kube-proxy sync metrics', () => {
  it('summarises sync health across ip families', () => {
    const m = kubeProxySyncMetrics(parsePrometheusText(readFixture(P + 'kube-proxy-metrics.txt')))
    assert.equal(m.lastSyncTimestampSeconds, 1733130050)
    assert.equal(m.lastQueuedTimestampSeconds, 1733130100)
    assert.equal(m.pendingSeconds, 50)
    assert.equal(m.iptablesRestoreFailuresTotal, 2)
    assert.equal(m.iptablesPartialRestoreFailuresTotal, 0)
    assert.equal(m.nftablesSyncFailuresTotal, undefined)
    assert.equal(m.endpointChangesPending, 3)
    assert.equal(m.syncDuration?.count, 120)
    assert.ok(Math.abs((m.syncDuration?.averageSeconds ?? 0) - 1.2034 / 120) < 1e-12)
    assert.ok(Math.abs((m.syncDuration?.p50 ?? 0) - 0.00995) < 1e-4)
  })

  it('works on metrics without ip_family (before ~1.33) and takes the stalest family', () => {
    const old = kubeProxySyncMetrics(parsePrometheusText('kubeproxy_sync_proxy_rules_last_timestamp_seconds 100\nkubeproxy_sync_proxy_rules_last_queued_timestamp_seconds 90\n'))
    assert.deepEqual(old.byIpFamily, {'': {lastSyncTimestampSeconds: 100, lastQueuedTimestampSeconds: 90}})
    assert.equal(old.pendingSeconds, undefined, 'nothing queued after the last sync')
    const dual = kubeProxySyncMetrics(
      parsePrometheusText(
        'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 200\nkubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 150\nkubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv6"} 180\n',
      ),
    )
    assert.equal(dual.lastSyncTimestampSeconds, 150)
    assert.equal(dual.pendingSeconds, 30)
  })

  it('computes histogram quantiles like Prometheus', () => {
    const fams = parsePrometheusText('h_bucket{le="1"} 10\nh_bucket{le="2"} 20\nh_bucket{le="+Inf"} 20\nh_sum 25\nh_count 20\n')
    const h = histogram(fams, 'h')
    assert.ok(h)
    assert.equal(histogramQuantile(h, 0.5), 1)
    assert.equal(histogramQuantile(h, 0.75), 1.5)
    assert.equal(histogramQuantile(h, 1), 2)
    assert.equal(sumSamples(fams, 'h_count'), 20)
    assert.equal(histogram(fams, 'missing'), undefined)
  })
})
