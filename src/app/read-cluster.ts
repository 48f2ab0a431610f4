// Reads the API side of a run into a ClusterSnapshot: every resource once, with bounded concurrency.
// A refused or failed read becomes a CollectionError; only "cannot talk to the cluster at all" (unreachable, TLS,
// 401, credentials) aborts the run, because nothing after it could succeed.
import pLimit from 'p-limit'
import type {CollectionError} from '../core/model/report.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type UnavailableResource} from '../core/model/snapshot.js'
import {type DaemonSet, type KubeObject, type Node, type Pod, objectKey} from '../core/model/k8s.js'
import {type ApiRequest, type CalicoResource, ClusterAccessError, type ClusterReader, describeRequest} from '../ports/cluster.js'

export interface ReadClusterOptions {
  /** Nodes under examination; absent means every node. Their configz, pods and kube-proxy logs are read. */
  nodeNames?: string[]
  now: Date
  /** Requests in flight at once (default 6). */
  concurrency?: number
  /** Lines of each kube-proxy log to keep (default 200). */
  logTailLines?: number
  context?: string
  server?: string
}

export const KUBE_SYSTEM = 'kube-system'
/**
 * Where CNIs put their DaemonSets, read one by one when the cluster-wide list is forbidden: kube-system (kube-proxy,
 * Calico and Cilium manifests, canal, kube-router, aws-node, Antrea), kube-flannel (flannel's manifest), calico-system
 * (calico-node under the Tigera operator; tigera-operator itself holds only the operator's Deployment), cilium (a
 * Cilium Helm release in a namespace of its own), ovn-kubernetes. kube-system first: its failure is a failed read.
 */
export const DAEMONSET_NAMESPACES = [KUBE_SYSTEM, 'kube-flannel', 'calico-system', 'cilium', 'ovn-kubernetes'] as const
/**
 * kube-system ConfigMaps that record the intended kube-proxy and kubelet configuration (kubeadm names), cilium-config (who
 * implements Services: core/layout; its `mtu`) and calico-config (manifest installs: `veth_mtu`, the CNI MTU checks).
 */
export const CLUSTER_CONFIGMAPS = ['kube-proxy', 'kube-proxy-config', 'kubelet-config', 'kubeadm-config', 'coredns', 'cilium-config', 'calico-config'] as const

/**
 * Builds the cluster half of a snapshot. Contract: resolves with whatever could be read, the rest recorded in
 * `errors` with a `source` such as `list services` or `get nodes/proxy node-1`; rejects with ClusterAccessError
 * only when the API server cannot be used at all. Items are sorted by namespace/name, so output is deterministic.
 */
export async function readClusterSnapshot(reader: ClusterReader, options: ReadClusterOptions): Promise<ClusterSnapshot> {
  const snap = emptyClusterSnapshot(options.now.toISOString())
  if (options.context !== undefined) snap.context = options.context
  if (options.server !== undefined) snap.server = options.server
  const limit = pLimit(options.concurrency ?? 6)
  const tail = options.logTailLines ?? 200
  // One slot per task so errors come out in a fixed order whatever order requests complete in.
  const errorSlots: CollectionError[][] = []

  const reserve = (): CollectionError[] => {
    const slot: CollectionError[] = []
    errorSlots.push(slot)
    return slot
  }
  const attemptIn = async <T>(slot: CollectionError[], fallbackSource: string, fn: () => Promise<T>, node?: string): Promise<T | undefined> => {
    try {
      return await limit(fn)
    } catch (err) {
      if (!(err instanceof ClusterAccessError) || !isPerRequest(err)) {
        limit.clearQueue() // the run is over: start nothing more
        throw err
      }
      const e: CollectionError = {source: err.request ? describeRequest(err.request) : fallbackSource, message: err.message, ...readOf(err.request, fallbackSource)}
      if (node !== undefined) e.node = node
      slot.push(e)
      return undefined
    }
  }
  const attempt = <T>(fallbackSource: string, fn: () => Promise<T>, node?: string): Promise<T | undefined> => attemptIn(reserve(), fallbackSource, fn, node)

  // The version call doubles as the reachability and credentials probe, before fanning out: if even it cannot get
  // an answer (a timeout included), nothing else will.
  try {
    snap.serverVersion = (await reader.serverVersion()).gitVersion
  } catch (err) {
    if (!(err instanceof ClusterAccessError) || err.kind !== 'status') throw err
    errorSlots.push([{source: err.request ? describeRequest(err.request) : 'get /version', message: err.message}])
  }

  const wanted = options.nodeNames === undefined ? undefined : [...new Set(options.nodeNames)]
  const missing: string[] = []
  const nodesTask = (async (): Promise<Node[]> => {
    const listed = await attempt('list nodes', () => reader.listNodes())
    if (wanted === undefined) return listed ?? []
    if (listed !== undefined) {
      missing.push(...wanted.filter((n) => !listed.some((l) => l.metadata.name === n)))
      return listed
    }
    // Without list permission, the named nodes may still be readable one by one.
    const got = await Promise.all(wanted.map((n) => attempt('get nodes', async () => ({name: n, node: await reader.getNode(n)}), n)))
    for (const g of got) if (g && g.node === undefined) missing.push(g.name)
    return got.flatMap((g) => (g?.node ? [g.node] : []))
  })()

  const podsTask = (async (): Promise<Pod[]> => {
    if (wanted === undefined) return (await attempt('list pods', () => reader.listPods())) ?? []
    const lists = await Promise.all([
      attempt('list pods', () => reader.listPods({namespace: KUBE_SYSTEM})),
      ...wanted.map((n) => attempt('list pods', () => reader.listPods({nodeName: n}), n)),
    ])
    return dedupe(lists.flatMap((l) => l ?? []))
  })()

  // ServiceCIDRs: an API server that does not serve them (before v1.33, or the API disabled) or RBAC that refuses
  // them is a fact to note, not a failed read: the nftables proxier's drop rule for unallocated ClusterIPs depends on
  // them (404: kube-proxy cannot see any either; 403: kube-proxy can, so that rule cannot be predicted).
  const unavailable: UnavailableResource[] = []
  const readServiceCIDRs = () =>
    attempt('list servicecidrs.networking.k8s.io', async () => {
      try {
        return await reader.listServiceCIDRs()
      } catch (err) {
        const code = err instanceof ClusterAccessError && err.kind === 'status' ? err.status?.code : undefined
        if (code === 404) {
          unavailable.push({resource: 'servicecidrs', why: 'not-served', note: 'the API server does not serve networking.k8s.io/v1 ServiceCIDRs (404: before v1.33, or the API is disabled): none exist for kube-proxy either'})
          return []
        }
        if (code === 403) {
          unavailable.push({
            resource: 'servicecidrs',
            why: 'forbidden',
            note: `listing networking.k8s.io/v1 ServiceCIDRs is forbidden for this user (403: ${err instanceof Error ? err.message : String(err)}): kube-proxy's drop rule for unallocated ClusterIPs (nftables mode) cannot be predicted; grant list on servicecidrs.networking.k8s.io to check it`,
          })
          return []
        }
        throw err
      }
    })
  // DaemonSets in every namespace, one list: CNIs keep theirs outside kube-system (flannel's manifest in kube-flannel,
  // the Tigera operator's calico-node in calico-system). Where RBAC refuses the cluster scope (403), the namespaces
  // CNIs use are read one by one; only kube-system's failure is a failed read (the checks read kube-system's), the
  // others are noted as unavailable.
  const readDaemonSets = async (): Promise<DaemonSet[] | undefined> => {
    const slot = reserve()
    const scope: {refused?: ClusterAccessError} = {}
    const all = await attemptIn(slot, 'list daemonsets.apps', async () => {
      try {
        return await reader.listDaemonSets()
      } catch (err) {
        if (!(err instanceof ClusterAccessError) || !err.forbidden) throw err
        scope.refused = err
        return undefined
      }
    })
    const refused = scope.refused
    if (refused === undefined) return all
    const forbiddenIn: string[] = []
    const lists = await Promise.all(
      DAEMONSET_NAMESPACES.map((ns) =>
        ns === KUBE_SYSTEM
          ? attemptIn(slot, `list daemonsets.apps -n ${ns}`, () => reader.listDaemonSets(ns))
          : attemptIn(slot, `list daemonsets.apps -n ${ns}`, async () => {
              try {
                return await reader.listDaemonSets(ns)
              } catch (err) {
                if (!(err instanceof ClusterAccessError) || !err.forbidden) throw err
                forbiddenIn.push(ns)
                return []
              }
            }),
      ),
    )
    const others = DAEMONSET_NAMESPACES.filter((ns) => ns !== KUBE_SYSTEM)
    const refusedToo = others.filter((ns) => forbiddenIn.includes(ns))
    unavailable.push({
      resource: 'daemonsets',
      why: 'forbidden',
      note:
        `listing DaemonSets in all namespaces is forbidden for this user (403: ${refused.message}): read in ${DAEMONSET_NAMESPACES.join(', ')} one by one` +
        (refusedToo.length > 0 ? ` (forbidden in ${refusedToo.join(', ')} too)` : '') +
        "; a CNI's DaemonSet in another namespace is not seen (its links and CNI config on the node still tell the CNI); grant list on daemonsets.apps cluster-wide to see them",
    })
    return lists[0] === undefined ? undefined : lists.flatMap((l) => l ?? [])
  }
  const calico = (r: CalicoResource) => attempt(`list ${r}.crd.projectcalico.org`, () => reader.listCalico(r))
  const [nodes, pods, services, endpointSlices, daemonSets, serviceCIDRs, configMaps, ipPools, blockAffinities, ipamBlocks, felixConfigurations] = await Promise.all([
    nodesTask,
    podsTask,
    attempt('list services', () => reader.listServices()),
    attempt('list endpointslices.discovery.k8s.io', () => reader.listEndpointSlices()),
    readDaemonSets(),
    readServiceCIDRs(),
    Promise.all(CLUSTER_CONFIGMAPS.map((name) => attempt(`get configmaps ${name}`, () => reader.getConfigMap(KUBE_SYSTEM, name)))),
    calico('ippools'),
    calico('blockaffinities'),
    calico('ipamblocks'),
    calico('felixconfigurations'),
  ])

  snap.nodes = sortByKey(nodes)
  snap.pods = sortByKey(pods)
  snap.services = sortByKey(services ?? [])
  snap.endpointSlices = sortByKey(endpointSlices ?? [])
  snap.daemonSets = sortByKey(daemonSets ?? [])
  snap.serviceCIDRs = sortByKey(serviceCIDRs ?? [])
  // Cilium installed in a namespace of its own keeps cilium-config there (who implements Services: core/layout).
  const ciliumNs = snap.daemonSets.find((d) => d.metadata.name === 'cilium' && d.metadata.namespace !== KUBE_SYSTEM)?.metadata.namespace
  const ciliumConfig =
    ciliumNs !== undefined && !configMaps.some((c) => c?.metadata.name === 'cilium-config')
      ? await attempt(`get configmaps cilium-config -n ${ciliumNs}`, async () => {
          try {
            return await reader.getConfigMap(ciliumNs, 'cilium-config')
          } catch (err) {
            // Refused: a fact to note (who implements Services stays unknown), not a failed ConfigMap read that would
            // stop every check needing kube-system's ConfigMaps.
            if (!(err instanceof ClusterAccessError) || !err.forbidden) throw err
            unavailable.push({resource: 'configmaps', why: 'forbidden', note: `reading ConfigMap ${ciliumNs}/cilium-config is forbidden (403: ${err.message}): whether Cilium replaces kube-proxy is not known from the API`})
            return undefined
          }
        })
      : undefined
  snap.configMaps = sortByKey([...configMaps, ciliumConfig].filter((c) => c !== undefined))
  snap.calico = {ipPools: sortByKey(ipPools ?? []), blockAffinities: sortByKey(blockAffinities ?? []), ipamBlocks: sortByKey(ipamBlocks ?? [])}
  // Only when there are some, so snapshots of clusters without them keep their shape.
  if (felixConfigurations !== undefined && felixConfigurations.length > 0) snap.calico.felixConfigurations = sortByKey(felixConfigurations)

  // CiliumNodes only where the cluster shows Cilium (its route check reads each node's pod CIDRs from them). A 404
  // means the CRD is not installed ([]); a 403 is noted like the ServiceCIDRs', not a failed read.
  if (snap.configMaps.some((c) => c.metadata.name === 'cilium-config') || snap.daemonSets.some((d) => d.metadata.name === 'cilium')) {
    const ciliumNodes = await attempt('list ciliumnodes.cilium.io', async () => {
      try {
        return await reader.listCiliumNodes()
      } catch (err) {
        if (err instanceof ClusterAccessError && err.forbidden) {
          unavailable.push({
            resource: 'ciliumnodes',
            why: 'forbidden',
            note: `listing cilium.io/v2 CiliumNodes is forbidden for this user (403: ${err.message}): Cilium's routes to other nodes' pod CIDRs cannot be judged; grant list on ciliumnodes.cilium.io to check them`,
          })
          return undefined
        }
        throw err
      }
    })
    if (ciliumNodes !== undefined) snap.ciliumNodes = sortByKey(ciliumNodes)
  }
  // Every resource noted as unavailable above, in one order whatever finished first.
  if (unavailable.length > 0) snap.unavailable = [...unavailable].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))

  // Per-node reads need the node list, so they form a second wave.
  const nodeSlots: CollectionError[] = []
  const present = new Set(snap.nodes.map((n) => n.metadata.name))
  const targets = wanted ?? [...present].sort()
  for (const name of missing) nodeSlots.push({node: name, source: `get nodes ${name}`, message: `nodes "${name}" not found`, resource: 'nodes', verb: 'get'})
  const kubeProxyPods = snap.pods.filter((p) => p.metadata.namespace === KUBE_SYSTEM && isKubeProxyPod(p) && targets.includes(p.spec?.nodeName ?? ''))
  const [configz, logs] = await Promise.all([
    Promise.all(targets.filter((n) => present.has(n)).map(async (n) => [n, await attempt('get nodes/proxy', () => reader.getNodeConfigz(n), n)] as const)),
    Promise.all(
      kubeProxyPods.map(async (p) => {
        const container = p.spec?.containers?.find((c) => c.name === 'kube-proxy')?.name ?? p.spec?.containers?.[0]?.name
        const opts = container === undefined ? {tailLines: tail} : {tailLines: tail, container}
        const text = await attempt('get pods/log', () => reader.podLogTail(KUBE_SYSTEM, p.metadata.name, opts), p.spec?.nodeName)
        return [p.metadata.name, text] as const
      }),
    ),
  ])
  for (const [n, body] of configz) if (body !== undefined) snap.configz[n] = body
  for (const [pod, text] of [...logs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) if (text !== undefined) snap.kubeProxyLogs[pod] = text
  snap.errors = [...errorSlots.flat(), ...nodeSlots]
  return snap
}

/** kube-proxy pods by the labels kubeadm and kops set, with the DaemonSet pod name as fallback. */
export function isKubeProxyPod(p: Pod): boolean {
  const labels = p.metadata.labels ?? {}
  return labels['k8s-app'] === 'kube-proxy' || labels.component === 'kube-proxy' || /^kube-proxy-[a-z0-9]+$/.test(p.metadata.name)
}

// Errors that concern one request; the others mean the cluster is unusable and end the run.
function isPerRequest(err: ClusterAccessError): boolean {
  return err.kind === 'status' || err.kind === 'timeout'
}

function sortByKey<T extends KubeObject>(items: T[]): T[] {
  return [...items].sort((a, b) => (objectKey(a) < objectKey(b) ? -1 : objectKey(a) > objectKey(b) ? 1 : 0))
}

function dedupe<T extends KubeObject>(items: T[]): T[] {
  const seen = new Map<string, T>()
  for (const i of items) if (!seen.has(objectKey(i))) seen.set(objectKey(i), i)
  return [...seen.values()]
}

/** The typed resource and verb of a failed read (`endpointslices`, `nodes/proxy`), so checks need not parse `source`. */
function readOf(r: ApiRequest | undefined, fallback: string): Pick<CollectionError, 'resource' | 'verb'> {
  const verb = r ? r.verb : fallback.split(' ')[0]
  const resource = r ? (r.resource === '' ? undefined : `${r.resource}${r.subresource ? `/${r.subresource}` : ''}`) : fallback.split(' ')[1]?.split('.')[0]
  return (verb === 'list' || verb === 'get') && resource ? {resource, verb} : {}
}
