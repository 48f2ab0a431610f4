// The nftables proxier's version rules past the goldens: the `iif` → `iifname` fix by patch level (kubernetes#134024),
// v1.37's 128-byte element comments, the localhost-NodePort objects and their gate, nodePortAddresses keywords, and
// versions newer than the newest layout (rendered with it, said in a `#` line and the notes, never refused).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {layoutVersionFor, parseKubeProxyVersion} from '../../../../../src/core/proxier/config.js'
import {generateNftables, hasExplicitLoopback, truncateNftComment, usesIifname} from '../../../../../src/core/proxier/nftables/generate.js'
import {nftablesRenderInput} from '../../../../../src/core/proxier/nftables/options.js'
import {serializeNftTable, type NftExpectedTable} from '../../../../../src/core/proxier/nftables/table.js'
import {loadObjects} from '../../../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../../../../src/core/proxier/render-input.js'
import {readFixture} from '../../../../support/golden.js'

/** Renders the shared fixture objects of `dir` for node-a at `version`, the ConfigMap replaced by `config` when given. */
function render(dir: string, version: string, config?: Record<string, unknown>, own = false): {table: NftExpectedTable; notes: string[]} {
  const objects = loadObjects([
    {name: 'nodes.yaml', text: readFixture('proxier/iptables/nodes.yaml')},
    {name: `${dir}/objects.yaml`, text: readFixture(`proxier/${own ? 'nftables' : 'iptables'}/${dir}/objects.yaml`)},
  ])
  const text = kubeProxyConfigText(objects)
  const cfg = config ?? (text ? (parseYaml(text) as Record<string, unknown>) : undefined)
  const v = parseKubeProxyVersion(version)!
  // render-input.ts (owned elsewhere) may still refuse versions past the newest layout: build the input at the
  // newest layout and hand the generator the real version, which is what it must cope with.
  const {layout} = layoutVersionFor(v)
  const r = buildRenderInput(objects, {nodeName: 'node-a', version: layout, ...(cfg ? {kubeProxyConfig: cfg} : {})})
  r.version = v
  r.input.options.version = v
  const nft = nftablesRenderInput(r, cfg, objects.serviceCIDRs)
  return {table: generateNftables(nft.input), notes: nft.notes}
}

const allRules = (t: NftExpectedTable) => t.chains.flatMap((c) => c.rules.map((r) => r.text))

describe('nftables: iif → iifname by patch level (kubernetes#134024)', () => {
  it('v1.35.0+, v1.34.2+ and v1.33.6+ match with iifname; earlier patches and v1.29–v1.32 with iif; an unknown patch counts as fixed', () => {
    const cases: Array<[string, boolean]> = [
      ['v1.33.5', false], ['v1.33.6', true], ['v1.34.1', false], ['v1.34.2', true], ['v1.35.0', true], ['v1.32.9', false],
      ['v1.34', true], ['v1.33', true], ['v1.31', false], ['v1.37.1', true], ['v1.38.0-alpha.2', true],
    ]
    for (const [v, want] of cases) assert.equal(usesIifname(parseKubeProxyVersion(v)!), want, v)
  })

  it('renders iif before the fix (with a note that the prefix form cannot load) and iifname after it', () => {
    const pre = render('detect-local-interface-prefix', 'v1.34.1')
    const post = render('detect-local-interface-prefix', 'v1.34.2')
    assert.ok(allRules(pre.table).some((r) => /\biif != "\S+\*"/.test(r)) && !allRules(pre.table).some((r) => r.includes('iifname')))
    assert.ok(allRules(post.table).some((r) => /\biifname != "\S+\*"/.test(r)) && !allRules(post.table).some((r) => /\biif /.test(r)))
    assert.ok(pre.notes.some((n) => /kube-proxy v1\.34\.1 matches the local interface with `iif` \(kubernetes#134024, fixed in v1\.34\.2\): nft cannot load/.test(n)))
    assert.ok(!post.notes.some((n) => n.includes('#134024')))
    const unknown = render('detect-local-interface-prefix', 'v1.34')
    assert.equal(serializeNftTable(unknown.table), serializeNftTable(post.table))
    assert.ok(unknown.notes.some((n) => /without a patch level: assuming v1\.34\.2 or later/.test(n)))
    const bridge = render('detect-local-bridge', 'v1.33.5')
    assert.ok(allRules(bridge.table).some((r) => /\biif != "[^"*]+"/.test(r)))
  })
})

describe('nftables v1.36', () => {
  it('nftables.masqueradeAll: one services-chain rule without a source match (UNVERIFIED text), no per-service rule', () => {
    const cfg = {mode: 'nftables', clusterCIDR: '10.0.0.0/8', nftables: {masqueradeAll: true}}
    const t = render('clusterip', 'v1.36', cfg).table
    const services = t.chains.find((c) => c.name === 'services')!.rules.map((r) => r.text)
    assert.equal(services[0], 'ip daddr @cluster-ips meta mark set meta mark | 0x00004000 comment "masquerade clusterIP traffic from outside cluster"')
    assert.ok(!allRules(t).some((r) => /daddr 172\.30\./.test(r)), 'no per-ClusterIP masquerade rule')
    const v135 = render('clusterip', 'v1.35', cfg).table
    assert.ok(allRules(v135).some((r) => /^ip daddr 172\.30\.0\.10 jump mark-for-masquerade$/.test(r)))
  })
})

describe('nftables v1.37', () => {
  it('cuts element comments to 128 bytes; v1.36 writes them whole', () => {
    const full = 'loft-acme-platform-services-team-dev-v-shared-workloads-ns-001/my-api-svc-x-my-api-namespace-x-acme-shared-vcluster--a1b2c3d4e:http'
    assert.equal(truncateNftComment(full), full.slice(0, 128))
    assert.equal(truncateNftComment('a'.repeat(128)), 'a'.repeat(128))
    assert.equal(truncateNftComment('kube-system/kube-dns:dns'), 'kube-system/kube-dns:dns')
    const comment = (v: string) => render('long-names', v, undefined, true).table.sets.find((s) => s.name === 'no-endpoint-services')!.elements[0]!.comment
    assert.equal(comment('v1.36'), full)
    assert.equal(comment('v1.37'), full.slice(0, 128))
  })

  it('localhost NodePort objects need the gate, an explicit loopback range, and v1.37', () => {
    const base = {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', mode: 'nftables', clusterCIDR: '10.0.0.0/8'}
    const on = {...base, nodePortAddresses: ['primary', 'localhost'], featureGates: {KubeProxyNFTablesLocalhostNodePorts: true}}
    const has = (t: NftExpectedTable) => t.chains.some((c) => c.name === 'localhost-nodeport-reject')
    assert.ok(has(render('localhost-nodeports', 'v1.37', on, true).table))
    const gateOff = render('localhost-nodeports', 'v1.37', {...on, featureGates: {}}, true)
    assert.ok(!has(gateOff.table) && gateOff.table.counters === undefined)
    assert.ok(gateOff.notes.some((n) => n.includes('KubeProxyNFTablesLocalhostNodePorts feature gate (alpha, off by default in v1.37) is off')))
    assert.ok(!has(render('localhost-nodeports', 'v1.37', {...on, nodePortAddresses: ['primary', 'all']}, true).table), '`all` is not an explicit loopback')
    // v1.36 has neither the gate nor the keywords: a plain loopback CIDR, gate ignored.
    assert.ok(!has(render('localhost-nodeports', 'v1.36', {...on, nodePortAddresses: ['127.0.0.0/8', '192.168.0.2/32']}, true).table))
    assert.equal(hasExplicitLoopback(['0.0.0.0/0', '::1/128'], 'ipv6'), true)
    assert.equal(hasExplicitLoopback(['0.0.0.0/0', '::/0'], 'ipv4'), false)
    assert.equal(hasExplicitLoopback(['127.0.0.1/32'], 'ipv6'), false)
  })

  it('nodePortAddresses `all` (v1.37) matches every local address: no nodeport-ips set', () => {
    const t = render('nodeport', 'v1.37', {mode: 'nftables', clusterCIDR: '10.0.0.0/8', nodePortAddresses: ['all']}).table
    assert.ok(!t.sets.some((s) => s.name === 'nodeport-ips'))
    assert.ok(allRules(t).includes('fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports'))
  })
})

describe('nftables: versions newer than the newest layout', () => {
  it('v1.38.0-alpha.2 renders v1.37 rules, says so in a # line and the notes, and never throws', () => {
    const v138 = render('loadbalancer', 'v1.38.0-alpha.2')
    const v137 = render('loadbalancer', 'v1.37')
    const note = "kube-proxy v1.38.0-alpha.2 is newer than the newest layout known (v1.37): rendered with v1.37's rules"
    assert.equal(v138.table.layout, 'v1.37')
    assert.ok(v138.notes.includes(note))
    const text = serializeNftTable(v138.table)
    assert.ok(text.startsWith(`# ${note}\ntable ip kube-proxy {\n`))
    assert.equal(text.slice(text.indexOf('\n') + 1), serializeNftTable(v137.table))
    assert.ok(!serializeNftTable(v137.table).startsWith('#'))
    for (const v of ['v1.39', 'v2.0.0', 'v1.40.1+k3s1']) assert.equal(render('clusterip', v).table.layout, 'v1.37', v)
  })
})
