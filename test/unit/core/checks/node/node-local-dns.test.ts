// NODE-021 beyond the catalog's fire/quiet pair. Inputs are the real namespace captures under
// test/fixtures/checks/node-datapath (scripts/make-node-datapath-fixtures.ts): node-cache's listen addresses on a
// nodelocaldns link and its iptables rules as cache_app.go inserts them; API objects edited per case.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkNodeLocalDns, nodeLocalDnsArgs, nodeLocalDnsDaemonSet} from '../../../../../src/core/checks/node/node-local-dns.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {DaemonSet} from '../../../../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-datapath')

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const messages = (o: CheckOutcome) => (o.status === 'failed' ? o.findings.map((f) => f.message) : [])

function withArgs(cluster: ClusterSnapshot, args: string[]): ClusterSnapshot {
  const c = structuredClone(cluster)
  const ds = nodeLocalDnsDaemonSet(c.daemonSets)!
  ds.spec!.template!.spec!.containers![0]!.args = args
  return c
}

describe('NODE-021 node-local-dns', () => {
  it('reads node-cache flags in every Go flag form', () => {
    const ds = (args: string[]): DaemonSet => ({metadata: {name: 'node-local-dns', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'node-cache', args}]}}}})
    assert.deepEqual(nodeLocalDnsArgs(ds(['-localip', '169.254.20.10,10.96.0.10', '-conf', '/etc/Corefile'])), {localIPs: ['169.254.20.10', '10.96.0.10'], setupIptables: true, interfaceName: 'nodelocaldns'})
    assert.deepEqual(nodeLocalDnsArgs(ds(['--localip=169.254.25.10', '-setupiptables=false', '-interfacename', 'nld0'])), {localIPs: ['169.254.25.10'], setupIptables: false, interfaceName: 'nld0'})
    assert.equal(nodeLocalDnsArgs(ds(['-conf', '/etc/Corefile'])), undefined)
  })

  it('the real capture without node-cache NOTRACK rules fires once per listen address', async () => {
    const out = checkNodeLocalDns(await load('nodelocaldns-notrack-missing'))
    const ms = messages(out)
    assert.equal(ms.length, 2)
    assert.match(ms[0]!, /^the raw table has no NOTRACK rule for node-local-dns on 169\.254\.20\.10:53 \(udp, tcp\) in PREROUTING/)
  })

  it('a listen address that is not bound fires; -setupiptables=false does not judge the rules', async () => {
    const {cluster, node} = await load('nodelocaldns-notrack-missing')
    const other = withArgs(cluster, ['-localip', '169.254.25.10', '-setupiptables=false'])
    const ms = messages(checkNodeLocalDns({cluster: other, node}))
    assert.deepEqual(ms, ['node-local-dns listen address(es) 169.254.25.10 are not bound on the node: pods whose resolv.conf points there get no answer'])
  })

  it('does not apply without the DaemonSet; without the inputs it cannot tell', async () => {
    const {cluster, node} = await load('bridge-ok')
    const none = structuredClone(cluster)
    none.daemonSets = none.daemonSets.filter((d) => d.metadata.name !== 'node-local-dns')
    assert.equal(reason(checkNodeLocalDns({cluster: none, node})), 'not applicable: no node-local-dns DaemonSet in kube-system')
    const n = structuredClone(node)
    delete n.artifacts['iptables-save']
    assert.match(reason(checkNodeLocalDns({cluster, node: n})), /^cannot tell: missing input: iptables-save/)
  })

  it('IPVS mode: clusterDNS at the kube-dns ClusterIP instead of the link-local address is a warning', async () => {
    const {cluster, node} = await load('bridge-ok')
    const ipvs = structuredClone(node)
    ipvs.artifacts['proxy-mode'] = {id: 'proxy-mode', source: 'proxy-mode', exitCode: 0, content: 'ipvs'}
    ipvs.artifacts['kubelet-config'] = {id: 'kubelet-config', source: 'cat /var/lib/kubelet/config.yaml', exitCode: 0, content: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n- 172.30.0.10\n'}
    const out = checkNodeLocalDns({cluster, node: ipvs})
    assert.equal(out.status, 'failed')
    const f = out.status === 'failed' ? out.findings[0]! : undefined
    assert.equal(f?.severity, 'warning')
    assert.match(f!.message, /^kube-proxy runs IPVS mode but the kubelet's clusterDNS \(172\.30\.0\.10\) is not node-local-dns's link-local address \(169\.254\.20\.10\)/)
    const local = structuredClone(ipvs)
    local.artifacts['kubelet-config']!.content = local.artifacts['kubelet-config']!.content.replace('172.30.0.10', '169.254.20.10')
    assert.equal(checkNodeLocalDns({cluster, node: local}).status, 'passed')
  })

  it('nftables mode: an info finding on the unsupported combination (kubernetes/dns#682), beside nothing else on a wired node', async () => {
    const {cluster, node} = await load('bridge-ok')
    const nft = structuredClone(node)
    nft.artifacts['proxy-mode'] = {id: 'proxy-mode', source: 'proxy-mode', exitCode: 0, content: 'nftables'}
    const out = checkNodeLocalDns({cluster, node: nft})
    assert.deepEqual(out.status === 'failed' ? out.findings.map((f) => [f.severity, f.subject.kind]) : out, [['info', 'DaemonSet']])
    assert.match(messages(out)[0]!, /kubernetes\/dns#682/)
  })
})
