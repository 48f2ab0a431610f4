// NODE-010..012 beyond the catalog's fire/quiet pairs. Inputs are the real namespace captures under
// test/fixtures/checks/node-mtu (scripts/make-node-mtu-fixtures.ts): a Calico IPIP node (eth0 1500 with the InternalIP,
// tunl0 a veth stand-in, two cali* pod veths) wired as calico.yaml wires it (calico-node's FELIX_IPINIPMTU, FELIX_VXLANMTU,
// FELIX_WIREGUARDMTU from ConfigMap kube-system/calico-config veth_mtu), and a flannel VXLAN node with the plan's
// subnet.env, and canal nodes (flannel.1 with Calico's cali* pod veths; scripts/make-canal-mtu-fixtures.ts). API objects (the pod's environment, FelixConfigurations, cilium-config) and single `ip -j -d link`
// entries are edited where a case needs another source or MTU.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {NODE_CHECKS} from '../../../../../src/core/checks/node/index.js'
import {checkConfiguredMtu, checkMtuDrift, checkRoutedPodMtu, flannelMtu} from '../../../../../src/core/checks/node/mtu-config.js'
import type {CheckOutcome, FindingDraft} from '../../../../../src/core/checks/types.js'
import type {Container, KubeObject} from '../../../../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-mtu')
const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

type Link = {ifindex?: number; ifname: string; mtu: number; flags: string[]; operstate?: string; linkinfo?: {info_kind?: string}}

function editLinks(node: NodeSnapshot, edit: (links: Link[]) => Link[]): NodeSnapshot {
  const n = structuredClone(node)
  const a = n.artifacts['ip-link']!
  a.content = JSON.stringify(edit(JSON.parse(a.content) as Link[]))
  return n
}
const setMtu = (match: (n: string) => boolean, mtu: number) => (ls: Link[]) => ls.map((l) => (match(l.ifname) ? {...l, mtu} : l))
const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const findings = (o: CheckOutcome): FindingDraft[] => (o.status === 'failed' ? o.findings : [])

/** The cluster with calico-node's environment replaced (undefined: none) and the given FelixConfigurations. */
function calicoConfig(cluster: ClusterSnapshot, env: Container['env'], felix: KubeObject[] = []): ClusterSnapshot {
  const c = structuredClone(cluster)
  const pod = c.pods.find((p) => p.metadata.name === 'calico-node-4m8qz')!
  pod.spec!.containers![0]!.env = env
  if (felix.length > 0) c.calico.felixConfigurations = felix
  return c
}
const felixConf = (name: string, spec: Record<string, unknown>): KubeObject => ({apiVersion: 'crd.projectcalico.org/v1', kind: 'FelixConfiguration', metadata: {name}, spec}) as KubeObject

describe('NODE-010 the CNI\'s configured MTU', () => {
  it('veth_mtu raised to 1500 behind a running calico-node: NODE-010 names the setting and where it comes from, NODE-011 the drift, nothing else', async () => {
    const b = await readBundle(join(DIR, 'calico-veth-mtu-too-big'))
    const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: [...NODE_CHECKS]})
    assert.deepEqual(report.findings.map((f) => [f.id, f.severity, f.subject.name]), [
      ['NODE-010', 'error', 'tunl0'],
      ['NODE-011', 'warning', 'cali1b2c3d4e5f6'],
      ['NODE-011', 'warning', 'tunl0'],
    ])
    const f = report.findings.find((x) => x.id === 'NODE-010')!
    assert.match(f.message, /^Calico's IPIP MTU \(tunl0\) is configured as 1500, above eth0's MTU 1500 minus the 20-byte IPIP overhead \(1480\)/)
    assert.match(f.message, /env FELIX_IPINIPMTU of kube-system\/calico-node-4m8qz <- ConfigMap kube-system\/calico-config veth_mtu="1500"/)
    assert.ok(f.evidence!.includes('tunl0 now: mtu 1440'))
  })

  it('Felix\'s order: the environment over FelixConfiguration node.NODE over default; 0 anywhere on top is auto', async () => {
    const {cluster, node} = await load('calico-mtu-ok')
    const felix = [felixConf('default', {ipipMTU: 1400}), felixConf('node.node-a', {ipipMTU: 1490})]
    const perHost = checkConfiguredMtu({cluster: calicoConfig(cluster, undefined, felix), node})
    assert.deepEqual(findings(perHost).map((x) => x.evidence![0]), ['configured: 1490 (FelixConfiguration node.node-a spec.ipipMTU: 1490)'])
    const global = checkConfiguredMtu({cluster: calicoConfig(cluster, undefined, [felixConf('default', {ipipMTU: 1500}), felixConf('node.node-b', {ipipMTU: 1400})]), node})
    assert.match(findings(global)[0]!.message, /configured as 1500, .*\(configured in FelixConfiguration default spec\.ipipMTU: 1500\)$/)
    const envWins = checkConfiguredMtu({cluster: calicoConfig(cluster, [{name: 'FELIX_IPINIPMTU', value: '1480'}], felix), node})
    assert.equal(envWins.status, 'passed', 'FELIX_IPINIPMTU=1480 fits and overrides the FelixConfigurations')
    // 0 is auto even over the FelixConfigurations: Felix's estimate from eth0 (1500 - 20) fits.
    const envAuto = checkConfiguredMtu({cluster: calicoConfig(cluster, [{name: 'FELIX_IPINIPMTU', value: '0'}], felix), node})
    assert.equal(envAuto.status, 'passed')
  })

  it('auto: Felix\'s estimate from the links mtuIfacePattern matches; a pattern that misses the underlay falls back to 1460', async () => {
    const {cluster, node} = await load('calico-mtu-ok')
    const small = editLinks(node, setMtu((n) => n === 'eth0', 1450)) // a nested or tunnelled underlay
    const auto = calicoConfig(cluster, undefined)
    assert.equal(checkConfiguredMtu({cluster: auto, node: small}).status, 'passed', "eth0 matches the default pattern: 1450 - 20 fits")
    const missed = checkConfiguredMtu({cluster: calicoConfig(cluster, undefined, [felixConf('default', {mtuIfacePattern: '^bond.*'})]), node: small})
    const f = findings(missed)
    assert.deepEqual(f.map((x) => x.subject.name), ['tunl0'])
    assert.match(f[0]!.message, /^Calico's IPIP MTU \(tunl0\) is auto-detected as 1440, above eth0's MTU 1450 minus the 20-byte IPIP overhead \(1430\)/)
    assert.match(f[0]!.evidence![0]!, /no up link matches FelixConfiguration default spec\.mtuIfacePattern \^bond\.\*, so Felix falls back to a host MTU of 1460, minus 20\)$/)
  })

  it('cannot tell without the calico-node pod or the ConfigMap its environment names', async () => {
    const {cluster, node} = await load('calico-veth-mtu-too-big')
    const noPod = structuredClone(cluster)
    noPod.pods = noPod.pods.filter((p) => !p.metadata.name.startsWith('calico-node'))
    assert.match(reason(checkConfiguredMtu({cluster: noPod, node})), /^cannot tell: Calico: the snapshot has no calico-node pod on this node/)
    const noCm = structuredClone(cluster)
    noCm.configMaps = noCm.configMaps.filter((c) => c.metadata.name !== 'calico-config')
    assert.match(reason(checkConfiguredMtu({cluster: noCm, node})), /^cannot tell: Calico IPIP MTU: env FELIX_IPINIPMTU of kube-system\/calico-node-4m8qz comes from ConfigMap kube-system\/calico-config, which the snapshot does not hold/)
  })

  it('flannel: FLANNEL_MTU from subnet.env against flannel.1\'s underlay minus 50; cannot tell without subnet.env', async () => {
    const {cluster, node} = await load('flannel-subnet-mtu-ok')
    assert.equal(flannelMtu(node.artifacts['flannel-subnet-env']!.content), '1450')
    assert.equal(checkConfiguredMtu({cluster, node}).status, 'passed')
    const big = structuredClone(node)
    big.artifacts['flannel-subnet-env']!.content = big.artifacts['flannel-subnet-env']!.content.replace('FLANNEL_MTU=1450', 'FLANNEL_MTU=1472')
    const f = findings(checkConfiguredMtu({cluster, node: big}))
    assert.deepEqual(f.map((x) => x.subject.name), ['flannel.1'])
    assert.match(f[0]!.message, /^flannel's MTU \(flannel\.1\) is configured as 1472, above eth0's MTU 1500 minus the 50-byte VXLAN overhead \(1450\).*\/run\/flannel\/subnet\.env FLANNEL_MTU=1472\)$/)
    const none = structuredClone(node)
    delete none.artifacts['flannel-subnet-env']
    assert.match(reason(checkConfiguredMtu({cluster, node: none})), /^cannot tell: flannel: flannel\.1 is up but \/run\/flannel\/subnet\.env was not read/)
  })

  it('Cilium: cilium-config mtu against the underlay itself (Cilium puts the overhead on routes); unset is auto', async () => {
    const {cluster, node} = await load('calico-mtu-ok')
    const ciliumNode = editLinks(node, (ls) =>
      ls
        .filter((l) => l.ifname !== 'tunl0' && l.ifname !== 'tunl0-peer')
        .map((l) => (l.ifname.startsWith('cali') ? {...l, ifname: l.ifname.replace('cali', 'lxc')} : l))
        .concat({ifindex: 90, ifname: 'cilium_host', mtu: 1500, flags: ['BROADCAST', 'MULTICAST', 'NOARP', 'UP', 'LOWER_UP'], operstate: 'UP', linkinfo: {info_kind: 'veth'}}),
    )
    const withMtu = (mtu?: string) => {
      const c = structuredClone(cluster)
      c.pods = c.pods.filter((p) => !p.metadata.name.startsWith('calico-node'))
      c.calico.ipPools = []
      c.configMaps.push({apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'cilium-config'}, data: mtu === undefined ? {tunnel: 'vxlan'} : {tunnel: 'vxlan', mtu}})
      return c
    }
    const big = findings(checkConfiguredMtu({cluster: withMtu('9000'), node: ciliumNode}))
    assert.deepEqual(big.map((x) => x.subject.name), ['eth0'])
    assert.match(big[0]!.message, /^Cilium's device MTU \(the pods' lxc\*\) is configured as 9000, above eth0's MTU 1500 \(1500\)/)
    assert.equal(checkConfiguredMtu({cluster: withMtu('1500'), node: ciliumNode}).status, 'passed')
    assert.match(reason(checkConfiguredMtu({cluster: withMtu(undefined), node: ciliumNode})), /auto \(kube-system\/cilium-config has no mtu key\)/)
    // Drift: mtu 1500 configured, the pod devices still at 1440 from before.
    const drift = findings(checkMtuDrift({cluster: withMtu('1500'), node: ciliumNode}))
    assert.deepEqual(drift.map((x) => x.evidence!.slice(1)), [['lxc1b2c3d4e5f6: mtu 1440', 'lxc7a8b9c0d1e2: mtu 1440']])
    // NODE-012: a pod device above the underlay.
    const over = findings(checkRoutedPodMtu({cluster: withMtu('9000'), node: editLinks(ciliumNode, setMtu((n) => n.startsWith('lxc'), 9000))}))
    assert.match(over[0]!.message, /^2 pod veth\(s\) have MTU 9000, above eth0's MTU \(the underlay\) \(1500\)/)
  })
})

describe('NODE-011 drift from the configured MTU', () => {
  it('flannel: a pod veth below FLANNEL_MTU is drift; one above flannel.1 is NODE-008\'s error, not repeated', async () => {
    const {cluster, node} = await load('flannel-pod-mtu-drift')
    const f = findings(checkMtuDrift({cluster, node}))
    assert.deepEqual(f.map((x) => [x.subject.name, x.evidence]), [['veth5e0c1a7b', ['configured: 1450 (/run/flannel/subnet.env FLANNEL_MTU=1450)', 'veth5e0c1a7b: mtu 1400']]])
    const above = editLinks(node, setMtu((n) => n === 'veth5e0c1a7b', 1500))
    assert.equal(checkMtuDrift({cluster, node: above}).status, 'passed')
    const report = analyzeSnapshots(cluster, [above], {metadata: meta, checks: [...NODE_CHECKS]})
    assert.deepEqual(report.findings.map((x) => x.id), ['NODE-008'])
  })

  it('auto-detected MTUs are not compared (Felix derives them): cannot tell, saying so', async () => {
    const {cluster, node} = await load('calico-veth-mtu-too-big')
    const auto = calicoConfig(cluster, undefined)
    assert.match(reason(checkMtuDrift({cluster: auto, node})), /^cannot tell: Calico's IPIP MTU \(tunl0\): auto \(neither env FELIX_IPINIPMTU of kube-system\/calico-node-4m8qz nor a FelixConfiguration spec\.ipipMTU sets it\)$/)
  })
})

describe('NODE-012 routed-CNI pod veths', () => {
  it('names the Calico pod veth left above the tunnel after veth_mtu was lowered, and only it', async () => {
    const b = await readBundle(join(DIR, 'calico-pods-above-tunnel'))
    const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: [...NODE_CHECKS]})
    assert.deepEqual(report.findings.map((f) => [f.id, f.subject.name, f.evidence]), [['NODE-012', 'cali1b2c3d4e5f6', ["the tunl0 tunnel's MTU: 1400", 'cali1b2c3d4e5f6: mtu 1440']]])
  })

  it('without a Calico tunnel the underlay is the limit; a tunnel no route uses cannot tell', async () => {
    const {cluster, node} = await load('calico-mtu-ok')
    const bgp = editLinks(node, (ls) => setMtu((n) => n.startsWith('cali'), 1500)(ls.filter((l) => l.ifname !== 'tunl0')))
    assert.equal(checkRoutedPodMtu({cluster, node: bgp}).status, 'passed', '1500 pods on a 1500 underlay without encapsulation')
    const jumbo = editLinks(bgp, setMtu((n) => n.startsWith('cali'), 9000))
    assert.match(findings(checkRoutedPodMtu({cluster, node: jumbo}))[0]!.message, /^2 pod veth\(s\) have MTU 9000, above eth0's MTU \(no Calico tunnel is up/)
    const unrouted = structuredClone(node)
    unrouted.artifacts['ip-route']!.content = unrouted.artifacts['ip-route']!.content.replace(/^.*dev tunl0 .*$/gm, '')
    assert.match(reason(checkRoutedPodMtu({cluster, node: unrouted})), /^cannot tell: Calico: no route goes through tunl0$/)
  })

  it('canal: Calico pod veths at flannel.1\'s 1450 are quiet (every MTU check), one left at 1500 is named against flannel.1', async () => {
    const ok = await readBundle(join(DIR, 'canal-mtu-ok'))
    assert.equal(checkRoutedPodMtu({cluster: ok.cluster, node: ok.nodes[0]!}).status, 'passed')
    const quiet = analyzeSnapshots(ok.cluster, ok.nodes, {metadata: meta, checks: [...NODE_CHECKS]})
    assert.deepEqual(quiet.findings.filter((f) => f.severity !== 'info').map((f) => `${f.id} ${f.message}`), [])
    const big = await readBundle(join(DIR, 'canal-pod-mtu-too-big'))
    const f = findings(checkRoutedPodMtu({cluster: big.cluster, node: big.nodes[0]!}))
    assert.deepEqual(f.map((x) => [x.subject.name, x.evidence]), [['cali1b2c3d4e5f6', ["the flannel.1 tunnel's MTU (canal: flannel carries the pods' traffic between nodes): 1450", 'cali1b2c3d4e5f6: mtu 1500']]])
    assert.match(f[0]!.message, /^1 pod veth\(s\) have MTU 1500, above the flannel\.1 tunnel's MTU .*canal's veth_mtu, or the one they were created with, is above flannel's MTU\)$/)
  })

  it('canal: without a route through flannel.1, or without the route listing, cannot tell (saying which)', async () => {
    const {cluster, node} = await load('canal-pod-mtu-too-big')
    const unrouted = structuredClone(node)
    unrouted.artifacts['ip-route']!.content = unrouted.artifacts['ip-route']!.content.replace(/^.*dev flannel\.1 .*$/gm, '')
    assert.match(reason(checkRoutedPodMtu({cluster, node: unrouted})), /^cannot tell: Calico pod veths behind flannel \(canal\): no route goes through flannel\.1$/)
    const noRoutes = structuredClone(node)
    delete noRoutes.artifacts['ip-route']
    assert.match(reason(checkRoutedPodMtu({cluster, node: noRoutes})), /^cannot tell: Calico pod veths behind flannel \(canal\): missing input: ip-route$/)
  })
})
