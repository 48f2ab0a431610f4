// Writes the fire/quiet bundles for NODE-019 (the path MTU measured by `check --probe`) under
// test/fixtures/checks/node-probe/<case>/ and its cases.json (a folder of its own). Real kernel state and real pings:
// test/integration/probe/topology.ts builds node-a and node-b (network namespaces, eth0 MTU 1500) joined by a router
// namespace; `path-mtu-blackhole` gives the router's end of node-a's link MTU 1400 (1500-byte packets are lost there),
// `path-mtu-clean` leaves every link at 1500. Each node's routes plan is collected in its namespace and the probe runs
// as `check --probe` runs it (src/app/live/probe.ts), so the `mtu-probe` artifacts hold the real commands and outputs.
// Needs root and ping (iputils). Run: node --import tsx scripts/make-mtu-probe-fixtures.ts
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {BUNDLE_KIND} from '../src/transports/bundle/format.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {buildProbeTopology, collectTopology, probeTopology, probeTopologyUnavailable} from '../test/integration/probe/topology.js'

const ROOT = 'test/fixtures/checks/node-probe'
const unavailable = probeTopologyUnavailable()
if (unavailable) throw new Error(`cannot build the fixtures here: ${unavailable}`)

const CASES = [
  {dir: 'path-mtu-blackhole', midMtu: 1400},
  {dir: 'path-mtu-clean', midMtu: undefined},
]

for (const c of CASES) {
  const t = buildProbeTopology(c.midMtu === undefined ? {} : {midMtu: c.midMtu})
  try {
    // The layout discovery reads /proc, which a network namespace shares with this machine: its processes (another
    // test's kubelet) are not the namespace node's, so that artifact is left out (NODE-019 does not read it).
    const nodes = (await probeTopology(t, await collectTopology(t))).map((n) => {
      const {layout: _, ...artifacts} = n.artifacts
      return {...n, artifacts}
    })
    const path = join(ROOT, c.dir)
    rmSync(path, {recursive: true, force: true})
    await writeBundle(path, {
      manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: BUNDLE_KIND, createdAt: t.cluster.collectedAt, tool: {name: 'node-doctor', version: 'fixture'}, context: `fixture-node-probe-${c.dir}`, nodes: nodes.map((n) => n.node)},
      cluster: t.cluster,
      nodes,
    })
    console.log(`wrote ${path}`)
  } finally {
    t.destroy()
  }
}
mkdirSync(ROOT, {recursive: true})
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify({'NODE-019': {fire: 'path-mtu-blackhole', quiet: 'path-mtu-clean', node: 'node-a'}}, null, 2) + '\n')
