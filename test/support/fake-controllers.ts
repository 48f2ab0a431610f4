// Controllers for the fake API server: what kube-controller-manager would do with the objects node-doctor touches.
// Only the DaemonSet controller for now, because repairs delete DaemonSet pods (kube-proxy, calico-node) and wait for
// the replacement, and the in-cluster agent runs as a DaemonSet.
//
// Behaviour, as pkg/controller/daemon does it for the cases node-doctor meets:
// - every Node whose labels match spec.template.spec.nodeSelector gets exactly one pod (taints are not modelled:
//   node-doctor's DaemonSets and kube-proxy/calico-node tolerate everything);
// - existing pods are adopted when their labels match spec.selector.matchLabels (seeded kube-proxy pods carry no
//   ownerReferences), else created from the template with generateName `<ds>-`, an ownerReference and spec.nodeName;
// - a pod deleted by a client is replaced; pods on nodes that no longer match, and pods whose DaemonSet is gone
//   (garbage collection), are deleted;
// - status.desiredNumberScheduled/currentNumberScheduled/numberReady/numberAvailable/updatedNumberScheduled follow.
// Reconciliation runs a short, fixed delay after any change to pods, DaemonSets or Nodes, like an informer resync.
import {randomBytes} from 'node:crypto'
import type {KubeObject} from '../../src/core/model/k8s.js'

export interface ControllerStore {
  delayMs: number
  list(resource: 'pods' | 'daemonsets' | 'nodes'): KubeObject[]
  /** Stores a new pod (status Pending) and hands it to the fake kubelet. */
  create(pod: KubeObject): void
  /** Replaces an object (the DaemonSet's status, an adopted pod's ownerReferences). */
  update(obj: KubeObject): void
  remove(pod: KubeObject): void
}

export interface DaemonSetController {
  /** Tells the controller that objects of this resource changed. */
  changed(resource: string): void
  stop(): void
}

interface OwnerRef {
  apiVersion: string
  kind: string
  name: string
  uid: string
  controller?: boolean
  blockOwnerDeletion?: boolean
}

type Obj = KubeObject & {
  metadata: KubeObject['metadata'] & {ownerReferences?: OwnerRef[]; deletionTimestamp?: string; generation?: number}
  spec?: Record<string, unknown>
  status?: Record<string, unknown>
}

const WATCHED = new Set(['pods', 'daemonsets', 'nodes'])

export function startDaemonSetController(store: ControllerStore): DaemonSetController {
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  const schedule = () => {
    if (stopped || timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      reconcileAll(store)
    }, store.delayMs)
  }

  return {
    changed(resource) {
      // The controller's own writes also land here; they re-run reconcile once, which then finds nothing to do.
      if (WATCHED.has(resource)) schedule()
    },
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
    },
  }
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v)
}

function isReady(pod: Obj): boolean {
  const conditions = (pod.status?.conditions ?? []) as Array<{type: string; status: string}>
  return pod.status?.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True')
}

function reconcileAll(store: ControllerStore): void {
  const sets = store.list('daemonsets') as Obj[]
  const nodes = store.list('nodes') as Obj[]
  let pods = store.list('pods') as Obj[]
  const liveUids = new Set(sets.map((ds) => ds.metadata.uid))

  // Garbage collection: pods whose controlling DaemonSet no longer exists.
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'DaemonSet')
    if (owner && !liveUids.has(owner.uid)) store.remove(pod)
  }
  pods = store.list('pods') as Obj[]

  for (const ds of sets) {
    const spec = (ds.spec ?? {}) as {selector?: {matchLabels?: Record<string, string>}; template?: {metadata?: {labels?: Record<string, string>; annotations?: Record<string, string>}; spec?: Record<string, unknown>}}
    const selector = spec.selector?.matchLabels
    const template = spec.template ?? {}
    const nodeSelector = (template.spec?.nodeSelector ?? undefined) as Record<string, string> | undefined
    const ns = ds.metadata.namespace
    const ownedOrAdoptable = pods.filter((p) => {
      if (p.metadata.namespace !== ns || p.metadata.deletionTimestamp) return false
      const owner = p.metadata.ownerReferences?.find((o) => o.controller)
      if (owner) return owner.uid === ds.metadata.uid
      return selector !== undefined && matches(selector, p.metadata.labels)
    })
    const wanted = nodes.filter((n) => matches(nodeSelector, n.metadata.labels))
    const wantedNames = new Set(wanted.map((n) => n.metadata.name))
    const ref: OwnerRef = {apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid!, controller: true, blockOwnerDeletion: true}

    let scheduled = 0
    let ready = 0
    for (const node of wanted) {
      const here = ownedOrAdoptable.filter((p) => (p.spec as {nodeName?: string} | undefined)?.nodeName === node.metadata.name)
      if (here.length === 0) {
        store.create(podFor(ds, template, node.metadata.name, ref))
        scheduled++
        continue
      }
      // One pod per node: the oldest stays, extras go (as the controller does with duplicates).
      const [keep, ...extra] = [...here].sort((a, b) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')))
      for (const p of extra) store.remove(p)
      if (!keep!.metadata.ownerReferences?.some((o) => o.controller)) {
        store.update({...keep!, metadata: {...keep!.metadata, ownerReferences: [...(keep!.metadata.ownerReferences ?? []), ref]}} as KubeObject)
      }
      scheduled++
      if (isReady(keep!)) ready++
    }
    for (const p of ownedOrAdoptable) {
      const nodeName = (p.spec as {nodeName?: string} | undefined)?.nodeName
      if (nodeName === undefined || !wantedNames.has(nodeName)) store.remove(p)
    }
    const status = {
      currentNumberScheduled: scheduled,
      desiredNumberScheduled: wanted.length,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      ...(wanted.length - ready > 0 ? {numberUnavailable: wanted.length - ready} : {}),
      updatedNumberScheduled: scheduled,
      observedGeneration: ds.metadata.generation ?? 1,
    }
    if (JSON.stringify(ds.status ?? {}) !== JSON.stringify(status)) store.update({...ds, status} as KubeObject)
  }
}

function podFor(
  ds: Obj,
  template: {metadata?: {labels?: Record<string, string>; annotations?: Record<string, string>}; spec?: Record<string, unknown>},
  nodeName: string,
  ref: OwnerRef,
): KubeObject {
  const name = `${ds.metadata.name}-${randomSuffix()}`
  const metadata: Record<string, unknown> = {
    name,
    generateName: `${ds.metadata.name}-`,
    namespace: ds.metadata.namespace,
    labels: {...(template.metadata?.labels ?? {}), 'controller-revision-hash': '6d8f7c9b5', 'pod-template-generation': '1'},
    ownerReferences: [ref],
    creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  }
  if (template.metadata?.annotations) metadata.annotations = template.metadata.annotations
  return {apiVersion: 'v1', kind: 'Pod', metadata, spec: {...(template.spec ?? {}), nodeName}, status: {phase: 'Pending', qosClass: 'Burstable'}} as unknown as KubeObject
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789'
  return Array.from(randomBytes(5), (b) => alphabet[b % alphabet.length]).join('')
}
