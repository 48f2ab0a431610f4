// Fleet benchmark: N simulated node snapshots (clones of the example bundle's nodes) → analyze + group + render
// table and JSON. Prints wall time per stage and peak RSS. Target for 1,000 nodes: < 5 s and < 1 GiB.
// Usage: node --import tsx bench/fleet-merge.ts [nodes]
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {analyzeSnapshots} from '../src/app/analyze.js'
import {CATALOG} from '../src/core/checks/registry.js'
import {groupFindings, summarizeFleet} from '../src/core/fleet.js'
import type {NodeSnapshot} from '../src/core/model/snapshot.js'
import {renderJson} from '../src/render/json.js'
import {renderMarkdown} from '../src/render/markdown.js'
import {renderTable} from '../src/render/table.js'
import {readBundle} from '../src/transports/bundle/bundle.js'

const N = Number(process.argv[2] ?? process.env.NODES ?? 1000)
const bundle = await readBundle(join(fileURLToPath(new URL('..', import.meta.url)), 'examples', 'bundle'))

const nodes: NodeSnapshot[] = []
const objects = []
for (let i = 0; i < N; i++) {
  const t = bundle.nodes[i % bundle.nodes.length]!
  const obj = bundle.cluster.nodes.find((n) => n.metadata.name === t.node)!
  const name = `${t.node}-${String(i).padStart(4, '0')}`
  // Artifacts are shared, not copied: a real run holds one copy per node, the parse cost is the same.
  nodes.push({...t, node: name, durationMs: 200 + (i % 97)})
  objects.push({...obj, metadata: {...obj.metadata, name}})
}
const cluster = {...bundle.cluster, nodes: objects}

const t0 = performance.now()
const report = analyzeSnapshots(cluster, nodes, {metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version: 'bench'}, command: 'bench'}})
const t1 = performance.now()
const groups = groupFindings(report.findings)
summarizeFleet(report)
const t2 = performance.now()
const table = renderTable(report, {color: false, catalog: CATALOG})
const t3 = performance.now()
const json = renderJson(report)
const t4 = performance.now()
renderMarkdown(report, {catalog: CATALOG})
const t5 = performance.now()

const ms = (a: number, b: number) => `${(b - a).toFixed(0)} ms`
console.log(`nodes: ${N}, findings: ${report.findings.length}, groups: ${groups.length}, results: ${report.results.length}`)
console.log(`analyze: ${ms(t0, t1)}; group+summary: ${ms(t1, t2)}; table: ${ms(t2, t3)} (${table.length} B); json: ${ms(t3, t4)} (${(json.length / 1e6).toFixed(1)} MB); markdown: ${ms(t4, t5)}`)
console.log(`total: ${ms(t0, t5)}; peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`)
