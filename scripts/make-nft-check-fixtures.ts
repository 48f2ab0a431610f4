// Writes the fire/quiet bundles for the NFT checks under test/fixtures/checks/nftables/<case>/ and its cases.json.
// The cluster is the iptables checks' clean bundle switched to nftables mode (kube-proxy v1.33, ServiceCIDR
// 172.30.0.0/16); node-a's `nft list ruleset` is the expected table as nft lists it (the round trip through the real
// nft is proven by test/integration/proxier/nft-roundtrip.test.ts), with one planted fault per case.
// Run: node --import tsx scripts/make-nft-check-fixtures.ts
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {liveNftablesInput} from '../src/core/checks/nftables/live.js'
import type {NodeSnapshot} from '../src/core/model/snapshot.js'
import {generateNftables} from '../src/core/proxier/nftables/generate.js'
import {type NftExpectedTable, serializeNftTable} from '../src/core/proxier/nftables/table.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {clusterInMode} from './lib/proxy-mode-cluster.js'

const ROOT = 'test/fixtures/checks/nftables'
const base = await readBundle('test/fixtures/checks/iptables/clean')

const cluster = clusterInMode(base.cluster, 'nftables', 'registry.k8s.io/kube-proxy:v1.33.2')
cluster.serviceCIDRs = [{apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: {name: 'kubernetes'}, spec: {cidrs: ['172.30.0.0/16']}}]

function node(ruleset: string): NodeSnapshot {
  const n = structuredClone(base.nodes[0]!)
  const {'iptables-save': _save, 'iptables-version': _version, ...rest} = n.artifacts
  n.artifacts = {
    ...rest,
    'proxy-mode': {...n.artifacts['proxy-mode']!, content: 'nftables'},
    'nft-ruleset': {id: 'nft-ruleset', source: 'nft list ruleset', exitCode: 0, content: ruleset},
  }
  return n
}

const input = liveNftablesInput(cluster, node(''), {listingOptional: true})
if (!input.ok) throw new Error(input.reason)
const clean = generateNftables(input.inputs[0]!.input)

const chainOf = (t: NftExpectedTable, name: string) => t.chains.find((c) => c.name === name)!
const setOf = (t: NftExpectedTable, name: string) => t.sets.find((s) => s.name === name)!
const firstService = (t: NftExpectedTable, prefix: string) => t.chains.find((c) => c.name.startsWith(prefix))!

const CASES: Array<{id: string; dir: string; plant: (t: NftExpectedTable) => string}> = [
  {id: 'NFT-001', dir: 'missing-table', plant: () => 'table ip filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n'},
  {id: 'NFT-002', dir: 'missing-chain', plant: (t) => ((t.chains = t.chains.filter((c) => c !== firstService(t, 'endpoint-'))), serializeNftTable(t))},
  {
    id: 'NFT-003',
    dir: 'stale-chain',
    plant: (t) => (t.chains.push({name: 'endpoint-QKVQZ5FN-default/gone/tcp/http__10.0.9.9/80', rules: [{text: 'meta l4proto tcp dnat to 10.0.9.9:80'}]}), serializeNftTable(t)),
  },
  {id: 'NFT-004', dir: 'missing-rule', plant: (t) => (firstService(t, 'service-').rules.shift(), serializeNftTable(t))},
  {id: 'NFT-005', dir: 'extra-rule', plant: (t) => (chainOf(t, 'services').rules.push({text: 'ip daddr 172.30.99.1 tcp dport 80 dnat to 10.0.9.9:80'}), serializeNftTable(t))},
  {id: 'NFT-006', dir: 'misordered', plant: (t) => (chainOf(t, 'masquerading').rules.reverse(), serializeNftTable(t))},
  {id: 'NFT-007', dir: 'missing-element', plant: (t) => (setOf(t, 'service-ips').elements.shift(), serializeNftTable(t))},
  {
    id: 'NFT-008',
    dir: 'extra-element',
    plant: (t) => (setOf(t, 'service-nodeports').elements.push({key: 'tcp . 31999', value: `goto ${firstService(t, 'external-').name}`}), serializeNftTable(t)),
  },
  {
    id: 'NFT-009',
    dir: 'wrong-element',
    plant: (t) => {
      const e = setOf(t, 'no-endpoint-services').elements.find((x) => x.value === 'goto reject-chain')!
      e.value = 'drop'
      return serializeNftTable(t)
    },
  },
  {id: 'NFT-010', dir: 'definition', plant: (t) => ((chainOf(t, 'nat-prerouting').base!.priority = 0), serializeNftTable(t))},
]

async function write(dir: string, ruleset: string): Promise<void> {
  const path = join(ROOT, dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: base.manifest, cluster, nodes: [node(ruleset)]})
}

await write('clean', serializeNftTable(clean))
for (const c of CASES) await write(c.dir, c.plant(structuredClone(clean)))
const cases = Object.fromEntries(CASES.map((c) => [c.id, {fire: c.dir, quiet: 'clean', node: 'node-a'}]))
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${CASES.length + 1} bundles under ${ROOT}`)
