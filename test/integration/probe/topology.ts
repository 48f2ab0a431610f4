// Two "nodes" (network namespaces node-a and node-b, each with eth0 at MTU 1500) on two subnets joined by a router
// namespace in the middle. With `midMtu` set, the router's end of node-a's link has that smaller MTU: a real path MTU
// black hole. node-a's 1500-byte packets toward node-b are dropped silently as the router's interface receives them
// (a veth drops frames larger than the receiving end's MTU, no ICMP); node-b's 1500-byte packets toward node-a reach
// the router, which cannot send them on with DF set and answers "fragmentation needed". Small packets pass both ways.
// Without `midMtu` every link is 1500: the clean path. Traffic stays inside these three namespaces.
// Used by probe.test.ts and scripts/make-mtu-probe-fixtures.ts (the NODE-019 fire/quiet bundles).
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {collectNode} from '../../../src/app/collect-node.js'
import {probeNodes} from '../../../src/app/live/probe.js'
import {planFor} from '../../../src/core/collection/plan.js'
import type {Node} from '../../../src/core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {LocalTransport} from '../../../src/transports/local/local.js'

/** Why the probe topology cannot be built here, or undefined when it can. */
export function probeTopologyUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root for network namespaces'
  try {
    execFileSync('ping', ['-V'], {stdio: 'ignore'})
  } catch {
    return 'ping (iputils) is not installed'
  }
  return undefined
}

export interface ProbeNode {
  name: string
  ns: string
  address: string
  address6?: string
  /** A shell that runs its commands inside the node's namespace (for LocalTransport). */
  shell: string
}

export interface ProbeTopology {
  nodes: ProbeNode[]
  router: string
  cluster: ClusterSnapshot
  /** Runs a command in a namespace of the topology. */
  exec(ns: string, argv: string[]): string
  destroy(): void
}

export const NODE_A_ADDRESS = '10.77.1.2'
export const NODE_B_ADDRESS = '10.77.2.2'
/** With `dualStack`: the nodes' IPv6 InternalIPs (ULA, inside these namespaces only). */
export const NODE_A_ADDRESS6 = 'fd77:1::2'
export const NODE_B_ADDRESS6 = 'fd77:2::2'

export function buildProbeTopology(options: {midMtu?: number; dualStack?: boolean} = {}): ProbeTopology {
  const tag = randomBytes(3).toString('hex')
  const dir = mkdtempSync(join(tmpdir(), 'nd-probe-'))
  const router = `ndpr-m-${tag}`
  const spec = [
    {name: 'node-a', ns: `ndpr-a-${tag}`, address: NODE_A_ADDRESS, gw: '10.77.1.1', address6: NODE_A_ADDRESS6, gw6: 'fd77:1::1', mid: 'to-a'},
    {name: 'node-b', ns: `ndpr-b-${tag}`, address: NODE_B_ADDRESS, gw: '10.77.2.1', address6: NODE_B_ADDRESS6, gw6: 'fd77:2::1', mid: 'to-b'},
  ]
  const ip = (...args: string[]) => execFileSync('ip', args, {stdio: ['ignore', 'pipe', 'pipe']})
  const exec = (ns: string, argv: string[]) => execFileSync('ip', ['netns', 'exec', ns, ...argv], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  const destroy = () => {
    for (const ns of [router, ...spec.map((s) => s.ns)]) {
      try {
        ip('netns', 'del', ns)
      } catch {}
    }
    rmSync(dir, {recursive: true, force: true})
  }
  const nodes: ProbeNode[] = []
  try {
    ip('netns', 'add', router)
    ip('-n', router, 'link', 'set', 'lo', 'up')
    exec(router, ['sysctl', '-qw', 'net.ipv4.ip_forward=1'])
    if (options.dualStack) exec(router, ['sysctl', '-qw', 'net.ipv6.conf.all.forwarding=1'])
    for (const [i, s] of spec.entries()) {
      ip('netns', 'add', s.ns)
      ip('-n', s.ns, 'link', 'set', 'lo', 'up')
      // A Kubernetes node forwards (NODE-001): the bundles made from these nodes stay clean but for what they plant.
      exec(s.ns, ['sysctl', '-qw', 'net.ipv4.ip_forward=1'])
      const a = `ndpr${i}${tag}n`
      const b = `ndpr${i}${tag}m`
      ip('link', 'add', a, 'type', 'veth', 'peer', 'name', b)
      ip('link', 'set', a, 'netns', s.ns)
      ip('link', 'set', b, 'netns', router)
      ip('-n', s.ns, 'link', 'set', a, 'name', 'eth0')
      ip('-n', router, 'link', 'set', b, 'name', s.mid)
      ip('-n', s.ns, 'addr', 'add', `${s.address}/24`, 'dev', 'eth0')
      ip('-n', router, 'addr', 'add', `${s.gw}/24`, 'dev', s.mid)
      ip('-n', s.ns, 'link', 'set', 'eth0', 'up')
      ip('-n', router, 'link', 'set', s.mid, 'up')
      ip('-n', s.ns, 'route', 'add', 'default', 'via', s.gw)
      if (options.dualStack) {
        // nodad: the addresses are usable at once (no duplicate address detection wait).
        ip('-n', s.ns, 'addr', 'add', `${s.address6}/64`, 'dev', 'eth0', 'nodad')
        ip('-n', router, 'addr', 'add', `${s.gw6}/64`, 'dev', s.mid, 'nodad')
        ip('-n', s.ns, '-6', 'route', 'add', 'default', 'via', s.gw6)
      }
      const shell = join(dir, `sh-${s.name}`)
      writeFileSync(shell, `#!/bin/sh\nexec ip netns exec ${s.ns} /bin/sh "$@"\n`)
      chmodSync(shell, 0o755)
      nodes.push({name: s.name, ns: s.ns, address: s.address, ...(options.dualStack ? {address6: s.address6} : {}), shell})
    }
    if (options.midMtu !== undefined) ip('-n', router, 'link', 'set', 'to-a', 'mtu', String(options.midMtu))
  } catch (err) {
    destroy()
    throw err
  }
  const cluster = emptyClusterSnapshot('2026-12-01T00:00:00Z')
  cluster.nodes = nodes.map(
    (n): Node => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: n.name},
      status: {
        addresses: [{type: 'InternalIP', address: n.address}, ...(n.address6 ? [{type: 'InternalIP', address: n.address6}] : []), {type: 'Hostname', address: n.name}],
        conditions: [{type: 'Ready', status: 'True'}],
      },
    }),
  )
  return {nodes, router, cluster, exec, destroy}
}

const transport = (t: ProbeTopology, name: string) => new LocalTransport(name, t.nodes.find((n) => n.name === name)!.shell)

/** Collects the routes area's plan on every node of the topology (real commands in its namespace). */
export async function collectTopology(t: ProbeTopology): Promise<NodeSnapshot[]> {
  const now = () => new Date()
  return Promise.all(t.nodes.map((n) => collectNode(transport(t, n.name), {plan: planFor(['routes']), timeoutMs: 10_000, sudo: false, now, batch: true})))
}

/** The probe as `check --probe` runs it, from every node of the topology to the selected others. */
export async function probeTopology(t: ProbeTopology, snapshots: NodeSnapshot[], selected: readonly string[] = t.nodes.map((n) => n.name)): Promise<NodeSnapshot[]> {
  const nodes = t.cluster.nodes.filter((n) => selected.includes(n.metadata.name))
  return probeNodes(t.cluster, nodes, snapshots.filter((s) => selected.includes(s.node)), {timeoutMs: 10_000, sudo: false, concurrency: 2, connect: async (n) => transport(t, n.metadata.name)})
}
