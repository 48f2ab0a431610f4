// The CLI's side of `check --in-cluster`: create the agent's Namespace + ServiceAccount + DaemonSet, poll the
// agent pods with one list per round, read each Ready pod's log once and decode its document, and delete the
// namespace at the end (also when interrupted, through the registered cleanup). A node whose pod never starts,
// fails, or writes a corrupt document gets a fatal collection error saying why; the others are still reported.
import pLimit from 'p-limit'
import {AgentDocumentError, readAgentDocument} from '../core/agent/document.js'
import {agentLayoutScope, unresolvedLayoutWarning} from '../core/agent/layout-scope.js'
import {AGENT_CONTAINER, AGENT_DAEMONSET, agentManifests, agentPodSelector} from '../core/agent/manifests.js'
import {agentPodState, uncollectedSnapshot} from '../core/agent/pod-state.js'
import type {Node, Pod} from '../core/model/k8s.js'
import type {Area} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import type {AgentApi} from '../ports/agent.js'
import {ClusterAccessError} from '../ports/cluster.js'

export type AgentRunEvent =
  | {type: 'created'; namespace: string; nodes: number}
  | {type: 'node-done'; node: string; ok: boolean; error?: string; snapshot: NodeSnapshot}
  | {type: 'deleted'; namespace: string; ok: boolean}

export interface AgentRunOptions {
  runId: string
  image: string
  areas?: readonly Area[]
  /** The nodes to collect (already selected from the ClusterSnapshot). */
  nodes: readonly Node[]
  /** Every node of the cluster is selected: the DaemonSet gets no node affinity. */
  allNodes: boolean
  /**
   * The cluster as read for this run: each target node's layout is resolved from it, so the DaemonSet mounts only
   * the directories of the layouts the target nodes have (a node whose layout it does not tell: every layout's, with
   * a warning). Absent: every known layout's directories, as `agent manifests` prints them.
   */
  cluster?: ClusterSnapshot
  /** Per command on the node, handed to the agent. */
  commandTimeoutMs: number
  /** From creation until every node is done; what is left then becomes collection errors. */
  waitTimeoutMs: number
  /** Between two pod lists (default 2 s). */
  pollMs?: number
  /** Log reads in parallel. */
  concurrency: number
  now: () => Date
  sleep?: (ms: number) => Promise<void>
  /** Registers a cleanup to run on Ctrl-C (src/transports/pod/interrupt.ts); returns its unregister function. */
  registerCleanup?: (label: string, run: () => Promise<void>) => () => void
  onEvent?: (e: AgentRunEvent) => void
  /**
   * Stops the run early (the dashboard was closed): nothing more is created or read, the nodes not read yet become
   * collection errors saying so, and the namespace is deleted as at every end.
   */
  signal?: AbortSignal
  /** Problems that do not fail the run (a namespace that could not be deleted). */
  warn: (message: string) => void
}

export interface AgentRunResult {
  namespace: string
  /** One per requested node, in the order given. */
  nodes: NodeSnapshot[]
}

const DEFAULT_POLL_MS = 2000
const NO_POD = 'no agent pod yet'
const STOPPED = 'the run was stopped before this node was read'

export async function collectWithAgents(api: AgentApi, o: AgentRunOptions): Promise<AgentRunResult> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const scope = o.cluster ? agentLayoutScope(o.cluster, o.nodes) : undefined
  const unresolved = scope ? unresolvedLayoutWarning(scope, o.areas) : undefined
  if (unresolved) o.warn(unresolved)
  const manifests = agentManifests({
    runId: o.runId,
    image: o.image,
    ...(o.areas ? {areas: o.areas} : {}),
    ...(o.allNodes ? {} : {nodeNames: o.nodes.map((n) => n.metadata.name)}),
    commandTimeoutSeconds: Math.max(1, Math.ceil(o.commandTimeoutMs / 1000)),
    ...(scope ? {layouts: scope.layouts} : {}),
  })
  const ns = manifests.namespace

  let creating: Promise<void> | undefined
  let teardown: Promise<void> | undefined
  const deleteAll = (): Promise<void> =>
    (teardown ??= (async () => {
      // An interrupt during creation waits for the POSTs in flight, so nothing is created after the DELETE.
      await creating?.catch(() => undefined)
      if (creating === undefined) return
      try {
        await api.deleteNamespace(ns)
        o.onEvent?.({type: 'deleted', namespace: ns, ok: true})
      } catch (err) {
        o.onEvent?.({type: 'deleted', namespace: ns, ok: false})
        o.warn(`WARNING: could not delete namespace ${ns} (the agent DaemonSet is in it): ${(err as Error).message}. Delete it with: kubectl node-doctor cleanup`)
      }
    })())
  // Registered before the first POST; throws when a signal already arrived, so nothing is created.
  const unregister = o.registerCleanup?.(`agent namespace ${ns}`, deleteAll)

  try {
    if (o.signal?.aborted) return {namespace: ns, nodes: o.nodes.map((n) => uncollectedSnapshot(n.metadata.name, o.now().toISOString(), STOPPED, 0))}
    creating = api.create(manifests.objects)
    await creating
    o.onEvent?.({type: 'created', namespace: ns, nodes: o.nodes.length})
    return {namespace: ns, nodes: await waitForAgents(api, ns, o, sleep)}
  } finally {
    await deleteAll()
    unregister?.()
  }
}

async function waitForAgents(api: AgentApi, ns: string, o: AgentRunOptions, sleep: (ms: number) => Promise<void>): Promise<NodeSnapshot[]> {
  const started = o.now()
  const deadline = started.getTime() + o.waitTimeoutMs
  const pending = new Map<string, string>(o.nodes.map((n) => [n.metadata.name, NO_POD]))
  const done = new Map<string, NodeSnapshot>()
  const limit = pLimit(Math.max(1, o.concurrency))
  const elapsed = () => o.now().getTime() - started.getTime()
  const finish = (node: string, snapshot: NodeSnapshot) => {
    if (!pending.delete(node)) return
    done.set(node, snapshot)
    const fatal = snapshot.errors.find((e) => e.fatal)
    o.onEvent?.({type: 'node-done', node, ok: fatal === undefined, ...(fatal ? {error: fatal.message} : {}), snapshot})
  }
  const fail = (node: string, message: string) => finish(node, uncollectedSnapshot(node, started.toISOString(), message, elapsed()))

  for (;;) {
    let pods: Map<string, Pod>
    try {
      pods = latestPodPerNode(await api.listPods(ns, agentPodSelector(o.runId)))
    } catch (err) {
      // A refusal is final; a timeout or a 5xx while the control plane is busy is retried next round.
      if (!(err instanceof ClusterAccessError) || !transient(err) || o.now().getTime() >= deadline) throw err
      await sleep(Math.max(0, Math.min(o.pollMs ?? DEFAULT_POLL_MS, deadline - o.now().getTime())))
      continue
    }
    const ready: Array<[string, Pod]> = []
    for (const node of [...pending.keys()]) {
      const pod = pods.get(node)
      if (!pod) continue
      const where = `agent pod ${ns}/${pod.metadata.name}`
      const s = agentPodState(pod)
      if (s.state === 'failed') fail(node, `${where}: ${s.detail}`)
      else if (s.state === 'waiting') pending.set(node, `${where}: ${s.detail}`)
      else ready.push([node, pod])
    }
    await Promise.all(ready.map(([node, pod]) => limit(() => readDocument(api, ns, node, pod, pending, finish, fail))))
    if (pending.size === 0 || o.now().getTime() >= deadline || o.signal?.aborted) break
    await sleep(Math.max(0, Math.min(o.pollMs ?? DEFAULT_POLL_MS, deadline - o.now().getTime())))
    if (o.signal?.aborted) break
  }

  if (o.signal?.aborted) {
    for (const node of [...pending.keys()]) fail(node, STOPPED)
  } else if (pending.size > 0) {
    const why = [...pending.values()].includes(NO_POD) ? await failedCreateReason(api, ns) : undefined
    const waited = `${Math.round(elapsed() / 1000)}s`
    for (const [node, detail] of [...pending]) {
      if (detail === NO_POD) {
        fail(node, `no agent pod started on node ${node} within ${waited}${why ? `: the DaemonSet controller reports: ${why}` : ' (is the node Ready and schedulable? kubectl get daemonset -n ' + ns + ')'}`)
      } else {
        fail(node, `${detail}; gave up after ${waited}`)
      }
    }
  }
  return o.nodes.map((n) => done.get(n.metadata.name)!)
}

async function readDocument(
  api: AgentApi,
  ns: string,
  node: string,
  pod: Pod,
  pending: Map<string, string>,
  finish: (node: string, s: NodeSnapshot) => void,
  fail: (node: string, message: string) => void,
): Promise<void> {
  const where = `agent pod ${ns}/${pod.metadata.name}`
  let log: string
  try {
    log = await api.podLog(ns, pod.metadata.name, AGENT_CONTAINER)
  } catch (err) {
    // 404: the pod went away between the list and the read; its replacement is picked up next round.
    if (err instanceof ClusterAccessError && err.status?.code === 404) return void pending.set(node, `${where}: deleted while its log was read`)
    return fail(node, `${where}: cannot read its log: ${(err as Error).message}`)
  }
  try {
    const scan = readAgentDocument(log, node)
    if (scan.state === 'complete') return finish(node, scan.snapshot)
    pending.set(node, `${where}: Ready, but ${scan.state === 'absent' ? 'its log holds no agent document yet' : 'the agent document in its log is not complete yet'}`)
  } catch (err) {
    if (err instanceof AgentDocumentError) return fail(node, `${where}: ${err.message}`)
    throw err
  }
}

function transient(err: ClusterAccessError): boolean {
  return err.kind === 'timeout' || err.kind === 'unreachable' || (err.kind === 'status' && (err.status?.code ?? 0) >= 500) || err.status?.code === 429
}

/** The newest live pod on each node (a replaced pod and its replacement may both be listed for a moment). */
function latestPodPerNode(pods: readonly Pod[]): Map<string, Pod> {
  const out = new Map<string, Pod>()
  for (const p of pods) {
    const node = p.spec?.nodeName
    if (!node || p.metadata.deletionTimestamp) continue
    const seen = out.get(node)
    if (!seen || String(p.metadata.creationTimestamp ?? '') >= String(seen.metadata.creationTimestamp ?? '')) out.set(node, p)
  }
  return out
}

/** The DaemonSet controller's latest FailedCreate message (Pod Security, quota), if the events can be read. */
async function failedCreateReason(api: AgentApi, ns: string): Promise<string | undefined> {
  try {
    const events = await api.listEvents(ns)
    const failed = events
      .filter((e) => e.reason === 'FailedCreate' && e.involvedObject?.kind === 'DaemonSet' && e.involvedObject.name === AGENT_DAEMONSET)
      .sort((a, b) => String(a.lastTimestamp ?? '').localeCompare(String(b.lastTimestamp ?? '')))
    return failed.at(-1)?.message
  } catch {
    return undefined
  }
}
