// Benchmark: render kube-proxy's iptables rules for 10,000 Services × 10 endpoints (the size of kube-proxy's
// scalability envelope, shared/reference/performance-anchors.md §2). Run: node --import tsx bench/proxier-render.ts
// Prints `name: value unit` lines, then peak RSS. SERVICES / ENDPOINTS env vars change the size.
import {performance} from 'node:perf_hooks'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../src/core/proxier/iptables/save.js'
import {loadObjects} from '../src/core/proxier/objects.js'
import {benchObjectsJson, benchProxierOptions} from './proxier-objects.js'

const SERVICES = Number(process.env.SERVICES ?? 10_000)
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 10)

// Wall time, and CPU time (user+system), which is the steadier number on a shared machine.
function time<T>(name: string, fn: () => T): T {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const v = fn()
  const cpu = process.cpuUsage(c0)
  console.log(`${name}: ${(performance.now() - t0).toFixed(1)} ms`)
  console.log(`${name}_cpu: ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms`)
  return v
}

const json = time('build_objects_json', () => benchObjectsJson(SERVICES, ENDPOINTS))
console.log(`objects_json_size: ${(json.length / 1e6).toFixed(1)} MB`)
const objects = time('load_objects', () => loadObjects([{name: 'bench.json', text: json}]))
const options = benchProxierOptions()
const out = time('generate_restore', () => generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options}))
const lines = out.text.split('\n').length - 1
console.log(`restore_lines: ${lines} lines`)
console.log(`restore_size: ${(out.text.length / 1e6).toFixed(1)} MB`)
const save = time('serialize_save', () => serializeSave(out.ruleset))
console.log(`save_size: ${(save.length / 1e6).toFixed(1)} MB`)
console.log(`peak_rss: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
