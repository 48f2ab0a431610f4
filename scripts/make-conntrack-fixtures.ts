// Writes the fire/quiet bundles for the conntrack capacity and health checks (CT-002..004) under
// test/fixtures/checks/conntrack-health/<case>/ and its cases.json (a folder of its own: make-proxy-mode-fixtures.ts
// rewrites conntrack/cases.json whole). Real kernel state: each case is a fresh network namespace with kube-proxy's
// ruleset from the iptables checks' clean bundle loaded (its conntrack matches switch tracking on in the namespace),
// filled with real UDP flows to loopback from one socket (distinct destination ports, so one entry each, UNREPLIED),
// and the artifacts are the plan's own commands run inside it: the `sysctls` item (nf_conntrack_count is per network
// namespace; nf_conntrack_max is the host's, read-only in a namespace on this kernel, so the table is filled to a
// share of it) and the `conntrack-stats`/`conntrack-stats-end` items (`conntrack -S` after the uptime, read 1.5 s
// apart here as a node's collection would space them). The drops case keeps sending while the table is full, so
// early_drop really grows between the two reads. The cluster is the iptables checks' clean
// bundle with the Node's status.capacity.cpu set to this host's CPU count (the kubelet reports it; conntrack -S prints
// one line per CPU here too); the CT-004 fire case sets conntrack.min in the kube-proxy ConfigMap above the node's limit.
// Needs root and about 100 MB of kernel memory for a moment. Run: node --import tsx scripts/make-conntrack-fixtures.ts
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {cpus} from 'node:os'
import {join} from 'node:path'
import type {ClusterSnapshot, NodeSnapshot} from '../src/core/model/snapshot.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {inNs, planArgv, planArtifact} from './lib/node-netns.js'

const ROOT = 'test/fixtures/checks/conntrack-health'
const BASE = 'test/fixtures/checks/iptables/clean'
const base = await readBundle(BASE)
const SENDER = join(import.meta.dirname, 'lib', 'udp-flows.mjs')

interface Case {
  dir: string
  /** Share of nf_conntrack_max to fill with flows (absolute count when >= 1). */
  fill: number
  /** Keep sending between the two conntrack -S reads (the table is full: early_drop grows). */
  keepSending?: boolean
  /** Lines appended to the kube-proxy ConfigMap's config.conf, given the node's nf_conntrack_max. */
  kubeProxyConfig?: (max: number) => string
}

const CASES: Case[] = [
  {dir: 'conntrack-ok', fill: 200},
  {dir: 'conntrack-97', fill: 0.97},
  {dir: 'conntrack-drops', fill: 1, keepSending: true},
  // Someone sized kube-proxy's floor above what the node now has: the node's limit was lowered after kube-proxy started.
  {dir: 'kube-proxy-max-low', fill: 200, kubeProxyConfig: (max) => `conntrack:\n  maxPerCore: 32768\n  min: ${max * 2}\n`},
]

function clusterFor(c: Case, max: number): ClusterSnapshot {
  const cluster = structuredClone(base.cluster)
  for (const n of cluster.nodes) (n.status as Record<string, unknown>)['capacity'] = {cpu: String(cpus().length), pods: '110'}
  if (c.kubeProxyConfig) for (const cm of cluster.configMaps) if (cm.data?.['config.conf'] !== undefined) cm.data['config.conf'] += c.kubeProxyConfig(max)
  return cluster
}

async function capture(c: Case): Promise<{node: NodeSnapshot; max: number}> {
  const ns = `nd-ct-${process.pid}`
  execFileSync('ip', ['netns', 'add', ns])
  try {
    inNs(ns, ['ip', 'link', 'set', 'lo', 'up'])
    inNs(ns, ['iptables-restore'], base.nodes[0]!.artifacts['iptables-save']!.content)
    // Keep the UNREPLIED flows for the capture (30 s by default): the per-namespace UDP timeout.
    inNs(ns, ['sysctl', '-q', '-w', 'net.netfilter.nf_conntrack_udp_timeout=600'])
    const max = Number(/nf_conntrack_max = (\d+)/.exec(inNs(ns, ['sysctl', 'net.netfilter.nf_conntrack_max']))![1])
    const flows = c.fill > 1 ? c.fill : Math.ceil(max * c.fill)
    inNs(ns, ['node', SENDER, String(flows)])
    const pause = () => new Promise((r) => setTimeout(r, 1500))
    const statsArgv = planArgv('conntrack-stats')
    let first: string
    let last: string
    if (c.keepSending) {
      const sender = spawn('ip', ['netns', 'exec', ns, 'node', SENDER, 'forever'], {stdio: 'ignore'})
      await new Promise((r) => setTimeout(r, 300))
      first = inNs(ns, statsArgv)
      await pause()
      last = inNs(ns, planArgv('conntrack-stats-end'))
      sender.kill('SIGTERM')
      await new Promise((r) => sender.once('exit', r))
    } else {
      first = inNs(ns, statsArgv)
      await pause()
      last = inNs(ns, planArgv('conntrack-stats-end'))
    }
    const n = structuredClone(base.nodes[0]!)
    n.artifacts = {
      ...n.artifacts,
      sysctls: planArtifact('sysctls', inNs(ns, planArgv('sysctls'))),
      'conntrack-stats': planArtifact('conntrack-stats', first),
      'conntrack-stats-end': planArtifact('conntrack-stats-end', last),
    }
    return {node: n, max}
  } finally {
    execFileSync('ip', ['netns', 'del', ns])
  }
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  const {node, max} = await capture(c)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-conntrack-${c.dir}`}, cluster: clusterFor(c, max), nodes: [node]})
  console.log(`wrote ${path}`)
}
const cases = {
  'CT-002': {fire: 'conntrack-97', quiet: 'conntrack-ok', node: 'node-a'},
  'CT-003': {fire: 'conntrack-drops', quiet: 'conntrack-ok', node: 'node-a'},
  'CT-004': {fire: 'kube-proxy-max-low', quiet: 'conntrack-ok', node: 'node-a'},
}
mkdirSync(ROOT, {recursive: true})
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
