// CT-001 over in-code snapshots: kube-dns 10.96.0.10:53/UDP (test/support/proxy-mode-builders.ts) with endpoints
// 10.244.1.2 and 10.244.3.7; conntrack lines in conntrack-tools 1.4.7 format.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {CONNTRACK_CHECKS} from '../../../src/core/checks/conntrack/index.js'
import {runChecks} from '../../../src/core/checks/run.js'
import {proxyCluster, proxyNode} from '../../support/proxy-mode-builders.js'

const line = (sport: number, client: string, replySrc: string) =>
  `udp      17 119 src=${client} dst=10.96.0.10 sport=${sport} dport=53 [UNREPLIED] src=${replySrc} dst=${client} sport=53 dport=${sport} mark=0 use=1`

function run(ct: string | undefined, endpoints = ['10.244.1.2', '10.244.3.7']) {
  const out = runChecks(CONNTRACK_CHECKS, proxyCluster({dnsEndpoints: endpoints}), [proxyNode(ct === undefined ? {} : {'conntrack-udp': ct})])
  assert.deepEqual(out.errors, [])
  return {result: out.results[0]!, findings: out.findings}
}

describe('CT-001 stale UDP conntrack entries', () => {
  it('fires per (ClusterIP, stale endpoint) with the targeted delete command', () => {
    const {result, findings} = run([line(1, '10.244.1.5', '10.244.1.2'), line(2, '10.244.1.6', '10.244.2.2'), line(3, '10.244.1.7', '10.244.2.2')].join('\n'))
    assert.equal(result.status, 'failed')
    assert.equal(findings.length, 1)
    const f = findings[0]!
    assert.match(f.message, /2 UDP conntrack entries for kube-system\/kube-dns \(10\.96\.0\.10:53\/udp\) still go to 10\.244\.2\.2/)
    assert.deepEqual(f.subject, {kind: 'Service', name: 'kube-dns', namespace: 'kube-system'})
    assert.equal(f.group, 'kube-system/kube-dns:dns')
    assert.match(f.remedy, /`conntrack -D -p udp --orig-dst 10\.96\.0\.10 --dst-nat 10\.244\.2\.2`/)
    assert.match(f.remedy, /kubectl node-doctor fix conntrack node-a --service kube-system\/kube-dns/)
    assert.equal(f.evidence.length, 2)
  })
  it('fires on entries never NATed while the Service now has endpoints', () => {
    const {findings} = run(line(4, '10.244.1.8', '10.96.0.10'))
    assert.match(findings[0]!.message, /created while it had no endpoints/)
    assert.match(findings[0]!.remedy, /--orig-port-dst 53 --reply-src 10\.96\.0\.10/)
  })
  it('passes for current endpoints, non-Service traffic, and un-NATed entries of a Service still without endpoints', () => {
    assert.equal(run(line(1, '10.244.1.5', '10.244.3.7')).result.status, 'passed')
    assert.equal(run('udp      17 20 src=10.244.1.5 dst=8.8.8.8 sport=5 dport=53 src=8.8.8.8 dst=192.168.0.11 sport=53 dport=5 mark=0 use=1').result.status, 'passed')
    assert.equal(run(line(4, '10.244.1.8', '10.96.0.10'), []).result.status, 'passed')
    assert.equal(run('').result.status, 'passed')
  })
  it('skips without the listing or when it cannot be parsed', () => {
    assert.match(run(undefined).result.reason!, /missing input: conntrack-udp/)
    assert.match(run('garbage here\n').result.reason!, /could not be parsed/)
  })
})
