// Benchmark: `trace` on a dump the size of a small real node's (about 237 iptables-save lines, the size issue #18
// measured at 3.7 s): the trace itself, the table render and its share (target < 10 %), and the built CLI end to
// end (target < 1 s). Run: node --import tsx bench/trace.ts (the end-to-end figure needs `npm run build`).
// SERVICES / ENDPOINTS env vars change the size.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'
import {tracePacket} from '../src/app/trace.js'
import type {Node} from '../src/core/model/k8s.js'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../src/core/proxier/iptables/save.js'
import {loadObjects} from '../src/core/proxier/objects.js'
import {buildRenderInput} from '../src/core/proxier/render-input.js'
import type {Environment} from '../src/ports/environment.js'
import {renderTrace} from '../src/render/trace.js'
import {benchObjectsJson} from './proxier-objects.js'

const SERVICES = Number(process.env.SERVICES ?? 12)
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 3)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const node: Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name: 'bench-node'},
  spec: {podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24']},
  status: {addresses: [{type: 'InternalIP', address: '192.168.0.2'}]},
}
const list = JSON.parse(benchObjectsJson(SERVICES, ENDPOINTS)) as {items: unknown[]}
list.items.push(node)
const objectsText = JSON.stringify(list)
const objects = loadObjects([{name: 'bench.json', text: objectsText}])
const render = buildRenderInput(objects, {nodeName: 'bench-node', facts: {family: 'ipv4'}})
const save = serializeSave(generateIptablesRestore(render.input).ruleset)
console.log(`dump_lines: ${save.split('\n').length - 1} lines`)

const dir = mkdtempSync(join(tmpdir(), 'nd-bench-trace-'))
try {
  const objectsFile = join(dir, 'objects.json')
  const dumpFile = join(dir, 'node.iptables')
  writeFileSync(objectsFile, objectsText)
  writeFileSync(dumpFile, save)
  const svc = objects.services[1]!
  const to = `${svc.spec.clusterIP}:80`
  const files: Record<string, string> = {[objectsFile]: objectsText, [dumpFile]: save}
  const env = {readInput: (p: string) => files[p]!, stderr: {write: () => true}} as unknown as Environment
  const flags = {objects: [objectsFile], node: 'bench-node', 'iptables-save': dumpFile, to, from: '10.0.1.7'}
  const io = {note: () => undefined, quiet: true}

  // Cold first (what one CLI run pays), then the median of warm runs.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const c0 = performance.now()
  const first = await tracePacket(undefined, flags, env, io)
  const c1 = performance.now()
  renderTrace(first, 'table', {color: false})
  const c2 = performance.now()
  if (process.env.TRACE_BENCH_COLD) {
    // A child run: the cold figures only (what one CLI run pays), for the parent's median.
    console.log(JSON.stringify({trace: c1 - c0, render: c2 - c1}))
    process.exit(0)
  }
  const colds: Array<{trace: number; render: number}> = []
  for (let i = 0; i < 5; i++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {encoding: 'utf8', env: {...process.env, TRACE_BENCH_COLD: '1'}})
    colds.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as {trace: number; render: number})
  }
  const coldTrace = median(colds.map((c) => c.trace))
  const coldRender = median(colds.map((c) => c.render))
  console.log(`trace_cold: ${coldTrace.toFixed(1)} ms (median of 5 fresh processes)`)
  console.log(`render_table_cold: ${coldRender.toFixed(1)} ms (${((coldRender / coldTrace) * 100).toFixed(1)} % of the trace, target < 10 %)`)
  const traceMs: number[] = []
  const renderMs: number[] = []
  let out = ''
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now()
    const view = await tracePacket(undefined, flags, env, io)
    const t1 = performance.now()
    out = renderTrace(view, 'table', {color: false})
    renderMs.push(performance.now() - t1)
    traceMs.push(t1 - t0)
  }
  const tm = median(traceMs)
  const rm = median(renderMs)
  console.log(`trace_warm: ${tm.toFixed(1)} ms`)
  console.log(`render_table_warm: ${rm.toFixed(1)} ms (${out.split('\n').length} lines)`)
  console.log(`render_share_warm: ${((rm / tm) * 100).toFixed(1)} % of the trace (target < 10 %)`)

  const bin = join(root, 'bin', 'kubectl-node_doctor')
  if (existsSync(join(root, 'dist', 'commands', 'trace.js'))) {
    const runs: number[] = []
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      const r = spawnSync(process.execPath, [bin, 'trace', '--objects', objectsFile, '--node', 'bench-node', '--iptables-save', dumpFile, '--to', to, '--from', '10.0.1.7', '-q'], {encoding: 'utf8', env: {...process.env, TERM: undefined}})
      runs.push(performance.now() - t0)
      if (r.status !== 0 && r.status !== 1) throw new Error(`trace exited ${r.status}: ${r.stderr}`)
    }
    console.log(`cli_end_to_end: ${median(runs).toFixed(0)} ms (target < 1000 ms)`)
    // CPU time of the same run (user + system, from bash's `times`): steadier than wall time on a shared machine.
    const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`
    const argv = [process.execPath, bin, 'trace', '--objects', objectsFile, '--node', 'bench-node', '--iptables-save', dumpFile, '--to', to, '--from', '10.0.1.7', '-q']
    const cpu: number[] = []
    for (let i = 0; i < 3; i++) {
      const t = spawnSync('bash', ['-c', `${argv.map(quote).join(' ')} >/dev/null 2>&1; times`], {encoding: 'utf8'})
      const m = /\n(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(t.stdout ?? '')
      if (m) cpu.push((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000)
    }
    if (cpu.length > 0) console.log(`cli_end_to_end_cpu: ${median(cpu).toFixed(0)} ms (user + system)`)
  } else console.log('cli_end_to_end: skipped (run npm run build first)')
} finally {
  rmSync(dir, {recursive: true, force: true})
}
console.log(`peak_rss: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
