// Writes the fire/quiet bundles for the node forwarding prerequisites (NODE-001..004) under
// test/fixtures/checks/node/<case>/ and its cases.json, from real kernel state: each case is a fresh network namespace
// (ip_forward and the br_netfilter keys are per network namespace) with a bridge `cni0` and a veth port attached, the
// sysctls set inside it, kube-proxy's ruleset from the iptables checks' clean bundle loaded with iptables-restore and
// the planted fault applied; the artifacts are the real outputs of the plan's own commands run inside the namespace
// (`sysctl ...` exactly as the `sysctls` plan item, `ip -j -d link show`, `iptables-save`). The cluster (dual-stack
// node-a) is the iptables checks' clean bundle. The `modules` artifact is left out: /proc/modules is not per namespace
// (and absent on some test hosts), and the checks read it only when the br_netfilter keys are missing, a case these
// namespaces cannot show while the module is loaded (that path is covered by unit tests with a /proc/modules text).
// Needs root. Run: node --import tsx scripts/make-node-prereq-fixtures.ts
import {execFileSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {COLLECTION_PLAN} from '../src/core/collection/plan.js'
import type {Artifact, NodeSnapshot} from '../src/core/model/snapshot.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'

const ROOT = 'test/fixtures/checks/node'
const BASE = 'test/fixtures/checks/iptables/clean'
const base = await readBundle(BASE)
const kubeProxyRules = readFileSync(join(BASE, 'nodes/node-a/iptables-save.txt'), 'utf8')
const sysctlArgv = COLLECTION_PLAN.find((p) => p.id === 'sysctls')!.argv

interface Case {
  dir: string
  sysctls: Record<string, string>
  forwardPolicy: 'ACCEPT' | 'DROP'
  /** Flush the FORWARD chain after loading kube-proxy's rules (its jumps are gone). */
  flushForward?: boolean
}

const GOOD = {
  'net.ipv4.ip_forward': '1',
  'net.ipv6.conf.all.forwarding': '1',
  'net.bridge.bridge-nf-call-iptables': '1',
  'net.bridge.bridge-nf-call-ip6tables': '1',
  'net.ipv4.conf.all.route_localnet': '1',
}

const CASES: Case[] = [
  // Docker-style DROP policy, but kube-proxy's FORWARD -> KUBE-FORWARD jump accepts pod traffic.
  {dir: 'forwarding-ok', sysctls: GOOD, forwardPolicy: 'DROP'},
  {dir: 'ip-forward-off', sysctls: {...GOOD, 'net.ipv4.ip_forward': '0'}, forwardPolicy: 'ACCEPT'},
  {dir: 'bridge-nf-off', sysctls: {...GOOD, 'net.bridge.bridge-nf-call-iptables': '0'}, forwardPolicy: 'ACCEPT'},
  {dir: 'forward-drop', sysctls: GOOD, forwardPolicy: 'DROP', flushForward: true},
  {dir: 'route-localnet-off', sysctls: {...GOOD, 'net.ipv4.conf.all.route_localnet': '0'}, forwardPolicy: 'ACCEPT'},
]

/** stdout of a command in the namespace; sysctl exits non-zero for keys a namespace lacks but prints the others. */
function inNs(ns: string, argv: string[], input?: string): string {
  try {
    return execFileSync('ip', ['netns', 'exec', ns, ...argv], {encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe']})
  } catch (err) {
    const e = err as {stdout?: string; status?: number}
    if (argv[0] === 'sysctl' && e.stdout) return e.stdout
    throw err
  }
}

const artifact = (id: string, source: string, content: string): Artifact => ({id, source, exitCode: 0, content})

function capture(c: Case): NodeSnapshot {
  const ns = `nd-prereq-${process.pid}`
  execFileSync('ip', ['netns', 'add', ns])
  try {
    for (const [k, v] of Object.entries(c.sysctls)) inNs(ns, ['sysctl', '-q', '-w', `${k}=${v}`])
    inNs(ns, ['ip', 'link', 'add', 'cni0', 'type', 'bridge'])
    inNs(ns, ['ip', 'link', 'add', 'veth3f2a1c9d', 'type', 'veth', 'peer', 'name', 'pod-eth0'])
    inNs(ns, ['ip', 'link', 'set', 'veth3f2a1c9d', 'master', 'cni0'])
    for (const l of ['cni0', 'veth3f2a1c9d', 'pod-eth0']) inNs(ns, ['ip', 'link', 'set', l, 'up'])
    inNs(ns, ['iptables-restore'], kubeProxyRules)
    inNs(ns, ['iptables', '-P', 'FORWARD', c.forwardPolicy])
    if (c.flushForward) inNs(ns, ['iptables', '-F', 'FORWARD'])
    const n = structuredClone(base.nodes[0]!)
    const {modules: _modules, ...rest} = n.artifacts
    n.artifacts = {
      ...rest,
      sysctls: artifact('sysctls', sysctlArgv.join(' '), inNs(ns, sysctlArgv)),
      'ip-link': artifact('ip-link', 'ip -j -d link show', inNs(ns, ['ip', '-j', '-d', 'link', 'show'])),
      'iptables-save': artifact('iptables-save', 'iptables-save', inNs(ns, ['iptables-save'])),
    }
    return n
  } finally {
    execFileSync('ip', ['netns', 'del', ns])
  }
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-${c.dir}`}, cluster: base.cluster, nodes: [capture(c)]})
}
const cases = {
  'NODE-001': {fire: 'ip-forward-off', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-002': {fire: 'bridge-nf-off', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-003': {fire: 'forward-drop', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-004': {fire: 'route-localnet-off', quiet: 'forwarding-ok', node: 'node-a'},
}
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${CASES.length} bundles under ${ROOT}`)
