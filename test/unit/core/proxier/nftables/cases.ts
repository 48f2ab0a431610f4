// The nftables proxier feature cases shared by the golden test (features.test.ts) and the real nft round trip
// (test/integration/proxier/nft-roundtrip.test.ts): the shared proxier fixtures (test/fixtures/proxier/iptables/
// <case>/objects.yaml + nodes.yaml, IP plan in its README) rendered through the same path as
// `proxy render --mode nftables`. Each case's check pins the behaviour that makes it worth having.
import assert from 'node:assert/strict'
import {parse as parseYaml} from 'yaml'
import {parseKubeProxyVersion} from '../../../../../src/core/proxier/config.js'
import {generateNftables} from '../../../../../src/core/proxier/nftables/generate.js'
import {servicePortChainNameBase} from '../../../../../src/core/proxier/nftables/names.js'
import {nftablesRenderInput} from '../../../../../src/core/proxier/nftables/options.js'
import type {NftExpectedTable} from '../../../../../src/core/proxier/nftables/table.js'
import {loadObjects} from '../../../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../../../../src/core/proxier/render-input.js'
import {readFixture} from '../../../../support/golden.js'

export interface NftCase {
  /** Objects: proxier/iptables/<dir>/objects.yaml, or proxier/nftables/<dir>/objects.yaml when `own`. */
  dir: string
  own?: boolean
  node?: string
  version?: string
  family?: 'ipv4' | 'ipv6'
  /** Golden name under proxier/nftables (default `<dir>.nft`). */
  golden?: string
  check?: (t: NftExpectedTable, text: string) => void
}

export function renderCase(c: NftCase): NftExpectedTable {
  const objects = loadObjects([
    {name: 'nodes.yaml', text: readFixture('proxier/iptables/nodes.yaml')},
    {name: `${c.dir}/objects.yaml`, text: readFixture(`proxier/${c.own ? 'nftables' : 'iptables'}/${c.dir}/objects.yaml`)},
  ])
  const configText = kubeProxyConfigText(objects)
  const config = configText ? (parseYaml(configText) as Record<string, unknown>) : undefined
  const r = buildRenderInput(objects, {
    nodeName: c.node ?? 'node-a',
    version: parseKubeProxyVersion(c.version ?? 'v1.35')!,
    ...(config ? {kubeProxyConfig: config} : {}),
    facts: c.family ? {family: c.family} : {},
  })
  return generateNftables(nftablesRenderInput(r, config, objects.serviceCIDRs).input)
}

const rulesOf = (t: NftExpectedTable, chain: string): string[] => {
  const c = t.chains.find((x) => x.name === chain)
  assert.ok(c, `chain ${chain} exists`)
  return c.rules.map((r) => r.text)
}
const elementsOf = (t: NftExpectedTable, set: string): string[] => (t.sets.find((s) => s.name === set)?.elements ?? []).map((e) => (e.value === undefined ? e.key : `${e.key} : ${e.value}`))
const chainName = (prefix: string, ns: string, svc: string, proto: string, port: string) => `${prefix}${servicePortChainNameBase(ns, svc, proto, port)}`

export const NFT_CASES: NftCase[] = [
  {
    dir: 'clusterip',
    check: (t) => {
      const svc = chainName('service-', 'default', 'web', 'tcp', 'http')
      const rules = rulesOf(t, svc)
      assert.equal(rules[0], 'ip daddr 172.30.0.10 ip saddr != 10.0.0.0/8 jump mark-for-masquerade')
      assert.match(rules[1]!, /^numgen random mod 4 vmap \{ 0 : goto endpoint-/)
      assert.ok(elementsOf(t, 'service-ips').includes(`172.30.0.10 . tcp . 80 : goto ${svc}`))
      assert.ok(!elementsOf(t, 'cluster-ips').some((k) => k.includes('None')))
    },
  },
  {
    dir: 'nodeport',
    check: (t) => {
      assert.ok(t.sets.some((s) => s.name === 'nodeport-ips'), 'nodePortAddresses defaults to primary in nftables mode')
      assert.deepEqual(elementsOf(t, 'nodeport-ips'), ['192.168.0.2'])
      assert.ok(rulesOf(t, 'services').includes('ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports'))
    },
  },
  {
    dir: 'loadbalancer',
    check: (t) => {
      const fw = chainName('firewall-', 'default', 'lb', 'tcp', 'http')
      // The source ranges contain the node IP, so the VIPs are allowed as sources too; the IPv6 range is dropped.
      assert.deepEqual(rulesOf(t, fw), ['ip saddr != { 1.2.3.4, 5.6.7.8, 192.168.0.0/24, 203.0.113.0/25 } drop'])
      assert.ok(elementsOf(t, 'firewall-ips').includes(`1.2.3.4 . tcp . 80 : goto ${fw}`))
      assert.ok(!elementsOf(t, 'service-ips').some((e) => e.startsWith('9.10.11.12')), 'ipMode Proxy VIPs are skipped')
      assert.ok(elementsOf(t, 'no-endpoint-services').some((e) => e.startsWith('1.2.3.6 . tcp . 80') && e.endsWith(': goto reject-chain')))
    },
  },
  {dir: 'externalips', check: (t) => assert.ok(elementsOf(t, 'service-ips').some((e) => / : goto external-/.test(e)))},
  {
    dir: 'etp-local',
    check: (t) => {
      const ext = t.chains.filter((c) => c.name.startsWith('external-')).flatMap((c) => c.rules.map((r) => r.text))
      assert.ok(ext.some((r) => r.endsWith('comment "short-circuit pod traffic"')))
      assert.ok(ext.includes('fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"'))
      assert.ok(t.chains.some((c) => c.name.startsWith('local-')))
    },
  },
  {dir: 'itp-local', check: (t) => assert.ok(elementsOf(t, 'service-ips').some((e) => / : goto local-/.test(e)) || elementsOf(t, 'no-endpoint-services').some((e) => e.endsWith(': drop')))},
  {
    dir: 'session-affinity',
    check: (t) => {
      const aff = t.sets.filter((s) => s.name.startsWith('affinity-'))
      assert.ok(aff.length > 0 && aff.every((s) => s.dynamic && s.flags?.join(',') === 'dynamic,timeout'))
      assert.ok(t.chains.some((c) => c.rules.some((r) => /^update @affinity-\S+ \{ ip saddr \}$/.test(r.text))))
    },
  },
  {dir: 'terminating'},
  {dir: 'no-endpoints', check: (t) => assert.ok(elementsOf(t, 'no-endpoint-services').every((e) => / : (goto reject-chain|drop)$/.test(e)))},
  {dir: 'topology-hints'},
  {dir: 'masquerade-all'},
  {dir: 'nodeport-addresses'},
  {dir: 'detect-local-bridge', check: (t) => assert.ok(t.chains.some((c) => c.rules.some((r) => r.text.includes('iifname != "'))))},
  {dir: 'detect-local-interface-prefix', check: (t) => assert.ok(t.chains.some((c) => c.rules.some((r) => /iifname != "\S+\*"/.test(r.text))))},
  {
    dir: 'ipv6',
    node: 'node-v6',
    family: 'ipv6',
    check: (t, text) => {
      assert.equal(t.family, 'ip6')
      assert.match(text, /^table ip6 kube-proxy \{/)
      assert.ok(t.chains.some((c) => c.rules.some((r) => /dnat to \[[0-9a-f:]+\]:\d+$/.test(r.text))))
      assert.ok(t.chains.every((c) => c.name.length <= 256 && !c.name.slice(c.name.indexOf('__')).includes(':')))
    },
  },
  {dir: 'service-cidrs', own: true, check: (t) => assert.ok(rulesOf(t, 'cluster-ips-check').includes('ip daddr { 10.96.0.0/12, 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"'))},
  {
    dir: 'nftables-config',
    own: true,
    check: (t) => {
      assert.deepEqual(rulesOf(t, 'mark-for-masquerade'), ['meta mark set meta mark | 0x00000400'], 'nftables.masqueradeBit, not iptables.masqueradeBit')
      assert.ok(!t.sets.some((s) => s.name === 'nodeport-ips'), 'nodePortAddresses 0.0.0.0/0 matches all: no nodeport-ips set')
      assert.ok(rulesOf(t, 'services').includes('fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports'))
    },
  },
  // The three layouts.
  {
    dir: 'loadbalancer',
    version: 'v1.29',
    golden: 'versions/loadbalancer-v1.29.nft',
    check: (t) => {
      assert.equal(t.layout, 'v1.29')
      assert.ok(!t.sets.some((s) => s.name === 'cluster-ips'))
      assert.deepEqual(rulesOf(t, 'filter-output'), ['ct state new jump endpoints-check', 'ct state new jump firewall-check'])
      assert.match(rulesOf(t, chainName('service-', 'default', 'lb', 'tcp', 'http'))[0]!, / tcp dport 80 ip saddr != /)
    },
  },
  {
    dir: 'loadbalancer',
    version: 'v1.31',
    golden: 'versions/loadbalancer-v1.31.nft',
    check: (t) => {
      assert.equal(t.layout, 'v1.31')
      assert.deepEqual(t.chains.find((c) => c.name === 'filter-output-post-dnat')?.base, {type: 'filter', hook: 'output', priority: -90})
      assert.ok(!rulesOf(t, 'cluster-ips-check').some((r) => r.includes('unallocated')), 'v1.31 watches ServiceCIDRs only with MultiCIDRServiceAllocator')
    },
  },
  // v1.36: the masquerading rework (kubernetes#135800, #136499).
  {
    dir: 'loadbalancer',
    version: 'v1.36',
    golden: 'versions/loadbalancer-v1.36.nft',
    check: (t) => {
      assert.equal(t.layout, 'v1.36')
      assert.ok(!t.chains.some((c) => c.name === 'mark-for-masquerade' || c.name.startsWith('endpoint-')), 'no mark chain, no endpoint chains without affinity')
      assert.deepEqual(rulesOf(t, 'masquerading'), [
        'meta mark & 0x00004000 != 0x00000000 meta mark set meta mark ^ 0x00004000 masquerade fully-random',
        'ct status dnat ip saddr . ip daddr . meta l4proto . th dport @hairpin-connections masquerade fully-random',
      ])
      assert.equal(rulesOf(t, 'services')[0], 'ip daddr @cluster-ips ip saddr != 10.0.0.0/8 meta mark set meta mark | 0x00004000 comment "masquerade clusterIP traffic from outside cluster"')
      assert.match(rulesOf(t, chainName('service-', 'default', 'lb', 'tcp', 'http'))[0]!, /^meta l4proto tcp dnat ip to numgen random mod \d+ map \{ 0 : 10\.0\.\d+\.\d+ \. \d+(, \d+ : [\d.]+ \. \d+)* \}$/)
      assert.ok(elementsOf(t, 'hairpin-connections').every((e) => /^(10\.0\.1\.\d+) \. \1 \. tcp \. \d+$/.test(e)), 'only node-a (10.0.1.0/24) endpoints hairpin')
    },
  },
  {
    dir: 'session-affinity',
    version: 'v1.36',
    golden: 'versions/session-affinity-v1.36.nft',
    check: (t) => {
      const eps = t.chains.filter((c) => c.name.startsWith('endpoint-'))
      assert.ok(eps.length > 0, 'ClientIP affinity keeps the endpoint chains')
      assert.ok(eps.every((c) => c.rules.length === 2 && c.rules[0]!.text.startsWith('update @affinity-') && c.rules[1]!.text.includes(' dnat to ')))
    },
  },
  {
    dir: 'etp-local',
    version: 'v1.36',
    golden: 'versions/etp-local-v1.36.nft',
    check: (t) => {
      const ext = t.chains.filter((c) => c.name.startsWith('external-')).flatMap((c) => c.rules.map((r) => r.text))
      assert.ok(ext.includes('fib saddr type local meta mark set meta mark | 0x00004000 comment "masquerade local traffic"'))
    },
  },
  {
    dir: 'detect-local-interface-prefix',
    version: 'v1.36',
    golden: 'versions/detect-local-interface-prefix-v1.36.nft',
    check: (t) => assert.match(rulesOf(t, 'services')[0]!, /^ip daddr @cluster-ips iifname != "\S+\*" meta mark set meta mark \| 0x00004000 comment /),
  },
  // v1.37: single-endpoint DNAT, 128-byte comments, localhost NodePorts behind their gate.
  {
    dir: 'loadbalancer',
    version: 'v1.37',
    golden: 'versions/loadbalancer-v1.37.nft',
    check: (t) => {
      assert.equal(t.layout, 'v1.37')
      const services = t.chains.filter((c) => c.name.startsWith('service-'))
      assert.ok(services.some((c) => /^meta l4proto tcp dnat to [\d.]+:\d+$/.test(c.rules[0]!.text)), 'a single endpoint DNATs directly')
      assert.ok(services.every((c) => !/numgen random mod 1 map/.test(c.rules[0]!.text)))
    },
  },
  {
    dir: 'ipv6',
    node: 'node-v6',
    family: 'ipv6',
    version: 'v1.37',
    golden: 'versions/ipv6-v1.37.nft',
    check: (t) => {
      assert.equal(t.sets.find((s) => s.name === 'hairpin-connections')?.type, 'ipv6_addr . ipv6_addr . inet_proto . inet_service')
      assert.ok(t.chains.some((c) => c.rules.some((r) => /^meta l4proto tcp dnat (to \[[0-9a-f:]+\]:\d+|ip6 to numgen random mod \d+ map \{ .+ \})$/.test(r.text))))
    },
  },
  {
    dir: 'long-names',
    own: true,
    version: 'v1.37',
    golden: 'versions/long-names-v1.37.nft',
    check: (t) => {
      const [e] = t.sets.find((s) => s.name === 'no-endpoint-services')!.elements
      assert.equal(e!.comment, 'loft-acme-platform-services-team-dev-v-shared-workloads-ns-001/my-api-svc-x-my-api-namespace-x-acme-shared-vcluster--a1b2c3d4e:h')
    },
  },
  {
    dir: 'localhost-nodeports',
    own: true,
    version: 'v1.37',
    golden: 'versions/localhost-nodeports-v1.37.nft',
    check: (t) => {
      assert.deepEqual(t.counters, [{name: 'localhost-nodeport-rejected'}])
      assert.deepEqual(rulesOf(t, 'localhost-nodeport-reject'), ['counter name "localhost-nodeport-rejected" reject'])
      assert.ok(rulesOf(t, 'nodeport-endpoints-check').includes('ip daddr 127.0.0.0/8 meta l4proto . th dport vmap @localhost-nodeport-reject-ports'))
      assert.deepEqual(elementsOf(t, 'localhost-nodeport-reject-ports').sort(), ['udp . 30053 : goto localhost-nodeport-reject', 'udp . 30514 : goto localhost-nodeport-reject'])
      assert.deepEqual(elementsOf(t, 'nodeport-ips'), ['192.168.0.2'], 'loopback never joins nodeport-ips')
    },
  },
  {
    dir: 'loadbalancer',
    version: 'v1.34',
    golden: 'versions/loadbalancer-v1.34.nft',
    check: (t) => {
      assert.deepEqual(t.chains.find((c) => c.name === 'filter-input')?.base, {type: 'filter', hook: 'input', priority: 0})
      assert.deepEqual(rulesOf(t, 'filter-output-pre-dnat'), ['ct state new jump firewall-check'])
    },
  },
]

