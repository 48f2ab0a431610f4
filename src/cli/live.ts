// Live collection for commands that take nodes: kubeconfig → ClusterSnapshot (read once) → NodeSnapshots.
// The one place that chooses transport implementations from flags.
import {isSecurityWarning} from '../transports/ssh/hop.js'
import {collectFleet, type FleetEvent} from '../app/collect-fleet.js'
import {readClusterSnapshot} from '../app/read-cluster.js'
import {planFor} from '../core/collection/plan.js'
import type {Node} from '../core/model/k8s.js'
import type {Area} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import {nodeAddress, parseLabelSelector, selectNodes} from '../core/select-nodes.js'
import {ParseError, UsageError} from '../errors.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {type KubeAccess, type KubeOptions, loadKubeConfig} from '../transports/kube/kubeconfig.js'
import {KubeClusterClient} from '../transports/kube/client.js'
import {LocalTransport} from '../transports/local/local.js'
import {DebugPodTransport, newRunId} from '../transports/pod/debug-pod.js'
import {resolveSshTarget} from '../transports/ssh/ssh-config.js'
import {SshJumpPool, SshTransport} from '../transports/ssh/ssh.js'
import os from 'node:os'
import {parseDuration} from './flags.js'

export interface LiveFlags extends KubeOptions {
  selector?: string
  all?: boolean
  via: string
  concurrency: number
  timeout: string
  'node-timeout': string
  sudo?: boolean
  'address-type': string
  'ssh-user'?: string
  'ssh-identity'?: string[]
  'ssh-port'?: number
  'ssh-jump'?: string
  'ssh-config'?: string
  'insecure-ignore-host-key'?: boolean
  'pod-image'?: string
  'pod-namespace'?: string
  quiet?: boolean
  verbose?: boolean
}

export interface LiveRun {
  access: KubeAccess
  cluster: ClusterSnapshot
  nodes: NodeSnapshot[]
}

/** Validates that exactly one way of choosing nodes was used. */
export function checkSelection(names: string[], flags: {selector?: string; all?: boolean}): void {
  const ways = [names.length > 0, flags.selector !== undefined, Boolean(flags.all)].filter(Boolean).length
  if (ways === 0) throw new UsageError('no nodes given', 'Name nodes, or use -l SELECTOR, or --all.')
  if (ways > 1) throw new UsageError('choose nodes one way: NODE names, -l SELECTOR, or --all')
  if (flags.selector !== undefined) {
    try {
      parseLabelSelector(flags.selector)
    } catch (err) {
      if (err instanceof ParseError) throw new UsageError(err.message)
      throw err
    }
  }
}

function progress(enabled: boolean, total: number): (e: FleetEvent) => void {
  let done = 0
  let failed = 0
  let running = 0
  return (e) => {
    if (e.type === 'node-start') running++
    else {
      running--
      done++
      if (!e.ok) failed++
    }
    if (!enabled) return
    process.stderr.write(`\r\x1b[2Kcollecting: ${done}/${total} done, ${failed} failed, ${running} running`)
    if (done === total) process.stderr.write('\n')
  }
}

/** The live flags' defaults for commands that examine one node (show views, proxy render|diff|trace, repairs). */
export const SINGLE_NODE_DEFAULTS: LiveFlags = {via: 'ssh', concurrency: 1, timeout: '30s', 'node-timeout': '5m', 'address-type': 'InternalIP'}

/** What every live command starts from: the kubeconfig's access, the cluster read once, and the nodes to examine. */
export interface LiveTargets {
  access: KubeAccess
  client: KubeClusterClient
  cluster: ClusterSnapshot
  selected: Node[]
  /** True when the nodes came from --all (no names, no selector). */
  all: boolean
}

/**
 * Node selection for live runs (`check`, `dashboard`, `--in-cluster`): NODE names, `-l SELECTOR` (resolved with one
 * list call so the cluster read can be limited to those nodes) or `--all`; then the ClusterSnapshot, read once.
 * Unknown named nodes, an empty selection and `--via local` with several nodes are usage errors.
 */
export async function resolveLiveTargets(names: string[], flags: LiveFlags, now: () => Date): Promise<LiveTargets> {
  checkSelection(names, flags)
  const access = loadKubeConfig(flags)
  const client = new KubeClusterClient(access)

  let wanted: string[] | undefined = names.length > 0 ? names : undefined
  if (flags.selector !== undefined) wanted = (await client.listNodes({labelSelector: flags.selector})).map((n) => n.metadata.name)
  if (wanted !== undefined && wanted.length === 0) throw new UsageError(`no nodes match the selector "${flags.selector}"`)

  const cluster = await readClusterSnapshot(client, {nodeNames: wanted, now: now(), context: access.context, server: access.server})
  const {selected, unknown} = selectNodes(cluster.nodes, wanted ? {names: wanted} : {all: true})
  if (unknown.length > 0 && names.length > 0) {
    throw new UsageError(`${unknown.map((n) => `nodes "${n}"`).join(', ')} not found`, "List nodes with 'kubectl get nodes'.")
  }
  if (selected.length === 0) throw new UsageError('no nodes to examine')
  if (flags.via === 'local' && selected.length !== 1) {
    throw new UsageError('--via local runs the commands on this machine, so it takes exactly one node (the one you are on)')
  }
  return {access, client, cluster, selected, all: wanted === undefined}
}

export async function collectLive(names: string[], flags: LiveFlags, options: {areas?: Area[]; now?: () => Date} = {}): Promise<LiveRun> {
  const now = options.now ?? (() => new Date())
  const timeoutMs = parseDuration(flags.timeout, 'timeout')
  const nodeTimeoutMs = parseDuration(flags['node-timeout'], 'node-timeout')
  const {access, cluster, selected} = await resolveLiveTargets(names, flags, now)

  const {connect, close} = transportFactory(flags, (m) => (!flags.quiet || isSecurityWarning(m)) && process.stderr.write(`${m}\n`), access)
  const onEvent = progress(Boolean(process.stderr.isTTY) && !flags.quiet, selected.length)
  const nodes = await collectFleet(selected, {
    plan: planFor(options.areas),
    concurrency: flags.concurrency,
    timeoutMs,
    nodeTimeoutMs,
    sudo: Boolean(flags.sudo),
    now,
    connect,
    onEvent,
    transportKind: flags.via === 'local' ? 'local' : flags.via === 'pod' ? 'pod' : 'ssh',
  }).finally(close)
  return {access, cluster, nodes}
}

export interface TransportFactory {
  connect: (node: Node) => Promise<NodeTransport>
  /** Releases what the factory shares between nodes (bastion connections). */
  close: () => Promise<void>
}

export function transportFactory(flags: LiveFlags, warn: (message: string) => void, access: KubeAccess): TransportFactory {
  switch (flags.via) {
    case 'local':
      return {connect: async (node) => new LocalTransport(node.metadata.name), close: async () => {}}
    case 'ssh': {
      const pool = new SshJumpPool()
      if (flags['insecure-ignore-host-key']) warn('WARNING: --insecure-ignore-host-key: node host keys are NOT verified; a man-in-the-middle can read and alter everything collected.')
      return {
        connect: async (node) => {
          const address = nodeAddress(node, flags['address-type'])
          const target = resolveSshTarget({
            nodeName: node.metadata.name,
            ...(address ? {address} : {}),
            flags: {
              ...(flags['ssh-user'] ? {user: flags['ssh-user']} : {}),
              ...(flags['ssh-identity']?.[0] ? {identity: flags['ssh-identity'][0]} : {}),
              ...(flags['ssh-port'] ? {port: flags['ssh-port']} : {}),
              ...(flags['ssh-jump'] ? {jump: flags['ssh-jump']} : {}),
              ...(flags['ssh-config'] ? {sshConfigPath: flags['ssh-config']} : {}),
              insecureSkipHostKeyCheck: Boolean(flags['insecure-ignore-host-key']),
            },
            env: process.env,
            home: os.homedir(),
          })
          const transport = new SshTransport(node.metadata.name, target, {jumpPool: pool})
          await transport.connect()
          for (const w of transport.warnings) warn(`${node.metadata.name}: ${w}`)
          return transport
        },
        close: () => pool.close(),
      }
    }
    case 'pod':
      return debugPodFactory(flags, warn, access)
    default:
      throw new UsageError(`unknown --via ${flags.via}`, 'Use --via ssh, pod or local.')
  }
}

/** One debug pod per node, all labelled with one run id; close() deletes any pod a node's own close() missed. */
function debugPodFactory(flags: LiveFlags, warn: (message: string) => void, access: KubeAccess): TransportFactory {
  const api = new KubeClusterClient(access)
  const runId = newRunId()
  const open = new Set<DebugPodTransport>()
  return {
    connect: async (node) => {
      const t = new DebugPodTransport(node.metadata.name, api, access.kc, {
        runId,
        warn,
        ...(flags['pod-image'] ? {image: flags['pod-image']} : {}),
        ...(flags['pod-namespace'] ? {namespace: flags['pod-namespace']} : {}),
      })
      open.add(t)
      await t.start()
      return t
    },
    close: async () => {
      await Promise.all([...open].map((t) => t.close()))
    },
  }
}
