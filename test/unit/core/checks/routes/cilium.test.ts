// Cilium's route checks (RT-013, RT-014) on the real captures under test/fixtures/checks/cilium-routes (node-a built in
// a netns by scripts/make-cilium-fixtures.ts; IP plan there): tunnel and native (auto-direct-node-routes) modes, the
// modes that are not Cilium's to route or not modelled, pod CIDRs from CiliumNodes or (ipam kubernetes) Node objects,
// and every other route check staying quiet on a Cilium node.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {readCiliumConfig} from '../../../../../src/core/checks/routes/cilium.js'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {KubeObject} from '../../../../../src/core/model/k8s.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES, readFixture} from '../../../../support/golden.js'

async function bundle(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(FIXTURES, 'checks', 'cilium-routes', name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function run(cluster: ClusterSnapshot, node: NodeSnapshot): {findings: Finding[]; status: Record<string, string>} {
  const out = runChecks(ROUTES_CHECKS, cluster, [node])
  assert.deepEqual(out.errors, [])
  return {findings: out.findings, status: Object.fromEntries(out.results.map((r) => [r.id, r.status === 'skipped' ? `skipped: ${r.reason}` : r.status]))}
}

const cilium = (s: Record<string, string>) => ({'RT-013': s['RT-013'], 'RT-014': s['RT-014']})

function withConfig(cluster: ClusterSnapshot, change: (d: Record<string, string>) => Record<string, string>): ClusterSnapshot {
  return {...cluster, configMaps: cluster.configMaps.map((c) => (c.metadata.name === 'cilium-config' ? {...c, data: change({...c.data})} : c))}
}

function editRoutes(node: NodeSnapshot, change: (text: string) => string): NodeSnapshot {
  const a = node.artifacts['ip-route']!
  return {...node, artifacts: {...node.artifacts, 'ip-route': {...a, content: change(a.content)}}}
}

describe('Cilium routes (RT-013, RT-014)', () => {
  it('tunnel mode, healthy: both pass, and no other route check fails or judges Cilium as another CNI', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-healthy')
    const r = run(cluster, node)
    assert.deepEqual(r.findings, [])
    assert.deepEqual(cilium(r.status), {'RT-013': 'passed', 'RT-014': 'passed'})
    assert.equal(r.status['RT-009'], 'skipped: not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)')
  })

  it("tunnel mode: a missing route to another node's CiliumNode pod CIDR is an error naming the expected route", async () => {
    const {cluster, node} = await bundle('cilium-tunnel-missing-route')
    const r = run(cluster, node)
    assert.deepEqual(cilium(r.status), {'RT-013': 'failed', 'RT-014': 'passed'})
    assert.equal(r.findings.length, 1)
    const f = r.findings[0]!
    assert.equal(f.id, 'RT-013')
    assert.equal(f.severity, 'error')
    assert.equal(f.message, "no route to node-b's pod CIDR 10.0.2.0/24: traffic from this node's host network (host-network pods, node processes) to pods on node-b follows the default route instead of the tunnel")
    assert.deepEqual(f.evidence, [
      'expected: 10.0.2.0/24 via 10.0.1.141 dev cilium_host src 10.0.1.141 mtu <tunnel route MTU>',
      'pod CIDR of node-b: 10.0.2.0/24 (CiliumNode node-b spec.ipam.podCIDRs)',
      'routing-mode=tunnel, tunnel-protocol=vxlan in kube-system/cilium-config; pod CIDRs from CiliumNodes',
    ])
  })

  it("a missing local node route is RT-014's warning", async () => {
    const {cluster, node} = await bundle('cilium-tunnel-missing-local-route')
    const r = run(cluster, node)
    assert.deepEqual(cilium(r.status), {'RT-013': 'passed', 'RT-014': 'failed'})
    assert.deepEqual(
      r.findings.map((f) => [f.id, f.severity, f.subject.name]),
      [['RT-014', 'warning', '10.0.1.0/24']],
    )
  })

  it('tunnel mode: a route through cilium_host with another gateway is wrong', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-healthy')
    const r = run(cluster, editRoutes(node, (t) => t.replace('10.0.2.0/24 via 10.0.1.141', '10.0.2.0/24 via 10.0.1.99')))
    assert.equal(r.status['RT-013'], 'failed')
    assert.match(r.findings[0]!.message, /is wrong: its gateway 10\.0\.1\.99 is not cilium_host's address 10\.0\.1\.141/)
  })

  it('native routing with auto-direct-node-routes: the direct route passes; a node behind the gateway needs none', async () => {
    const {cluster, node} = await bundle('cilium-native-healthy')
    const r = run(cluster, node)
    assert.deepEqual(r.findings, [])
    assert.deepEqual(cilium(r.status), {'RT-013': 'passed', 'RT-014': 'passed'})
    const gone = run(cluster, editRoutes(node, (t) => t.replace(/^unicast 10\.0\.2\.0\/24 .*\n/m, '')))
    assert.deepEqual(
      gone.findings.map((f) => [f.id, f.message]),
      [['RT-013', "no route to node-b's pod CIDR 10.0.2.0/24: pods here cannot reach pods on node-b"]],
    )
    assert.ok(gone.findings[0]!.evidence.includes('expected: 10.0.2.0/24 via 192.168.0.12 dev eth0'))
  })

  it('native routing: a tunnel-mode route left behind is wrong, and says so', async () => {
    const {cluster, node} = await bundle('cilium-native-tunnel-leftover')
    const r = run(cluster, node)
    assert.deepEqual(cilium(r.status), {'RT-013': 'failed', 'RT-014': 'passed'})
    assert.match(r.findings[0]!.message, /its next hop 10\.0\.1\.141 is not node-b's address 192\.168\.0\.12 \(a tunnel-mode route left from before the switch to native routing\?\)/)
  })

  it("native routing without auto-direct-node-routes: other nodes' routes are not Cilium's; the local route still is", async () => {
    const {cluster, node} = await bundle('cilium-native-healthy')
    const r = run(withConfig(cluster, (d) => ({...d, 'auto-direct-node-routes': 'false'})), editRoutes(node, (t) => t.replace(/^unicast 10\.0\.2\.0\/24 .*\n/m, '')))
    assert.match(r.status['RT-013']!, /^skipped: not applicable: Cilium routes natively without auto-direct-node-routes .*cloud routes, BGP/)
    assert.equal(r.status['RT-014'], 'passed')
  })

  it('cloud IPAM, hybrid routing, IPv6-only and endpoint routes skip with the reason', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-missing-local-route')
    const with_ = (d: Record<string, string>) => cilium(run(withConfig(cluster, (x) => ({...x, ...d})), node).status)
    assert.match(with_({ipam: 'eni'})['RT-013']!, /^skipped: not applicable: Cilium's IPAM here is eni \(AWS ENI\)/)
    assert.match(with_({ipam: 'azure'})['RT-014']!, /^skipped: not applicable: Cilium's IPAM here is azure/)
    assert.equal(with_({'routing-mode': 'hybrid'})['RT-013'], 'skipped: not modelled: Cilium routing-mode hybrid (only tunnel and native are)')
    assert.match(with_({'enable-ipv4': 'false'})['RT-013']!, /^skipped: not applicable: IPv4 is disabled/)
    assert.match(with_({'enable-endpoint-routes': 'true'})['RT-014']!, /^skipped: not applicable: Cilium installs no local node route here \(enable-endpoint-routes=true/)
  })

  it('pod CIDRs: without CiliumNodes, ipam kubernetes takes Node spec.podCIDRs; other IPAM modes cannot tell', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-healthy')
    const {ciliumNodes: _, ...noCrs} = cluster
    assert.match(cilium(run(noCrs, node).status)['RT-013']!, /^skipped: cannot tell each node's pod CIDRs: CiliumNodes were not read, and Cilium's IPAM is cluster-pool/)
    const forbidden: ClusterSnapshot = {...noCrs, unavailable: [{resource: 'ciliumnodes', why: 'forbidden', note: 'listing cilium.io/v2 CiliumNodes is forbidden for this user'}]}
    assert.match(cilium(run(forbidden, node).status)['RT-013']!, /forbidden for this user/)
    // ipam kubernetes: the Nodes' podCIDRs (10.244.N.0/24) are what Cilium routes, and this node routes 10.0.N.0/24.
    const r = run(withConfig(noCrs, (d) => ({...d, ipam: 'kubernetes'})), node)
    assert.deepEqual(
      r.findings.map((f) => [f.id, f.subject.name]),
      [
        ['RT-013', '10.244.2.0/24'],
        ['RT-013', '10.244.3.0/24'],
        ['RT-014', '10.244.1.0/24'],
      ],
    )
    assert.ok(r.findings[0]!.evidence.some((e) => e.includes('pod CIDRs from Node spec.podCIDRs (ipam kubernetes; CiliumNodes were not read)')))
  })

  it('not a Cilium node (no cilium_host here, or no sign of Cilium in the cluster): skipped with the reason', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-healthy')
    const noHost = {...node, artifacts: Object.fromEntries(Object.entries(node.artifacts).filter(([id]) => id !== 'ip-addr' && id !== 'ip-link'))}
    const r = run(cluster, editRoutes(noHost, (t) => t.split('\n').filter((l) => !l.includes('cilium_host')).join('\n')))
    assert.equal(r.status['RT-013'], "skipped: not applicable: nothing shows Cilium's datapath on node-a (no cilium_host link or route)")
    const other = run({...cluster, configMaps: [], daemonSets: []}, node)
    assert.match(other.status['RT-013']!, /^skipped: not applicable: the CNI here is not known, not Cilium/)
  })
})

describe('Cilium routes with the layout discovery', () => {
  const withLayout = (node: NodeSnapshot, discovery: string): NodeSnapshot => ({
    ...node,
    artifacts: {...node.artifacts, layout: {id: 'layout', source: 'sh -c <layout discovery>', exitCode: 0, content: readFixture(`layouts/discovery/${discovery}.txt`)}},
  })

  it('a kubeadm Cilium node is judged; GKE (Dataplane V2, anetd) is not modelled', async () => {
    const {cluster, node} = await bundle('cilium-tunnel-missing-route')
    assert.equal(run(cluster, withLayout(node, 'cilium-kpr')).status['RT-013'], 'failed')
    const gke = cilium(run(cluster, withLayout(node, 'gke-cos')).status)
    assert.deepEqual(gke, {
      'RT-013': 'skipped: not modelled: Cilium on GKE (Dataplane V2, anetd) is configured by GKE and its routes are not verified',
      'RT-014': 'skipped: not modelled: Cilium on GKE (Dataplane V2, anetd) is configured by GKE and its routes are not verified',
    })
  })
})

describe('readCiliumConfig', () => {
  it('reads the routing mode from routing-mode, the pre-1.14 tunnel key, or the tunnel link', () => {
    assert.deepEqual(readCiliumConfig({'routing-mode': 'tunnel', 'tunnel-protocol': 'geneve'}, undefined), {
      ok: true,
      routing: {kind: 'tunnel', protocol: 'geneve'},
      basis: 'routing-mode=tunnel, tunnel-protocol=geneve in kube-system/cilium-config',
      localRoute: true,
    })
    const old = readCiliumConfig({tunnel: 'disabled', 'auto-direct-node-routes': 'true', ipam: 'kubernetes'}, undefined)
    assert.ok(old.ok && old.routing.kind === 'native' && old.routing.autoDirect && old.ipam === 'kubernetes')
    const byLink = readCiliumConfig({}, 'vxlan')
    assert.ok(byLink.ok && byLink.routing.kind === 'tunnel' && /the node has link cilium_vxlan/.test(byLink.basis))
    const none = readCiliumConfig({}, undefined)
    assert.ok(!none.ok && /^cannot tell Cilium's routing mode/.test(none.reason))
    const off = readCiliumConfig({'routing-mode': 'native', 'enable-local-node-route': 'false'}, undefined)
    assert.ok(off.ok && !off.localRoute && off.localRouteOff === 'enable-local-node-route=false in cilium-config')
  })
})

// Calico's eBPF dataplane (FELIX_BPFENABLED / FelixConfiguration bpfEnabled) still programs the same routes as its
// iptables dataplane (cali* host routes, VXLAN routes, BIRD's IPIP/BGP routes and blackholes), so RT-001..RT-008 apply
// unchanged. What it adds: with host-networked NAT (the connect-time load-balancing workaround), Felix routes each
// Service IP `<IP>/32 via 169.254.1.1 dev bpfin.cali` (projectcalico/calico felix/dataplane/linux/bpf_ep_mgr.go
// setRoute). Those are never pod routes, also when a LoadBalancer IPPool covers the IP.
describe('Calico eBPF nodes: the Calico route checks judge them as any Calico node', () => {
  const ROUTES = ['RT-001', 'RT-002', 'RT-003', 'RT-004', 'RT-005', 'RT-006', 'RT-007']
  const statusOf = (s: Record<string, string>) => Object.fromEntries(ROUTES.map((id) => [id, s[id]]))

  async function calicoBundle(): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
    const b = await readBundle(join(FIXTURES, 'checks', 'routes', 'healthy-vxlan'))
    return {cluster: b.cluster, node: b.nodes[0]!}
  }

  it("bpfin.cali routes for Service IPs raise nothing, inside a LoadBalancer IPPool or not", async () => {
    const {cluster, node} = await calicoBundle()
    const before = run(cluster, node)
    assert.deepEqual(before.findings, [])
    const ebpf: ClusterSnapshot = {
      ...cluster,
      daemonSets: [
        ...cluster.daemonSets,
        {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'calico-node', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'calico-node', env: [{name: 'FELIX_BPFENABLED', value: 'true'}]}]}}}} as ClusterSnapshot['daemonSets'][number],
      ],
      calico: {
        ...cluster.calico,
        ipPools: [...cluster.calico.ipPools, {apiVersion: 'crd.projectcalico.org/v1', kind: 'IPPool', metadata: {name: 'lb-pool'}, spec: {cidr: '192.168.100.0/24', allowedUses: ['LoadBalancer'], ipipMode: 'Never', vxlanMode: 'Never'}} as KubeObject],
      },
    }
    const bpfRoutes =
      'unicast 10.96.0.10 via 169.254.1.1 dev bpfin.cali table main proto 80 scope global \n' +
      'unicast 10.96.0.1 via 169.254.1.1 dev bpfin.cali table main proto 80 scope global \n' +
      'unicast 192.168.100.5 via 169.254.1.1 dev bpfin.cali table main proto 80 scope global \n'
    const after = run(ebpf, editRoutes(node, (t) => t.replace(/^(unicast 10\.244\.1\.5 )/m, `${bpfRoutes}$1`)))
    assert.deepEqual(after.findings.map((f) => `${f.id} ${f.message}`), [])
    assert.deepEqual(statusOf(after.status), statusOf(before.status))
    assert.equal(after.status['RT-013'], 'skipped: not applicable: the CNI here is calico, not Cilium')
  })
})
