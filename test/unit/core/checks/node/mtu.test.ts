// NODE-007 beyond the catalog's fire/quiet pair. Inputs are the real namespace captures under
// test/fixtures/checks/node (scripts/make-node-prereq-fixtures.ts): tunl0 is a veth stand-in (the test kernels have no
// ipip link type; the check knows tunl0 by name), vxlan.calico a real vxlan device on eth0, eth0 the InternalIP's
// interface at MTU 1500. Single `ip -j -d link` entries are edited where a case needs another MTU or state.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {NODE_CHECKS} from '../../../../../src/core/checks/node/index.js'
import {checkOverlayMtu, checkPodMtu} from '../../../../../src/core/checks/node/mtu.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node')
const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

type Link = {ifindex?: number; ifname: string; mtu: number; flags: string[]; linkinfo?: {info_kind?: string}}

/** The node with `ip -j -d link` entries changed by `edit`. */
function editLinks(node: NodeSnapshot, edit: (links: Link[]) => Link[]): NodeSnapshot {
  const n = structuredClone(node)
  const a = n.artifacts['ip-link']!
  a.content = JSON.stringify(edit(JSON.parse(a.content) as Link[]))
  return n
}
const setMtu = (name: string, mtu: number) => (ls: Link[]) => ls.map((l) => (l.ifname === name ? {...l, mtu} : l))
const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)

describe('NODE-007 overlay MTU', () => {
  it('the planted "tunl0 MTU larger than eth0 minus 20" gives exactly its finding among all node checks', async () => {
    const b = await readBundle(join(DIR, 'mtu-tunl0-too-big'))
    const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: [...NODE_CHECKS]})
    assert.deepEqual(report.findings.map((f) => [f.id, f.subject.name]), [['NODE-007', 'tunl0']])
    assert.equal(report.findings[0]!.message.split(':')[0], "tunl0 (Calico IPIP) has MTU 1500, above eth0's MTU 1500 minus the 20-byte IPIP overhead (1480)")
    const clean = await readBundle(join(DIR, 'rp-mtu-ok'))
    assert.deepEqual(analyzeSnapshots(clean.cluster, clean.nodes, {metadata: meta, checks: [...NODE_CHECKS]}).findings, [])
  })

  it('judges vxlan.calico against its own dev with the 50-byte VXLAN overhead; exactly at the limit is fine', async () => {
    const {cluster, node} = await load('rp-mtu-ok')
    const out = checkOverlayMtu({cluster, node: editLinks(node, setMtu('vxlan.calico', 1451))})
    assert.equal(out.status, 'failed')
    const f = out.status === 'failed' ? out.findings[0]! : undefined
    assert.match(f!.message, /^vxlan\.calico \(Calico VXLAN\) has MTU 1451, above eth0's MTU 1500 minus the 50-byte VXLAN overhead \(1450\)/)
    assert.ok(f!.evidence!.includes("eth0: mtu 1500 (the underlay: the VXLAN device's dev eth0)"))
    assert.equal(checkOverlayMtu({cluster, node: editLinks(node, setMtu('tunl0', 1480))}).status, 'passed')
  })

  it('a larger underlay (jumbo frames) makes a 1500 tunl0 fine; a smaller one (cloud 1450) makes the default 1480 too big', async () => {
    const {cluster, node} = await load('mtu-tunl0-too-big')
    assert.equal(checkOverlayMtu({cluster, node: editLinks(node, setMtu('eth0', 9001))}).status, 'passed')
    const ok = (await load('rp-mtu-ok')).node
    const cloud = checkOverlayMtu({cluster, node: editLinks(ok, (ls) => setMtu('vxlan.calico', 1400)(setMtu('eth0', 1450)(ls)))})
    assert.deepEqual(cloud.status === 'failed' ? cloud.findings.map((f) => f.subject.name) : cloud, ['tunl0'])
  })

  it('ignores tunnels that are down (the ipip module creates tunl0 down and unused) and Cilium tunnels', async () => {
    const {cluster, node} = await load('mtu-tunl0-too-big')
    const down = editLinks(node, (ls) => ls.map((l) => (l.ifname === 'tunl0' ? {...l, flags: l.flags.filter((x) => x !== 'UP')} : l)))
    assert.equal(checkOverlayMtu({cluster, node: down}).status, 'passed', 'vxlan.calico is still judged and fine')
    const cilium = editLinks(node, (ls) => ls.filter((l) => l.ifname !== 'tunl0' && l.ifname !== 'vxlan.calico').concat({ifindex: 99, ifname: 'cilium_vxlan', mtu: 1500, flags: ['UP'], linkinfo: {info_kind: 'vxlan'}}))
    assert.match(reason(checkOverlayMtu({cluster, node: cilium})), /^not applicable: only Cilium tunnel devices/)
  })

  it('cannot tell the underlay without the Node InternalIP on an interface', async () => {
    const {cluster, node} = await load('mtu-tunl0-too-big')
    const moved = structuredClone(cluster)
    moved.nodes.find((n) => n.metadata.name === 'node-a')!.status!.addresses = [{type: 'Hostname', address: 'node-a'}]
    const onlyTunl = editLinks(node, (ls) => ls.filter((l) => l.ifname !== 'vxlan.calico'))
    assert.match(reason(checkOverlayMtu({cluster: moved, node: onlyTunl})), /^cannot tell: tunl0: the Node has no IPv4 InternalIP/)
  })
})

describe('NODE-008 pod MTU on a bridge CNI', () => {
  it('fires on the pod veth left at 1500 behind flannel.1 at 1450, naming the bridge and the port', async () => {
    const {cluster, node} = await load('flannel-pod-mtu-too-big')
    const out = checkPodMtu({cluster, node})
    assert.equal(out.status, 'failed')
    const f = out.status === 'failed' ? out.findings : []
    assert.deepEqual(f.map((x) => x.subject), [{kind: 'interface', name: 'cni0'}])
    assert.match(f[0]!.message, /^1 pod veth\(s\) on cni0 have MTU 1500, above the flannel\.1 overlay's MTU 1450/)
    assert.ok(f[0]!.evidence!.includes('veth7d41c2a9: mtu 1500'))
  })

  it('only overlays the routes use count; routed CNIs and nodes without a bridge are not judged', async () => {
    const {cluster, node} = await load('flannel-pod-mtu-too-big')
    const noRoute = structuredClone(node)
    noRoute.artifacts['ip-route']!.content = noRoute.artifacts['ip-route']!.content.replace(/^.*dev flannel\.1 .*$/gm, '')
    assert.match(reason(checkPodMtu({cluster, node: noRoute})), /^not applicable: no route goes through flannel\.1/)
    assert.equal(checkPodMtu({cluster, node: editLinks(node, setMtu('flannel.1', 1500))}).status, 'passed')
    const calico = await load('rp-mtu-ok')
    assert.match(reason(checkPodMtu(calico)), /^not applicable: no bridge with veth ports/)
  })
})
