// Writes the fire/quiet bundles for the routes, dns and endpoints checks under test/fixtures/checks/<area>/<case>/,
// plus each area's cases.json. Route cases capture real `ip -d route show table all`, `ip -j addr show` and
// `ip -j -d link show` from node-a set up in a network namespace (root needed), and for BGP scenarios BIRD's
// `show protocols` from real BIRD daemons peering across namespaces (apt-get install bird); the scenarios live in
// test/support/route-dns-cases.ts. Run: node --import tsx scripts/make-route-dns-fixtures.ts [routes|dns|endpoints ...]
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {nodeSnapshot} from '../test/support/calico-dns-builders.js'
import {birdUnavailable, captureBird} from '../test/support/bird-netns.js'
import {captureCalicoNode} from '../test/support/calico-netns.js'
import {netnsUnavailable} from '../test/support/netns.js'
import {casesJson, DNS_CASES, ENDPOINT_CASES, type FixtureCase, ROUTE_CASES} from '../test/support/route-dns-cases.js'

const ROOT = 'test/fixtures/checks'
const AREAS: Record<FixtureCase['area'], {cases: FixtureCase[]; quiet: string; quietFor?: Record<string, string>}> = {
  routes: {cases: ROUTE_CASES, quiet: 'healthy-ipip', quietFor: {'RT-003': 'healthy-vxlan'}},
  dns: {cases: DNS_CASES, quiet: 'healthy', quietFor: {'DNS-004': 'healthy-routed'}},
  endpoints: {cases: ENDPOINT_CASES, quiet: 'healthy'},
}

const wanted = process.argv.slice(2).length > 0 ? (process.argv.slice(2) as Array<FixtureCase['area']>) : (Object.keys(AREAS) as Array<FixtureCase['area']>)
if (wanted.includes('routes')) {
  const why = netnsUnavailable()
  if (why) throw new Error(`route fixtures capture real ip output: ${why}`)
  const noBird = birdUnavailable()
  if (noBird) throw new Error(`route fixtures capture real BIRD output: ${noBird}`)
}

for (const area of wanted) {
  const {cases, quiet, quietFor} = AREAS[area]
  const dir = join(ROOT, area)
  for (const c of cases) {
    const out = join(dir, c.name)
    const artifacts = c.setup ? {...captureCalicoNode(c.setup), ...(c.bgp ? await captureBird(c.bgp) : {})} : {}
    rmSync(out, {recursive: true, force: true})
    await writeBundle(out, {
      manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: `fixture-${area}-${c.name}`, nodes: [c.node]},
      cluster: c.cluster(),
      nodes: [nodeSnapshot(c.node, artifacts)],
    })
    console.log(`wrote ${out}`)
  }
  mkdirSync(dir, {recursive: true})
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(casesJson(cases, quiet, quietFor), null, 2) + '\n')
}
