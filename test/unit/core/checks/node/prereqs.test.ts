// NODE-001..003 beyond the catalog's fire/quiet pair: each "cannot tell" path skips, routed CNIs never fire NODE-002,
// the IPv6 keys are judged only on nodes with IPv6, and FORWARD DROP is judged by the rules reachable from FORWARD.
// Inputs are the real namespace captures under test/fixtures/checks/node (scripts/make-node-prereq-fixtures.ts),
// with single artifacts edited where a case cannot be shown in a namespace (br_netfilter unloaded).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkBridgeNetfilter, checkForwardDrop, checkIpForward, checkRouteLocalnet, nodeFamilies} from '../../../../../src/core/checks/node/prereqs.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
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
const dropLines = (s: string, re: RegExp) => s.split('\n').filter((l) => !re.test(l)).join('\n')
const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const messages = (o: CheckOutcome) => (o.status === 'failed' ? o.findings.map((f) => f.message) : [])

/** The first lines of a real /proc/modules, without br_netfilter (format: name size refcount deps state address). */
const MODULES_WITHOUT_BR_NETFILTER = [
  'xt_conntrack 16384 4 - Live 0x0000000000000000',
  'nf_conntrack 176128 5 xt_conntrack,nf_nat,xt_MASQUERADE,nf_conntrack_netlink,xt_nat, Live 0x0000000000000000',
  'bridge 307200 0 - Live 0x0000000000000000',
  'stp 16384 1 bridge, Live 0x0000000000000000',
  'llc 16384 2 bridge,stp, Live 0x0000000000000000',
].join('\n')
const MODULES_WITH_BR_NETFILTER = 'br_netfilter 32768 0 - Live 0x0000000000000000\n' + MODULES_WITHOUT_BR_NETFILTER.replace('bridge 307200 0 -', 'bridge 307200 1 br_netfilter,')

describe('node forwarding prerequisites', () => {
  it('reads the node families from the Node: the fixture node is dual-stack; a missing Node means IPv4', async () => {
    const {cluster} = await load('forwarding-ok')
    assert.deepEqual({...nodeFamilies(cluster, 'node-a'), source: ''}, {ipv4: true, ipv6: true, source: ''})
    assert.deepEqual({...nodeFamilies(cluster, 'nope'), source: ''}, {ipv4: true, ipv6: false, source: ''})
  })

  it('NODE-001: IPv6 forwarding off fires on the dual-stack node and names the key; a missing key skips', async () => {
    const {cluster, node} = await load('forwarding-ok')
    const v6off = withArtifact(node, 'sysctls', text(node, 'sysctls').replace('net.ipv6.conf.all.forwarding = 1', 'net.ipv6.conf.all.forwarding = 0'))
    const out = checkIpForward({cluster, node: v6off})
    assert.equal(out.status, 'failed')
    assert.match(messages(out)[0]!, /^net\.ipv6\.conf\.all\.forwarding = 0 \(a dual-stack node\)/)
    const noV6Key = withArtifact(node, 'sysctls', dropLines(text(node, 'sysctls'), /ipv6/))
    assert.match(reason(checkIpForward({cluster, node: noV6Key})), /cannot tell: .*net\.ipv6\.conf\.all\.forwarding/)
    assert.equal(reason(checkIpForward({cluster, node: withArtifact(node, 'sysctls', undefined)})), 'missing input: sysctls')
  })

  it('NODE-001: an IPv4-only node does not need IPv6 forwarding', async () => {
    const {cluster, node} = await load('forwarding-ok')
    const v4 = structuredClone(cluster)
    const n = v4.nodes.find((x) => x.metadata.name === 'node-a')!
    n.spec = {podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24']}
    n.status!.addresses = [{type: 'InternalIP', address: '192.168.0.2'}]
    const v6off = withArtifact(node, 'sysctls', text(node, 'sysctls').replace('net.ipv6.conf.all.forwarding = 1', 'net.ipv6.conf.all.forwarding = 0'))
    assert.equal(checkIpForward({cluster: v4, node: v6off}).status, 'passed')
  })

  it('NODE-002: never applies to a node without a bridge that has veth ports (routed CNIs such as Calico, Cilium)', async () => {
    const {cluster, node} = await load('bridge-nf-off')
    const links = (JSON.parse(text(node, 'ip-link')) as Array<{ifname: string; master?: string}>).map((l) => {
      const {master: _m, ...rest} = l
      return rest
    })
    const routed = withArtifact(node, 'ip-link', JSON.stringify(links))
    assert.match(reason(checkBridgeNetfilter({cluster, node: routed})), /^not applicable: no bridge with veth ports/)
  })

  it('NODE-002: keys absent and br_netfilter not in /proc/modules fires on the module; loaded or unknown modules skip', async () => {
    const {cluster, node} = await load('forwarding-ok')
    const noKeys = withArtifact(node, 'sysctls', dropLines(text(node, 'sysctls'), /^net\.bridge\./))
    const fired = checkBridgeNetfilter({cluster, node: withArtifact(noKeys, 'modules', MODULES_WITHOUT_BR_NETFILTER)})
    assert.equal(fired.status, 'failed')
    assert.match(messages(fired)[0]!, /^br_netfilter is not loaded on a node whose pods sit on a bridge \(cni0\)/)
    assert.match(reason(checkBridgeNetfilter({cluster, node: withArtifact(noKeys, 'modules', MODULES_WITH_BR_NETFILTER)})), /cannot tell: br_netfilter is loaded/)
    assert.match(reason(checkBridgeNetfilter({cluster, node: noKeys})), /loaded modules were not collected/)
  })

  it('NODE-002: bridge-nf-call-ip6tables = 0 fires on the dual-stack node', async () => {
    const {cluster, node} = await load('forwarding-ok')
    const n = withArtifact(node, 'sysctls', text(node, 'sysctls').replace('bridge-nf-call-ip6tables = 1', 'bridge-nf-call-ip6tables = 0'))
    const out = checkBridgeNetfilter({cluster, node: n})
    assert.deepEqual(out.status === 'failed' ? out.findings.map((f) => f.subject.name) : out, ['net.bridge.bridge-nf-call-ip6tables'])
  })

  it('NODE-003: follows FORWARD into user chains: a reachable ACCEPT is an accept path, a chain that only drops is not', async () => {
    const {cluster, node} = await load('forward-drop')
    const save = text(node, 'iptables-save')
    const addToFilter = (s: string, chainDecl: string, rules: string[]) =>
      s.replace(/(\*filter\n(?:.*\n)*?)(:OUTPUT ACCEPT [^\n]*\n)/, `$1$2${chainDecl}\n`).replace(/(\*filter\n(?:.*\n)*?)COMMIT/, `$1${rules.join('\n')}\nCOMMIT`)
    const viaUser = addToFilter(save, ':DOCKER-USER - [0:0]', ['-A FORWARD -j DOCKER-USER', '-A DOCKER-USER -s 10.0.0.0/16 -j ACCEPT'])
    assert.equal(checkForwardDrop({cluster, node: withArtifact(node, 'iptables-save', viaUser)}).status, 'passed')
    const onlyDrops = addToFilter(save, ':DOCKER-USER - [0:0]', ['-A FORWARD -j DOCKER-USER', '-A DOCKER-USER -s 10.9.0.0/16 -j DROP'])
    const out = checkForwardDrop({cluster, node: withArtifact(node, 'iptables-save', onlyDrops)})
    assert.equal(out.status, 'failed')
    assert.match(messages(out)[0]!, /no rule reachable from it accepts/)
    const cilium = addToFilter(save, ':CILIUM_FORWARD - [0:0]', ['-A FORWARD -m comment --comment "cilium-feeder: CILIUM_FORWARD" -j CILIUM_FORWARD'])
    assert.equal(checkForwardDrop({cluster, node: withArtifact(node, 'iptables-save', cilium)}).status, 'passed')
  })

  it('NODE-003: the real capture with DROP and no FORWARD rules fires; a missing dump skips', async () => {
    const {cluster, node} = await load('forward-drop')
    assert.match(messages(checkForwardDrop({cluster, node}))[0]!, /policy DROP and no rules/)
    assert.equal(reason(checkForwardDrop({cluster, node: withArtifact(node, 'iptables-save', undefined)})), 'missing input: iptables-save')
  })

  it('NODE-004: only where localhost NodePorts are in effect: no nodePort Service, localhostNodePorts false or another mode skip', async () => {
    const {cluster, node} = await load('route-localnet-off')
    assert.match(messages(checkRouteLocalnet({cluster, node}))[0]!, /route_localnet = 0 although kube-proxy .* something reset it/)
    const noNodePorts = structuredClone(cluster)
    noNodePorts.services = noNodePorts.services.filter((s) => s.spec.type !== 'NodePort' && s.spec.type !== 'LoadBalancer')
    assert.equal(reason(checkRouteLocalnet({cluster: noNodePorts, node})), 'not applicable: no Service has a nodePort')
    const off = structuredClone(cluster)
    for (const cm of off.configMaps) if (cm.data?.['config.conf']) cm.data['config.conf'] += '\niptables:\n  localhostNodePorts: false\n'
    assert.equal(reason(checkRouteLocalnet({cluster: off, node})), 'not applicable: iptables.localhostNodePorts is false')
    const ipvs = withArtifact(node, 'proxy-mode', 'ipvs')
    assert.match(reason(checkRouteLocalnet({cluster, node: ipvs})), /^not applicable: kube-proxy runs in ipvs mode/)
  })
})
