// The running proxy mode: /proxyMode bodies and kube-proxy startup logs (klog text, structured klog, JSON,
// kubectl --timestamps), including the pre-1.26 IPVS→iptables fallback and the 1.26+ hard failure.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parseLogLine, parseProxierLog, parseProxyModeBody} from '../../../../src/core/parse/proxy-mode.js'
import {ParseError} from '../../../../src/errors.js'
import {readFixture} from '../../../support/golden.js'

const P = 'config/kube-proxy/'

describe('parseProxyModeBody', () => {
  it('accepts the modes kube-proxy reports, with or without a newline', () => {
    assert.equal(parseProxyModeBody('iptables'), 'iptables')
    assert.equal(parseProxyModeBody('ipvs\n'), 'ipvs')
    assert.equal(parseProxyModeBody(' nftables \r\n'), 'nftables')
    assert.equal(parseProxyModeBody('kernelspace'), 'kernelspace')
  })

  it('rejects anything else with a ParseError on line 1', () => {
    for (const bad of ['', 'IPVS', '404 page not found', '<html>']) {
      assert.throws(() => parseProxyModeBody(bad), (e: unknown) => e instanceof ParseError && e.line === 1, bad)
    }
  })
})

describe('parseProxierLog', () => {
  it('sees the old silent IPVS fallback (structured klog, ≤1.25)', () => {
    const log = parseProxierLog(readFixture(P + 'kube-proxy-ipvs-fallback.log'))
    assert.equal(log.mode, 'iptables')
    assert.equal(log.modeLine, 4)
    assert.equal(log.fellBackFromIPVS, true)
    assert.equal(log.failed, false)
    assert.deepEqual(log.events.map((e) => [e.kind, e.line, e.format, e.severity]), [
      ['ipvs-unusable', 3, 'klog', 'E'],
      ['using', 4, 'klog', 'I'],
    ])
    assert.match(log.events[0]?.message ?? '', /^Can't use the IPVS proxier err=/)
  })

  it('sees the unstructured fallback of older releases', () => {
    const text = [
      'W1116 09:02:43.496621       1 server_others.go:264] Can\'t use ipvs proxier, trying iptables proxier',
      'I1116 09:02:43.498852       1 server_others.go:122] Using iptables Proxier.',
    ].join('\n')
    const log = parseProxierLog(text)
    assert.equal(log.fellBackFromIPVS, true)
    assert.equal(log.mode, 'iptables')
  })

  it('reads JSON logs', () => {
    const log = parseProxierLog(readFixture(P + 'kube-proxy-nftables.json.log'))
    assert.equal(log.mode, 'nftables')
    assert.equal(log.modeLine, 2)
    assert.equal(log.events[0]?.format, 'json')
    assert.equal(log.events[0]?.timestamp, '1733130000124.001')
  })

  it('reports a crash-looping IPVS start (1.26+) as failed, and the last start wins', () => {
    const text = [
      '2025-01-02T10:00:00.000000000Z I0102 10:00:00.000000       1 server_linux.go:66] "Using ipvs Proxier"',
      '2025-01-02T11:00:00.000000000Z E0102 11:00:00.000000       1 run.go:72] "command failed" err="can\'t use the IPVS proxier: Could not create dummy VS: operation not supported"',
    ].join('\n')
    const log = parseProxierLog(text)
    assert.equal(log.failed, true)
    assert.equal(log.fellBackFromIPVS, false)
    assert.equal(log.mode, 'ipvs', 'the last "Using" line, from the earlier start')
  })

  it('recognises the empty-mode default and the IPVS deprecation warning', () => {
    const log = parseProxierLog('I0101 00:00:00.000000       1 server_linux.go:52] "Using iptables proxy"\nW0101 00:00:01.000000       1 proxier.go:300] "The ipvs proxier is now deprecated and may be removed in a future release. Please use \'nftables\' instead."\n')
    assert.deepEqual(log.events.map((e) => e.kind), ['defaulted', 'ipvs-deprecated'])
    assert.equal(log.mode, undefined, 'no "Using … Proxier" line yet')
  })

  it('splits klog and JSON lines into messages', () => {
    assert.deepEqual(parseLogLine('I0102 03:04:05.678901   12345 file.go:1] "quoted \\"msg\\"" k="v"'), {format: 'klog', message: 'quoted "msg" k="v"', severity: 'I', timestamp: '0102 03:04:05.678901'})
    assert.deepEqual(parseLogLine('{"ts":1,"msg":"x","err":"boom","v":0}'), {format: 'json', message: 'x err="boom"', timestamp: '1', severity: 'v0'})
    assert.deepEqual(parseLogLine('{not json'), {format: 'plain', message: '{not json'})
    assert.equal(parseLogLine('   '), undefined)
  })
})
