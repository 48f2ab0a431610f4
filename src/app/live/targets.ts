// What every live use case starts from: the nodes the user named (NODE names, -l SELECTOR or --all), the cluster
// read once through the API, and the options that say how hard to try on each node.
import type {Node} from '../../core/model/k8s.js'
import type {ClusterSnapshot} from '../../core/model/snapshot.js'
import {parseLabelSelector, selectNodes} from '../../core/select-nodes.js'
import {ParseError, UsageError} from '../../errors.js'
import type {ApiAccess, ClusterApi, ClusterConnection, Environment} from '../../ports/environment.js'
import {readClusterSnapshot} from '../read-cluster.js'

/** The live options, named as the flags that give them (transport details stay with the Environment). */
export interface LiveFlags {
  selector?: string
  all?: boolean
  via: string
  concurrency: number
  timeout: string
  'node-timeout': string
  sudo?: boolean
  quiet?: boolean
  verbose?: boolean
}

/** The live flags' defaults for commands that examine one node (show views, proxy render|diff|trace, repairs). */
export const SINGLE_NODE_DEFAULTS: LiveFlags = {via: 'ssh', concurrency: 1, timeout: '30s', 'node-timeout': '5m'}

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

/** What every live command starts from: the kubeconfig's access, the cluster read once, and the nodes to examine. */
export interface LiveTargets {
  access: ApiAccess
  connection: ClusterConnection
  client: ClusterApi
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
export async function resolveLiveTargets(names: string[], flags: LiveFlags, env: Environment, now: () => Date): Promise<LiveTargets> {
  checkSelection(names, flags)
  const connection = env.cluster()
  const {access, api: client} = connection

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
  return {access, connection, client, cluster, selected, all: wanted === undefined}
}

/** The selection as the dashboard's title bar names it: the nodes, `-l SELECTOR`, or all nodes. */
export function selectionLabel(names: readonly string[], flags: {selector?: string}): string {
  return names.length > 0 ? names.join(', ') : flags.selector !== undefined ? `-l ${flags.selector}` : 'all nodes'
}
