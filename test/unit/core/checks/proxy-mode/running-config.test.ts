// PROXY-013: the kube-proxy ConfigMap against the running kube-proxy's /configz. The running side is the
// constructed v1.36 and v1.31 answers of test/fixtures/parse/kube-proxy-configz (README there), edited per case;
// the intended side is kubeadm's ConfigMap as kubectl prints it (every field written as "", 0s or null) or the
// small ConfigMaps of test/support/proxy-mode-builders.ts.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {PROXY_MODE_CHECKS} from '../../../../../src/core/checks/proxy-mode/index.js'
import {sameSetting} from '../../../../../src/core/checks/proxy-mode/running-config.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {ConfigMap} from '../../../../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {parse as parseYaml} from 'yaml'
import {readFixture} from '../../../../support/golden.js'
import {proxyCluster, proxyNode} from '../../../../support/proxy-mode-builders.js'

function run(cluster: ClusterSnapshot, node: NodeSnapshot) {
  const check = PROXY_MODE_CHECKS.find((c) => c.spec.id === 'PROXY-013')!
  const out = runChecks([check], cluster, [node])
  assert.deepEqual(out.errors, [])
  const result = out.results[0]!
  return {status: result.status, reason: result.reason, findings: out.findings}
}

type Json = Record<string, unknown>
/** A /configz answer from a fixture with `edit` applied to the configuration object. */
function configz(fixture: 'v1.36-nftables.json' | 'v1.31-internal.json', edit: (c: Json) => void = () => {}): string {
  const body = JSON.parse(readFixture(`parse/kube-proxy-configz/${fixture}`)) as Record<string, Json>
  edit(body['kubeproxy.config.k8s.io']!)
  return JSON.stringify(body)
}
const sub = (c: Json, k: string): Json => c[k] as Json

/** kubeadm's ConfigMap (test/fixtures/config/kube-proxy) with `mode` replaced. */
function kubeadmCluster(mode: string, hostnameOverride = ''): ClusterSnapshot {
  const cm = parseYaml(readFixture('config/kube-proxy/kubeadm-configmap.yaml')) as ConfigMap
  cm.data!['config.conf'] = cm.data!['config.conf']!.replace('mode: ""', `mode: ${mode}`).replace('hostnameOverride: ""', `hostnameOverride: "${hostnameOverride}"`)
  const c = proxyCluster()
  c.configMaps = [cm]
  return c
}

describe('PROXY-013 running configuration vs ConfigMap', () => {
  it("passes on kubeadm's ConfigMap (all \"\"/0s/null) against the defaulted running configuration", () => {
    const r = run(kubeadmCluster('nftables'), proxyNode({'kube-proxy-configz': configz('v1.36-nftables.json')}))
    assert.equal(r.status, 'passed', JSON.stringify(r.findings))
  })

  it('passes on the internal type of earlier releases (Go field names)', () => {
    const r = run(kubeadmCluster('iptables'), proxyNode({'kube-proxy-configz': configz('v1.31-internal.json')}))
    assert.equal(r.status, 'passed', JSON.stringify(r.findings))
  })

  it('never compares what kube-proxy fills per node, logging, or the mode (PROXY-003 says that)', () => {
    const body = configz('v1.36-nftables.json', (c) => {
      c['hostnameOverride'] = 'ip-10-0-0-7.ec2.internal'
      c['bindAddress'] = '10.0.0.7'
      c['metricsBindAddress'] = '0.0.0.0:10249'
      sub(c, 'logging')['verbosity'] = 4
      c['mode'] = 'iptables'
    })
    const r = run(kubeadmCluster('nftables', 'node-a-old'), proxyNode({'kube-proxy-configz': body}))
    assert.equal(r.status, 'passed', JSON.stringify(r.findings))
  })

  it('reads durations by length: 15m in the ConfigMap is the 15m0s kube-proxy reports', () => {
    const r = run(proxyCluster({config: 'mode: nftables\nconfigSyncPeriod: 15m\nconntrack:\n  tcpEstablishedTimeout: 86400s\n'}), proxyNode({'kube-proxy-configz': configz('v1.36-nftables.json')}))
    assert.equal(r.status, 'passed', JSON.stringify(r.findings))
  })

  it('fires on each field changed in the ConfigMap after kube-proxy started, with both values and where each comes from', () => {
    const cluster = proxyCluster({config: 'mode: nftables\nnftables:\n  masqueradeBit: 15\nconntrack:\n  maxPerCore: 0\n  tcpBeLiberal: true\nnodePortAddresses: [10.0.0.0/8]\n'})
    const r = run(cluster, proxyNode({'kube-proxy-configz': configz('v1.36-nftables.json')}))
    assert.equal(r.status, 'failed')
    const f = r.findings[0]!
    assert.equal(f.id, 'PROXY-013')
    assert.match(f.message, /runs 3 settings different from ConfigMap kube-system\/kube-proxy: .*nftables\.masqueradeBit.*; kube-proxy does not reload its configuration, restart it to apply/)
    // maxPerCore: 0 is left to kube-proxy ("0 leaves the limit as-is") only when read as unset: not compared.
    assert.ok(!f.message.includes('maxPerCore'))
    assert.ok(f.evidence!.includes('nftables.masqueradeBit: configured 15 (ConfigMap kube-system/kube-proxy line 6), running 14'), JSON.stringify(f.evidence))
    assert.ok(f.evidence!.some((e) => e.startsWith('conntrack.tcpBeLiberal: configured true')))
    assert.ok(f.evidence!.some((e) => e.startsWith('nodePortAddresses: configured ["10.0.0.0/8"]') && e.endsWith('running ["primary"]')))
    assert.match(f.remedy!, /kubectl node-doctor fix kube-proxy node-a/)
    assert.match(f.remedy!, /kubectl -n kube-system delete pod kube-proxy-/)
  })

  it('skips with the reason when either side is missing', () => {
    assert.match(run(proxyCluster(), proxyNode({})).reason!, /running configuration is unknown: kube-proxy \/configz was not collected/)
    const refused = proxyNode({})
    refused.artifacts['kube-proxy-configz'] = {id: 'kube-proxy-configz', source: 'curl -sS --max-time 5 http://127.0.0.1:10249/configz', exitCode: 7, content: '', error: 'exit code 7', stderr: 'curl: (7) Failed to connect to 127.0.0.1 port 10249: Connection refused'}
    assert.match(run(proxyCluster(), refused).reason!, /running configuration is unknown: .*Connection refused/)
    assert.match(run(proxyCluster(), proxyNode({'kube-proxy-configz': '404 page not found\n'})).reason!, /running configuration is unknown: not a \/configz answer/)
    assert.match(run(proxyCluster({config: null}), proxyNode({'kube-proxy-configz': configz('v1.36-nftables.json')})).reason!, /no kube-proxy ConfigMap/)
  })
})

describe('sameSetting', () => {
  it('compares as kube-proxy reads values', () => {
    assert.ok(sameSetting('15m', '15m0s'))
    assert.ok(sameSetting(null, []))
    assert.ok(sameSetting(['b', 'a'], ['a', 'b']))
    assert.ok(!sameSetting('10.244.0.0/16', '10.245.0.0/16'))
    assert.ok(!sameSetting(14, 15))
    assert.ok(!sameSetting(['primary'], null))
  })
})
