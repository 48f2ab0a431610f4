// NODE-005/006 beyond the catalog's fire/quiet pair. Inputs are the real namespace captures under
// test/fixtures/checks/node (scripts/make-node-prereq-fixtures.ts: rp-mtu-ok is a strict-mode Calico IPIP node with
// symmetric paths, rp-strict-asymmetric has its default route on a second NIC, rp-loose-calico has all.rp_filter = 2
// and a crash-looping calico-node), with single artifacts or API objects edited where a case needs another value.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkRpFilterAsymmetric, checkRpFilterCalicoLoose, lookupRoute, mainTable} from '../../../../../src/core/checks/node/rp-filter.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {parseRoutes} from '../../../../../src/core/parse/routes.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node')

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function withArtifact(node: NodeSnapshot, id: string, content: string | undefined): NodeSnapshot {
  const n = structuredClone(node)
  if (content === undefined) delete n.artifacts[id]
  else n.artifacts[id] = {id, source: id, exitCode: 0, content}
  return n
}

const text = (node: NodeSnapshot, id: string) => node.artifacts[id]!.content
/** The sysctls text with one /proc/sys rp_filter line set to `value`. */
const setRp = (node: NodeSnapshot, iface: string, value: number) =>
  withArtifact(node, 'sysctls', text(node, 'sysctls').replace(new RegExp(`^(/proc/sys/net/ipv4/conf/${iface.replace('.', '\\.')}/rp_filter):\\d$`, 'm'), `$1:${value}`))
const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const messages = (o: CheckOutcome) => (o.status === 'failed' ? o.findings.map((f) => f.message) : [])

describe('NODE-005 strict rp_filter on asymmetric paths', () => {
  it('fires on the node whose route back to node-b leaves through the other NIC, with the effective value and the route', async () => {
    const {cluster, node} = await load('rp-strict-asymmetric')
    const out = checkRpFilterAsymmetric({cluster, node})
    assert.equal(out.status, 'failed')
    const f = out.status === 'failed' ? out.findings : []
    assert.equal(f.length, 1)
    assert.deepEqual(f[0]!.subject, {kind: 'interface', name: 'eth0'})
    assert.match(f[0]!.message, /drops traffic from node node-b \(InternalIP 192\.168\.1\.3\): it arrives on eth0 .* leaves through eth1$/)
    assert.ok(f[0]!.evidence!.includes('route back: default via 203.0.113.1 dev eth1'), f[0]!.evidence!.join('\n'))
    assert.match(f[0]!.evidence![0]!, /max of net\.ipv4\.conf\.all\.rp_filter = 1 and net\.ipv4\.conf\.eth0\.rp_filter = 0/)
  })

  it('the effective mode is the larger of all and the interface: loose on either side is fine, strict on eth0 alone fires', async () => {
    const {cluster, node} = await load('rp-strict-asymmetric')
    assert.equal(checkRpFilterAsymmetric({cluster, node: setRp(node, 'all', 2)}).status, 'passed', 'all = 2 makes every interface loose')
    assert.equal(checkRpFilterAsymmetric({cluster, node: setRp(node, 'eth0', 2)}).status, 'passed', 'eth0 = 2 beats all = 1')
    const onlyEth0 = setRp(setRp(node, 'all', 0), 'eth0', 1)
    assert.equal(checkRpFilterAsymmetric({cluster, node: onlyEth0}).status, 'failed')
    assert.equal(checkRpFilterAsymmetric({cluster, node: setRp(node, 'all', 0)}).status, 'passed', 'no strict interface at all')
  })

  it("judges node-b's pod CIDR by its route back too: through the other NIC fires, into the CNI's own device does not", async () => {
    const {cluster, node} = await load('rp-strict-asymmetric')
    const onLink = structuredClone(cluster)
    onLink.nodes.find((n) => n.metadata.name === 'node-b')!.status!.addresses = [{type: 'InternalIP', address: '192.168.0.3'}]
    assert.equal(checkRpFilterAsymmetric({cluster: onLink, node}).status, 'passed', 'node-b on-link on eth0, its pods through tunl0')
    const route = (r: string) => withArtifact(node, 'ip-route', text(node, 'ip-route').replace(/^unicast 10\.0\.2\.0\/24 .*$/m, r))
    const direct = checkRpFilterAsymmetric({cluster: onLink, node: route('unicast 10.0.2.0/24 via 203.0.113.9 dev eth1 table main proto static scope global ')})
    assert.match(messages(direct)[0] ?? '', /drops traffic from pods of node-b \(10\.0\.2\.0\/24\): .* leaves through eth1$/)
    const cilium = route('unicast 10.0.2.0/24 via 10.0.1.1 dev cilium_host table main proto kernel scope global ')
    assert.equal(checkRpFilterAsymmetric({cluster: onLink, node: cilium}).status, 'passed')
  })

  it('stays quiet on a strict-mode Calico IPIP node: remote pods come back through tunl0, node-b is on-link on eth0', async () => {
    const {cluster, node} = await load('rp-mtu-ok')
    assert.match(text(node, 'sysctls'), /^\/proc\/sys\/net\/ipv4\/conf\/all\/rp_filter:1$/m)
    assert.equal(checkRpFilterAsymmetric({cluster, node}).status, 'passed')
  })

  it('cannot tell where a policy-routing table covers the source (ip rule is not collected), or without rp_filter values', async () => {
    const {cluster, node} = await load('rp-strict-asymmetric')
    const policy = withArtifact(node, 'ip-route', text(node, 'ip-route') + 'unicast 192.168.1.0/24 via 192.168.0.1 dev eth0 table 100 proto static scope global \n')
    assert.match(reason(checkRpFilterAsymmetric({cluster, node: policy})), /^cannot tell: node node-b .* policy-routing table/)
    const old = withArtifact(node, 'sysctls', text(node, 'sysctls').replace(/^\/proc\/sys\/.*\n/gm, ''))
    assert.match(reason(checkRpFilterAsymmetric({cluster, node: old})), /^cannot tell: the sysctls output has no rp_filter values/)
  })

  it('does not apply without other nodes, and cannot tell when no interface carries the InternalIP', async () => {
    const {cluster, node} = await load('rp-strict-asymmetric')
    const alone = structuredClone(cluster)
    alone.nodes = alone.nodes.filter((n) => n.metadata.name === 'node-a')
    alone.calico.ipPools = []
    assert.match(reason(checkRpFilterAsymmetric({cluster: alone, node})), /^not applicable: no other node/)
    const moved = structuredClone(cluster)
    moved.nodes.find((n) => n.metadata.name === 'node-a')!.status!.addresses = [{type: 'InternalIP', address: '192.168.9.9'}]
    assert.match(reason(checkRpFilterAsymmetric({cluster: moved, node})), /^cannot tell: no interface carries the InternalIP 192\.168\.9\.9/)
  })

  it('looks routes up by longest prefix, then metric, in the main table only', () => {
    const routes = mainTable(parseRoutes(
      [
        'default via 10.0.0.1 dev eth0 metric 100',
        'default via 10.1.0.1 dev eth1 metric 50',
        '192.168.0.0/16 via 10.0.0.1 dev eth0',
        '192.168.1.0/24 via 10.1.0.1 dev eth1 table 100',
      ].join('\n'),
    ).routes)
    assert.equal(lookupRoute(routes, '192.168.1.3')?.dev, 'eth0')
    assert.equal(lookupRoute(routes, '8.8.8.8')?.dev, 'eth1')
  })
})

describe('NODE-006 loose rp_filter on a Calico node', () => {
  it('fires with the calico-node pod state as evidence', async () => {
    const {cluster, node} = await load('rp-loose-calico')
    const out = checkRpFilterCalicoLoose({cluster, node})
    assert.match(messages(out)[0]!, /^net\.ipv4\.conf\.all\.rp_filter = 2 \(loose\) and calico-node calico-node-4m8qz on this node is not ready \(CrashLoopBackOff\)/)
  })

  it('a calico-node that runs with loose RPF, or is told to ignore it, raises nothing', async () => {
    const {cluster, node} = await load('rp-loose-calico')
    const running = structuredClone(cluster)
    const pod = running.pods.find((p) => p.metadata.name === 'calico-node-4m8qz')!
    pod.status = structuredClone((await load('rp-mtu-ok')).cluster.pods.find((p) => p.metadata.name === 'calico-node-4m8qz')!.status)
    assert.equal(checkRpFilterCalicoLoose({cluster: running, node}).status, 'passed')
    const ignoring = structuredClone(cluster)
    ignoring.pods.find((p) => p.metadata.name === 'calico-node-4m8qz')!.spec!.containers![0]!.env = [{name: 'FELIX_IGNORELOOSERPF', value: 'true'}]
    assert.equal(checkRpFilterCalicoLoose({cluster: ignoring, node}).status, 'passed')
  })

  it('does not apply without Calico; cannot tell without a calico-node pod on the node', async () => {
    const {cluster, node} = await load('rp-loose-calico')
    const none = structuredClone(cluster)
    none.calico.ipPools = []
    none.pods = none.pods.filter((p) => p.metadata.labels?.['k8s-app'] !== 'calico-node')
    assert.match(reason(checkRpFilterCalicoLoose({cluster: none, node})), /^not applicable: no Calico/)
    const podless = structuredClone(cluster)
    podless.pods = podless.pods.filter((p) => p.metadata.labels?.['k8s-app'] !== 'calico-node')
    assert.match(reason(checkRpFilterCalicoLoose({cluster: podless, node})), /^cannot tell: .* no calico-node pod on this node/)
  })
})
