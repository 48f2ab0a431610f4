// Writes the fire/quiet bundles for the flannel and VPC-CNI route checks (RT-009..RT-012) under
// test/fixtures/checks/routes-cni/<case>/ and its cases.json, from node-a set up in a network namespace (root needed;
// test/support/cni-netns.ts, scenarios in test/support/cni-route-cases.ts). Also writes the parser fixtures
// test/fixtures/parse/{neigh,fdb}/ (JSON and text forms) from the healthy flannel VXLAN node.
// Run: node --import tsx scripts/make-flannel-fixtures.ts
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {captureCniNode, withCniNode} from '../test/support/cni-netns.js'
import {CNI_QUIET, CNI_ROUTE_CASES, cniNodeSnapshot} from '../test/support/cni-route-cases.js'
import {netnsUnavailable} from '../test/support/netns.js'

const ROOT = 'test/fixtures/checks/routes-cni'
const why = netnsUnavailable()
if (why) throw new Error(`flannel fixtures capture real ip/bridge output: ${why}`)

for (const c of CNI_ROUTE_CASES) {
  const out = join(ROOT, c.name)
  const artifacts = withCniNode(c.setup, captureCniNode)
  rmSync(out, {recursive: true, force: true})
  await writeBundle(out, {
    manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: `fixture-routes-cni-${c.name}`, nodes: [c.node]},
    cluster: c.cluster(),
    nodes: [cniNodeSnapshot(c.node, {...artifacts})],
  })
  console.log(`wrote ${out}`)
}
const cases: Record<string, {fire: string; quiet: string; node: string}> = {}
for (const c of CNI_ROUTE_CASES) for (const id of c.fires) cases[id] ??= {fire: c.name, quiet: CNI_QUIET[id]!, node: c.node}
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(Object.fromEntries(Object.entries(cases).sort(([a], [b]) => a.localeCompare(b))), null, 2) + '\n')

// Parser fixtures: the same node, in both output forms of each tool.
const healthy = CNI_ROUTE_CASES.find((c) => c.name === 'flannel-vxlan-healthy')!
const parse = withCniNode(healthy.setup, (ns) => ({
  'neigh/ip-j-neigh.json': ns.exec(['ip', '-j', 'neigh', 'show']),
  'neigh/ip-neigh.txt': ns.exec(['ip', 'neigh', 'show']),
  'fdb/bridge-j-fdb.json': ns.exec(['bridge', '-j', 'fdb', 'show']),
  'fdb/bridge-fdb.txt': ns.exec(['bridge', 'fdb', 'show']),
}))
for (const [file, text] of Object.entries(parse)) {
  mkdirSync(join('test/fixtures/parse', file, '..'), {recursive: true})
  writeFileSync(join('test/fixtures/parse', file), text)
  console.log(`wrote test/fixtures/parse/${file}`)
}
