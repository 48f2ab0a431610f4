// A small but faithful Kubernetes API server for loopback tests (client-node's watch_test style, grown up):
// real paths, List/Status JSON shaped like kube-apiserver's, bearer-token and client-certificate authentication,
// RBAC-style denials with kube-apiserver's exact 403 message, label/field selectors, limit/continue paging and
// streaming watches. Seeded from fixture objects, which must carry apiVersion and kind.
// Pods can be created, and a fake kubelet (fake-kubelet.ts) starts them and serves pods/exec over WebSocket.
import {mkdtempSync, rmSync} from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Duplex} from 'node:stream'
import type {TLSSocket} from 'node:tls'
import type {KubeObject} from '../../src/core/model/k8s.js'
import {
  type ExecRecord,
  type FakeKubeletOptions,
  baselineViolations,
  createWsServer,
  negotiateChannelProtocol,
  pullFailureStatus,
  rfc3339,
  runExecSession,
  runningPodStatus,
  unschedulableStatus,
} from './fake-kubelet.js'
import {startDaemonSetController} from './fake-controllers.js'
import {type KubeconfigSpec, type UserSpec, writeKubeconfig} from './kubeconfig.js'
import {testPki} from './tls.js'

export interface ResourceType {
  group: string
  version: string
  resource: string
  kind: string
  namespaced: boolean
  /** CRD-backed: list items keep kind/apiVersion on the wire, as unstructured lists do. */
  crd?: boolean
  /** Not stored (reviews): only POST is meaningful. */
  virtual?: boolean
}

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false},
  {group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false},
  {group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true},
  {group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true},
  {group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true},
  {group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true},
  {group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true},
  {group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true},
  {group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true},
  {group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true},
  {group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true},
  {group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true},
  {group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true},
  {group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true},
  {group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false},
  {group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false},
  {group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', kind: 'ServiceCIDR', namespaced: false},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'ippools', kind: 'IPPool', namespaced: false, crd: true},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'blockaffinities', kind: 'BlockAffinity', namespaced: false, crd: true},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'ipamblocks', kind: 'IPAMBlock', namespaced: false, crd: true},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'felixconfigurations', kind: 'FelixConfiguration', namespaced: false, crd: true},
  {group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, virtual: true},
]

/** Denies matching requests (and SelfSubjectAccessReviews asking about them). Absent fields match anything. */
export interface DenyRule {
  user?: string
  verb?: string | string[]
  group?: string
  /** Plural resource; `*` or absent with `path` absent means every resource. */
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  /** A non-resource URL such as `/version`. */
  path?: string
  /** `cluster`: only requests at the cluster scope (no namespace), as RBAC without a ClusterRole for them refuses. */
  scope?: 'cluster' | 'namespace'
}

export interface FakeApiServerOptions {
  objects?: KubeObject[]
  /** HTTPS with the test PKI (default) or plain HTTP like `kubectl proxy`. */
  tls?: boolean
  /** Bearer token → user name. Default: one random token for user `fake-user`. */
  tokens?: Record<string, string>
  /** Accept client certificates signed by the test CA, user = CN (default true). */
  clientCertAuth?: boolean
  deny?: DenyRule[]
  /** `resource.group` names to answer 404 for, as if the API were not installed. */
  unserved?: string[]
  /** Serve the Calico CRDs; default: when any seeded object is a crd.projectcalico.org one. */
  calico?: boolean
  /**
   * Kubelet /configz body by node name; a node without one answers 503 like an unreachable kubelet.
   * Absent: every node answers a minimal KubeletConfiguration.
   */
  configz?: Record<string, unknown>
  /** Container logs by `ns/pod/container` or `ns/pod`. */
  logs?: Record<string, string>
  version?: Partial<Record<'major' | 'minor' | 'gitVersion' | 'platform', string>>
  /** Delay before each response (ms), to make concurrency and timeouts observable. */
  latencyMs?: number
  /** What happens to created pods and where pods/exec runs (see fake-kubelet.ts). */
  kubelet?: FakeKubeletOptions
  /**
   * Run a DaemonSet controller (fake-controllers.ts): one pod per matching Node for every DaemonSet, adopted by
   * selector or created, recreated after a delete, removed with its DaemonSet; the DaemonSet's status kept current.
   * `true` or the delay (ms) before it reacts to a change (default 20).
   */
  daemonSetController?: boolean | {delayMs?: number}
}

export interface RequestRecord {
  method: string
  path: string
  query: Record<string, string>
  user?: string
  /** How the user was authenticated: a client certificate, a bearer token, or neither over plain HTTP. */
  authenticatedBy?: 'cert' | 'token' | 'none'
  verb?: string
  group?: string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  /** The parsed JSON body of a create or delete (DeleteOptions). */
  body?: unknown
  status: number
}

export interface FakeApiServer {
  url: string
  /** A kubeconfig (context `fake`, user `fake-user` with `token`) trusting the test CA. */
  kubeconfigPath: string
  token: string
  caFile?: string
  requests: RequestRecord[]
  /** Most requests that were being handled at the same time since start or resetRequests(). */
  readonly maxInFlight: number
  /** Finished pods/exec sessions, in order of completion. */
  execs: ExecRecord[]
  /** Sets a container log (`ns/pod/container` or `ns/pod`), as the kubelet would have written it. */
  setLog(key: string, text: string): void
  /** Clears `requests` and `maxInFlight`. */
  resetRequests(): void
  /** Replaces the store, emitting ADDED/MODIFIED/DELETED to watchers for what changed. */
  setObjects(objects: KubeObject[]): void
  /** Creates or replaces one object (ADDED or MODIFIED) and returns it as stored. */
  upsert(object: KubeObject): KubeObject
  /** Removes one object (DELETED); false when absent. */
  remove(apiVersion: string, kind: string, name: string, namespace?: string): boolean
  objects(): KubeObject[]
  setDenyRules(rules: DenyRule[]): void
  /**
   * A validating admission webhook that denies every pod create (undefined: none). The refusal is kube-apiserver's:
   * the webhook's Status code (400 when it gave none) and `admission webhook "NAME" denied the request: MESSAGE`.
   */
  setPodWebhookDenial(denial: {name: string; message: string; code?: number} | undefined): void
  setLatency(ms: number): void
  /** A kubeconfig spec pointing at this server, with the given user in place of the token user. */
  kubeconfigSpec(user?: Omit<UserSpec, 'name'> & {name?: string}, namespace?: string): KubeconfigSpec
  close(): Promise<void>
}

interface StoredEvent {
  rv: number
  type: 'ADDED' | 'MODIFIED' | 'DELETED'
  rt: ResourceType
  object: KubeObject
}

interface Watcher {
  rt: ResourceType
  match: (o: KubeObject) => boolean
  res: http.ServerResponse
}

interface RequestInfo {
  resourceRequest: boolean
  path: string
  verb: string
  group: string
  version: string
  resource: string
  subresource?: string
  subpath: string[]
  namespace?: string
  name?: string
}

const DEFAULT_CONFIGZ = {kubeletconfig: {kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', clusterDomain: 'cluster.local'}}

const STATUS_REASON: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  503: 'ServiceUnavailable',
}

export function statusObject(code: number, message: string, details?: Record<string, string>, reason?: string): Record<string, unknown> {
  const s: Record<string, unknown> = {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: reason ?? STATUS_REASON[code] ?? 'InternalError'}
  if (details) s.details = details
  s.code = code
  return s
}

/** kube-apiserver's forbidden message (endpoints/handlers/responsewriters.forbiddenMessage + errors.NewForbidden). */
export function forbiddenMessage(user: string, info: Pick<RequestInfo, 'resourceRequest' | 'verb' | 'group' | 'resource' | 'subresource' | 'namespace' | 'name' | 'path'>): string {
  if (!info.resourceRequest) return `forbidden: User "${user}" cannot ${info.verb} path "${info.path}"`
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource
  const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope'
  const why = `User "${user}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${scope}`
  const qualified = info.group ? `${info.resource}.${info.group}` : info.resource
  return info.name ? `${qualified} "${info.name}" is forbidden: ${why}` : `${qualified} is forbidden: ${why}`
}

function qualifiedResource(rt: ResourceType): string {
  return rt.group ? `${rt.resource}.${rt.group}` : rt.resource
}

function typeOf(obj: KubeObject): ResourceType {
  const [group, version] = obj.apiVersion?.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion]
  const rt = RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.kind === obj.kind && !t.virtual)
  if (!rt) throw new Error(`fake-apiserver: no resource type for apiVersion ${obj.apiVersion} kind ${obj.kind}`)
  return rt
}

function keyOf(rt: ResourceType, namespace: string | undefined, name: string): string {
  return `${rt.group}/${rt.resource}/${namespace ?? ''}/${name}`
}

// --- selectors (apimachinery labels.Parse / fields.ParseSelector, the subset clients use) ---

type Requirement = {key: string; op: 'in' | 'notin' | 'exists' | '!exists' | '=' | '!='; values: string[]}

export function parseLabelSelector(s: string): Requirement[] {
  const terms: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of s) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      terms.push(cur)
      cur = ''
    } else cur += ch
  }
  if (cur.trim() !== '' || terms.length > 0) terms.push(cur)
  return terms.map((raw) => {
    const t = raw.trim()
    let m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t)
    if (m) return {key: m[1]!, op: m[2] as 'in' | 'notin', values: m[3]!.split(',').map((v) => v.trim())}
    m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(t)
    if (m) return {key: m[1]!, op: m[2] === '!=' ? '!=' : '=', values: [m[3]!]}
    m = /^(!?)([\w./-]+)$/.exec(t)
    if (m) return {key: m[2]!, op: m[1] ? '!exists' : 'exists', values: []}
    throw new Error(`unable to parse requirement: invalid label selector term "${t}"`)
  })
}

function matchLabels(reqs: Requirement[], labels: Record<string, string> = {}): boolean {
  return reqs.every((r) => {
    const has = Object.hasOwn(labels, r.key)
    const v = labels[r.key]
    switch (r.op) {
      case 'exists':
        return has
      case '!exists':
        return !has
      case '=':
        return has && v === r.values[0]
      case '!=':
        return !has || v !== r.values[0]
      case 'in':
        return has && r.values.includes(v!)
      case 'notin':
        return !has || !r.values.includes(v!)
    }
  })
}

const FIELD_GETTERS: Record<string, (o: KubeObject) => string | undefined> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
}
const POD_FIELDS: Record<string, (o: KubeObject) => string | undefined> = {
  'spec.nodeName': (o) => (o as {spec?: {nodeName?: string}}).spec?.nodeName ?? '',
  'status.phase': (o) => (o as {status?: {phase?: string}}).status?.phase ?? '',
}

function parseFieldSelector(s: string, rt: ResourceType): (o: KubeObject) => boolean {
  const terms = s.split(',').filter((t) => t.trim() !== '')
  const tests = terms.map((t) => {
    const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(t.trim())
    if (!m) throw new Error(`invalid field selector: '${t}'`)
    const getter = FIELD_GETTERS[m[1]!] ?? (rt.resource === 'pods' ? POD_FIELDS[m[1]!] : undefined)
    if (!getter) throw new Error(`field label not supported: ${m[1]}`)
    const want = m[3]!
    return (o: KubeObject) => (m[2] === '!=' ? getter(o) !== want : getter(o) === want)
  })
  return (o) => tests.every((f) => f(o))
}

/** Starts the server on 127.0.0.1:0 and writes its kubeconfig. Call close() when done. */
export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const useTls = options.tls ?? true
  const pki = useTls ? testPki() : undefined
  const token = Object.keys(options.tokens ?? {})[0] ?? `fake-${crypto.randomUUID()}`
  const tokens = new Map(Object.entries(options.tokens ?? {[token]: 'fake-user'}))
  const clientCertAuth = options.clientCertAuth ?? true
  let denyRules = [...(options.deny ?? [])]
  let latencyMs = options.latencyMs ?? 0
  const unserved = new Set(options.unserved ?? [])
  const serveCalico = options.calico ?? (options.objects ?? []).some((o) => o.apiVersion?.startsWith('crd.projectcalico.org/'))
  if (!serveCalico) for (const rt of RESOURCE_TYPES) if (rt.group === 'crd.projectcalico.org') unserved.add(qualifiedResource(rt))
  const served = (rt: ResourceType) => !unserved.has(qualifiedResource(rt))

  const store = new Map<string, {rt: ResourceType; obj: KubeObject}>()
  const history: StoredEvent[] = []
  const watchers = new Set<Watcher>()
  let rv = 1000
  const requests: RequestRecord[] = []
  let inFlight = 0
  let maxInFlight = 0

  const emit = (type: StoredEvent['type'], rt: ResourceType, obj: KubeObject) => {
    const ev: StoredEvent = {rv, type, rt, object: structuredClone(obj)}
    history.push(ev)
    for (const w of watchers) if (w.rt === rt && w.match(ev.object)) writeEvent(w.res, ev.type, ev.object)
    controllers?.changed(rt.resource)
  }
  const logs: Record<string, string> = {...options.logs}

  const put = (input: KubeObject, notify: boolean): KubeObject => {
    const rt = typeOf(input)
    const obj = structuredClone(input)
    if (rt.namespaced) obj.metadata.namespace ??= 'default'
    else delete obj.metadata.namespace
    const key = keyOf(rt, obj.metadata.namespace, obj.metadata.name)
    const old = store.get(key)
    obj.metadata.uid ??= old?.obj.metadata.uid ?? crypto.randomUUID()
    if (old && sameObject(old.obj, obj)) return old.obj
    rv++
    obj.metadata.resourceVersion = String(rv)
    store.set(key, {rt, obj})
    if (notify) emit(old ? 'MODIFIED' : 'ADDED', rt, obj)
    return obj
  }

  const drop = (rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined => {
    const key = keyOf(rt, namespace, name)
    const old = store.get(key)
    if (!old) return undefined
    store.delete(key)
    rv++
    const gone = {...old.obj, metadata: {...old.obj.metadata, resourceVersion: String(rv)}}
    emit('DELETED', rt, gone)
    if (rt.resource === 'pods') stopPod(key)
    // Namespace deletion removes everything in it (the namespace controller's end state, without Terminating).
    if (rt.resource === 'namespaces') {
      for (const e of [...store.values()]) if (e.rt.namespaced && e.obj.metadata.namespace === name) drop(e.rt, name, e.obj.metadata.name)
    }
    return gone
  }

  // --- the fake kubelet: pod start-up and exec sessions, per pod key ---
  const kubelet = options.kubelet ?? {}
  const podTimers = new Map<string, NodeJS.Timeout[]>()
  const podSessions = new Map<string, Set<() => void>>()
  const execs: ExecRecord[] = []
  const podsRt = RESOURCE_TYPES.find((t) => t.resource === 'pods')!
  const nodesRt = RESOURCE_TYPES.find((t) => t.resource === 'nodes')!
  const stopPod = (key: string) => {
    for (const t of podTimers.get(key) ?? []) clearTimeout(t)
    podTimers.delete(key)
    // The container is killed, and with it every exec session into it.
    for (const kill of podSessions.get(key) ?? []) kill()
    podSessions.delete(key)
  }
  /** Sets a created pod's status as a kubelet would: now when its node is unknown, else after startDelayMs. */
  const startPod = (pod: KubeObject) => {
    const key = keyOf(podsRt, pod.metadata.namespace, pod.metadata.name)
    const nodeName = (pod as {spec?: {nodeName?: string}}).spec?.nodeName
    const node = nodeName === undefined ? undefined : store.get(keyOf(nodesRt, undefined, nodeName))?.obj
    const setStatus = (status: Record<string, unknown>) => {
      const current = store.get(key)
      if (current) put({...current.obj, status} as KubeObject, true)
    }
    if (!node) return setStatus(unschedulableStatus(nodeName, [...store.values()].filter((e) => e.rt === nodesRt).length))
    const images = ((pod as {spec?: {containers?: Array<{image?: string}>}}).spec?.containers ?? []).map((c) => c.image)
    const unpullable = images.some((i) => i !== undefined && (kubelet.unpullableImages ?? []).includes(i))
    const delay = kubelet.startDelayMs ?? 0
    const timers = [
      setTimeout(() => {
        setStatus(unpullable ? pullFailureStatus(pod, 'ErrImagePull') : runningPodStatus(pod, node))
        if (!unpullable && kubelet.onRunning && store.has(key)) kubelet.onRunning(structuredClone(store.get(key)!.obj), structuredClone(node))
      }, delay),
      ...(unpullable ? [setTimeout(() => setStatus(pullFailureStatus(pod, 'ImagePullBackOff')), delay + 50)] : []),
    ]
    podTimers.set(key, timers)
  }

  const controllers =
    options.daemonSetController === undefined || options.daemonSetController === false
      ? undefined
      : startDaemonSetController({
          delayMs: typeof options.daemonSetController === 'object' ? (options.daemonSetController.delayMs ?? 20) : 20,
          list: (resource) => [...store.values()].filter((e) => e.rt.resource === resource && e.rt.group === (resource === 'daemonsets' ? 'apps' : '')).map((e) => e.obj),
          create: (pod) => {
            const stored = put(pod, true)
            startPod(stored)
          },
          update: (obj) => void put(obj, true),
          remove: (pod) => void drop(podsRt, pod.metadata.namespace, pod.metadata.name),
        })
  for (const o of options.objects ?? []) put(o, false)
  controllers?.changed('daemonsets')
  const historyStart = rv

  // kube-apiserver's union authenticator order: x509 first, then bearer tokens. No anonymous access.
  const authenticate = (req: http.IncomingMessage): {user: string; by: 'cert' | 'token' | 'none'} | undefined => {
    const sock = req.socket as TLSSocket
    if (useTls && clientCertAuth && sock.authorized) {
      const cn = sock.getPeerCertificate()?.subject?.CN
      if (cn) return {user: Array.isArray(cn) ? cn[0]! : cn, by: 'cert'}
    }
    const auth = req.headers.authorization
    if (auth?.startsWith('Bearer ')) {
      const user = tokens.get(auth.slice(7).trim())
      return user === undefined ? undefined : {user, by: 'token'}
    }
    // Plain HTTP stands in for `kubectl proxy`, which authenticates on the client's behalf.
    return useTls ? undefined : {user: 'proxy-user', by: 'none'}
  }

  const denied = (user: string, a: Omit<RequestInfo, 'subpath' | 'version'>): boolean =>
    denyRules.some((r) => {
      if (r.user !== undefined && r.user !== user) return false
      const verbs = r.verb === undefined ? undefined : Array.isArray(r.verb) ? r.verb : [r.verb]
      if (verbs && !verbs.includes(a.verb)) return false
      if (!a.resourceRequest) return r.path !== undefined && r.path === a.path
      if (r.path !== undefined) return false
      if (r.resource !== undefined && r.resource !== '*' && r.resource !== a.resource) return false
      if (r.group !== undefined && r.group !== a.group) return false
      if (r.subresource !== undefined && r.subresource !== a.subresource) return false
      if (r.namespace !== undefined && r.namespace !== a.namespace) return false
      if (r.name !== undefined && r.name !== a.name) return false
      if (r.scope !== undefined && (r.scope === 'cluster') !== (a.namespace === undefined)) return false
      return true
    })

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord): Promise<void> => {
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs))
    const url = new URL(req.url ?? '/', 'http://x')
    const who = authenticate(req)
    if (who === undefined) return sendJSON(res, 401, statusObject(401, 'Unauthorized'))
    const user = who.user
    record.user = user
    record.authenticatedBy = who.by
    const info = requestInfo(req.method ?? 'GET', url)
    Object.assign(record, {verb: info.verb})
    if (info.resourceRequest) {
      Object.assign(record, {group: info.group, resource: info.resource})
      for (const k of ['subresource', 'namespace', 'name'] as const) if (info[k] !== undefined) record[k] = info[k]
    }
    if (denied(user, info)) {
      const details: Record<string, string> = {}
      if (info.resourceRequest) {
        if (info.name) details.name = info.name
        if (info.group) details.group = info.group
        details.kind = info.resource
      }
      return sendJSON(res, 403, statusObject(403, forbiddenMessage(user, info), details))
    }
    if (!info.resourceRequest) {
      if (info.path === '/version' && info.verb === 'get') return sendJSON(res, 200, versionInfo(options.version))
      return sendText(res, 404, '404 page not found\n')
    }
    const rt = RESOURCE_TYPES.find((t) => t.group === info.group && t.version === info.version && t.resource === info.resource)
    if (!rt || !served(rt) || (rt.namespaced === false && info.namespace !== undefined)) {
      const groupServed = RESOURCE_TYPES.some((t) => t.group === info.group && t.version === info.version && served(t))
      return groupServed
        ? sendJSON(res, 404, statusObject(404, 'the server could not find the requested resource', {}))
        : sendText(res, 404, '404 page not found\n')
    }
    if (rt.virtual) {
      if (info.verb !== 'create') return sendJSON(res, 405, statusObject(405, 'the server does not allow this method on the requested resource', {}))
      const review = JSON.parse((await readBody(req)) || '{}') as {spec?: {resourceAttributes?: Record<string, string>; nonResourceAttributes?: {path?: string; verb?: string}}}
      const ra = review.spec?.resourceAttributes
      const nra = review.spec?.nonResourceAttributes
      const attrs: Omit<RequestInfo, 'subpath' | 'version'> = ra
        ? {resourceRequest: true, path: '', verb: ra.verb ?? '', group: ra.group ?? '', resource: ra.resource ?? '', ...opt(ra, 'subresource', 'namespace', 'name')}
        : {resourceRequest: false, path: nra?.path ?? '', verb: nra?.verb ?? '', group: '', resource: ''}
      const allowed = !denied(user, attrs)
      return sendJSON(res, 201, {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: {creationTimestamp: null},
        spec: review.spec ?? {},
        status: allowed ? {allowed: true, reason: `RBAC: allowed by fake-apiserver to User "${user}"`} : {allowed: false},
      })
    }
    if (info.subresource !== undefined) return subresource(rt, info, url, res)
    switch (info.verb) {
      case 'list':
      case 'watch':
        return listOrWatch(rt, info, url, req, res)
      case 'get': {
        const found = store.get(keyOf(rt, info.namespace, info.name!))
        if (!found) return notFound(res, rt, info.name!)
        return sendJSON(res, 200, withTypeMeta(rt, found.obj))
      }
      case 'create':
        return create(rt, info, req, res, record)
      case 'update':
      case 'patch':
        return update(rt, info, req, res, record)
      case 'delete': {
        const found = store.get(keyOf(rt, info.namespace, info.name!))
        if (!found) return notFound(res, rt, info.name!)
        const opts = JSON.parse((await readBody(req)) || '{}') as {preconditions?: {uid?: string; resourceVersion?: string}}
        record.body = opts
        const pre = opts.preconditions
        if (pre?.uid !== undefined && pre.uid !== found.obj.metadata.uid) {
          return sendJSON(
            res,
            409,
            statusObject(409, `Operation cannot be fulfilled on ${qualifiedResource(rt)} "${info.name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${found.obj.metadata.uid}`, {
              name: info.name!,
              kind: rt.resource,
            }),
          )
        }
        const gone = drop(rt, info.namespace, info.name!)!
        return sendJSON(res, 200, withTypeMeta(rt, gone))
      }
      default:
        return sendJSON(res, 405, statusObject(405, 'the server does not allow this method on the requested resource', {}))
    }
  }

  /** POST to a collection: NamespaceLifecycle, Pod Security (pods), AlreadyExists, then the kubelet takes over. */
  let podWebhookDenial: {name: string; message: string; code?: number} | undefined
  const create = async (rt: ResourceType, info: RequestInfo, req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord) => {
    if (info.name !== undefined) return sendJSON(res, 405, statusObject(405, 'the server does not allow this method on the requested resource', {}))
    let obj: KubeObject
    try {
      obj = JSON.parse(await readBody(req)) as KubeObject
      record.body = structuredClone(obj)
    } catch (err) {
      return sendJSON(res, 400, statusObject(400, `the body of the request was in an unknown format: ${(err as Error).message}`))
    }
    const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version
    if (obj.kind !== rt.kind || obj.apiVersion !== apiVersion || typeof obj.metadata !== 'object' || obj.metadata === null) {
      return sendJSON(res, 400, statusObject(400, `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion}) or kind is not ${rt.kind}`))
    }
    if (!obj.metadata.name) {
      const prefix = (obj.metadata as {generateName?: string}).generateName
      if (!prefix) return sendJSON(res, 422, statusObject(422, `${rt.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, {kind: rt.kind}, 'Invalid'))
      obj.metadata.name = prefix + randomName()
    }
    const name = obj.metadata.name
    if (rt.namespaced) {
      if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== info.namespace) {
        return sendJSON(res, 400, statusObject(400, 'the namespace of the provided object does not match the namespace sent on the request', {}, 'BadRequest'))
      }
      obj.metadata.namespace = info.namespace
      const ns = store.get(keyOf(RESOURCE_TYPES.find((t) => t.resource === 'namespaces')!, undefined, info.namespace!))
      // The API server creates these itself; other namespaces must exist (NamespaceLifecycle admission).
      if (!ns && !['default', 'kube-system', 'kube-public', 'kube-node-lease'].includes(info.namespace!)) {
        return sendJSON(res, 404, statusObject(404, `namespaces "${info.namespace}" not found`, {name: info.namespace!, kind: 'namespaces'}))
      }
      if (rt.resource === 'pods' && podWebhookDenial) {
        const code = podWebhookDenial.code ?? 400
        return sendJSON(res, code, statusObject(code, `admission webhook "${podWebhookDenial.name}" denied the request: ${podWebhookDenial.message}`))
      }
      const enforce = ns?.obj.metadata.labels?.['pod-security.kubernetes.io/enforce']
      if (rt.resource === 'pods' && (enforce === 'baseline' || enforce === 'restricted')) {
        // NOTE: only the baseline checks, for both levels: enough to reject what baseline rejects.
        const violations = baselineViolations(obj)
        if (violations.length > 0) {
          const version = ns?.obj.metadata.labels?.['pod-security.kubernetes.io/enforce-version'] ?? 'latest'
          return sendJSON(res, 403, statusObject(403, `pods "${name}" is forbidden: violates PodSecurity "${enforce}:${version}": ${violations.join(', ')}`, {name, kind: 'pods'}))
        }
      }
    }
    if (store.has(keyOf(rt, obj.metadata.namespace, name))) {
      return sendJSON(res, 409, statusObject(409, `${qualifiedResource(rt)} "${name}" already exists`, {name, ...(rt.group ? {group: rt.group} : {}), kind: rt.resource}, 'AlreadyExists'))
    }
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'] as const) delete obj.metadata[k]
    obj.metadata.creationTimestamp = rfc3339()
    if (rt.resource === 'pods') (obj as {status?: unknown}).status = {phase: 'Pending', qosClass: 'Burstable'}
    const stored = put(obj, true)
    if (rt.resource === 'pods') startPod(stored)
    return sendJSON(res, 201, withTypeMeta(rt, store.get(keyOf(rt, stored.metadata.namespace, name))!.obj))
  }

  /**
   * PUT (replace, with resourceVersion as the optimistic-concurrency precondition when given) or PATCH (JSON merge
   * patch, RFC 7386; a strategic-merge patch is applied as a merge patch, which is the same for the maps and scalars
   * node-doctor patches). Identity fields (uid, creationTimestamp) are the server's.
   */
  const update = async (rt: ResourceType, info: RequestInfo, req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord) => {
    if (info.name === undefined) return sendJSON(res, 405, statusObject(405, 'the server does not allow this method on the requested resource', {}))
    const found = store.get(keyOf(rt, info.namespace, info.name))
    if (!found) return notFound(res, rt, info.name)
    let body: KubeObject
    try {
      body = JSON.parse(await readBody(req)) as KubeObject
      record.body = structuredClone(body)
    } catch (err) {
      return sendJSON(res, 400, statusObject(400, `the body of the request was in an unknown format: ${(err as Error).message}`))
    }
    let next: KubeObject
    if (info.verb === 'patch') {
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim()
      if (!['application/merge-patch+json', 'application/strategic-merge-patch+json'].includes(type)) {
        return sendJSON(res, 415, statusObject(415, `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json`, {}, 'UnsupportedMediaType'))
      }
      next = mergePatch(structuredClone(found.obj), body) as KubeObject
    } else {
      const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version
      if (body.kind !== rt.kind || body.apiVersion !== apiVersion || typeof body.metadata !== 'object' || body.metadata === null) {
        return sendJSON(res, 400, statusObject(400, `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion}) or kind is not ${rt.kind}`))
      }
      if (body.metadata.name !== info.name) {
        return sendJSON(res, 400, statusObject(400, `the name of the object (${body.metadata.name}) does not match the name on the URL (${info.name})`, {}, 'BadRequest'))
      }
      next = body
    }
    const wanted = next.metadata.resourceVersion
    if (info.verb === 'update' && wanted !== undefined && wanted !== found.obj.metadata.resourceVersion) {
      return sendJSON(res, 409, statusObject(409, `Operation cannot be fulfilled on ${qualifiedResource(rt)} "${info.name}": the object has been modified; please apply your changes to the latest version and try again`, {name: info.name, ...(rt.group ? {group: rt.group} : {}), kind: rt.resource}, 'Conflict'))
    }
    next.metadata = {...next.metadata, uid: found.obj.metadata.uid, creationTimestamp: found.obj.metadata.creationTimestamp, name: info.name}
    if (rt.namespaced) next.metadata.namespace = info.namespace
    const stored = put(next, true)
    return sendJSON(res, 200, withTypeMeta(rt, stored))
  }

  /** GET .../pods/NAME/exec with a WebSocket upgrade: authenticate, authorize (create pods/exec), then run it. */
  const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const record: RequestRecord = {method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0}
    requests.push(record)
    const refuse = (code: number, body: Record<string, unknown>) => {
      record.status = code
      const text = JSON.stringify(body)
      socket.end(`HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`)
    }
    const who = authenticate(req)
    if (who === undefined) return refuse(401, statusObject(401, 'Unauthorized'))
    record.user = who.user
    record.authenticatedBy = who.by
    const info = requestInfo(req.method ?? 'GET', url)
    // kube-apiserver authorizes a WebSocket exec as `create pods/exec` (AuthorizePodWebsocketUpgradeCreatePermission).
    if (info.resourceRequest && info.subresource === 'exec') info.verb = 'create'
    Object.assign(record, {verb: info.verb, group: info.group, resource: info.resource})
    for (const k of ['subresource', 'namespace', 'name'] as const) if (info[k] !== undefined) record[k] = info[k]
    if (!info.resourceRequest || info.resource !== 'pods' || info.subresource !== 'exec' || info.group !== '' || info.name === undefined) {
      return refuse(404, statusObject(404, 'the server could not find the requested resource', {}))
    }
    if (denied(who.user, info)) return refuse(403, statusObject(403, forbiddenMessage(who.user, info), {name: info.name, kind: 'pods'}))
    const key = keyOf(podsRt, info.namespace, info.name)
    const found = store.get(key)
    if (!found) return refuse(404, statusObject(404, `pods "${info.name}" not found`, {name: info.name, kind: 'pods'}))
    const pod = found.obj as KubeObject & {spec?: {nodeName?: string; containers?: Array<{name: string}>}; status?: {phase?: string}}
    const containers = (pod.spec?.containers ?? []).map((c) => c.name)
    const container = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0]! : undefined)
    if (container === undefined) return refuse(400, statusObject(400, `a container name must be specified for pod ${info.name}, choose one of: [${containers.join(' ')}]`))
    if (!containers.includes(container)) return refuse(400, statusObject(400, `container ${container} is not valid for pod ${info.name}`))
    const phase = pod.status?.phase
    if (phase === 'Succeeded' || phase === 'Failed') return refuse(400, statusObject(400, `cannot exec into a container in a completed pod; current phase is ${phase}`))
    if (phase !== 'Running') return refuse(400, statusObject(400, `unable to upgrade connection: container not found ("${container}")`))
    const argv = url.searchParams.getAll('command')
    if (argv.length === 0) return refuse(400, statusObject(400, 'you must specify at least 1 command'))
    const protocol = negotiateChannelProtocol(String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()))
    if (protocol === undefined) return refuse(400, statusObject(400, 'fake-apiserver speaks only v4.channel.k8s.io and v5.channel.k8s.io'))
    const flag = (name: string) => ['true', '1'].includes(url.searchParams.get(name) ?? '')
    if (!flag('stdout') && !flag('stderr') && !flag('stdin')) {
      return refuse(400, statusObject(400, 'you must specify at least 1 of stdin, stdout, stderr'))
    }
    record.status = 101
    const nodeName = pod.spec?.nodeName ?? ''
    const netns = kubelet.netns?.[nodeName]
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Deleted while upgrading: its container is gone, so is the stream.
      if (store.get(key)?.obj.metadata.uid !== found.obj.metadata.uid) return ws.terminate()
      const sessions = podSessions.get(key) ?? new Set<() => void>()
      podSessions.set(key, sessions)
      const kill = runExecSession(ws, {argv, stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), ...(netns ? {netns} : {}), hostWithoutShell: kubelet.hostsWithoutShell?.includes(nodeName) ?? false}, (r) => {
        sessions.delete(kill)
        execs.push({namespace: info.namespace!, pod: info.name!, container, node: nodeName, ...(netns ? {netns} : {}), command: argv, protocol, exitCode: r.exitCode, hungUp: r.hungUp})
      })
      sessions.add(kill)
    })
  }

  const notFound = (res: http.ServerResponse, rt: ResourceType, name: string) => {
    const details: Record<string, string> = {name}
    if (rt.group) details.group = rt.group
    details.kind = rt.resource
    sendJSON(res, 404, statusObject(404, `${qualifiedResource(rt)} "${name}" not found`, details))
  }

  const subresource = (rt: ResourceType, info: RequestInfo, url: URL, res: http.ServerResponse) => {
    const found = store.get(keyOf(rt, info.namespace, info.name!))
    if (!found) return notFound(res, rt, info.name!)
    if (rt.resource === 'nodes' && info.subresource === 'proxy' && info.verb === 'get') {
      if (info.subpath.join('/') !== 'configz') return sendText(res, 404, '404 page not found\n')
      const body = options.configz === undefined ? DEFAULT_CONFIGZ : options.configz[info.name!]
      if (body === undefined) {
        const ip = (found.obj as {status?: {addresses?: Array<{type: string; address: string}>}}).status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '192.168.0.1'
        return sendJSON(res, 503, statusObject(503, `error trying to reach service: dial tcp ${ip}:10250: connect: connection refused`))
      }
      return sendRaw(res, 200, 'application/json', typeof body === 'string' ? body : JSON.stringify(body))
    }
    if (rt.resource === 'pods' && info.subresource === 'log' && info.verb === 'get') {
      const containers = ((found.obj as {spec?: {containers?: Array<{name: string}>}}).spec?.containers ?? []).map((c) => c.name)
      let container = url.searchParams.get('container') ?? undefined
      if (container === undefined) {
        if (containers.length !== 1) {
          return sendJSON(res, 400, statusObject(400, `a container name must be specified for pod ${info.name}, choose one of: [${containers.join(' ')}]`))
        }
        container = containers[0]!
      } else if (!containers.includes(container)) {
        return sendJSON(res, 400, statusObject(400, `container ${container} is not valid for pod ${info.name}`))
      }
      let text = logs[`${info.namespace}/${info.name}/${container}`] ?? logs[`${info.namespace}/${info.name}`] ?? ''
      const tail = url.searchParams.get('tailLines')
      if (tail !== null && text !== '') {
        const lines = text.split('\n')
        const trailing = lines.at(-1) === '' ? lines.pop() : undefined
        text = lines.slice(Math.max(0, lines.length - Number(tail))).join('\n') + (trailing !== undefined && Number(tail) > 0 ? '\n' : '')
      }
      // Like the kubelet: limitBytes cuts the log (its first bytes) at that many bytes.
      const limitBytes = url.searchParams.get('limitBytes')
      if (limitBytes !== null) text = Buffer.from(text, 'utf8').subarray(0, Number(limitBytes)).toString('utf8')
      return sendRaw(res, 200, 'text/plain', text)
    }
    return sendJSON(res, 404, statusObject(404, 'the server could not find the requested resource', {}))
  }

  const listOrWatch = (rt: ResourceType, info: RequestInfo, url: URL, req: http.IncomingMessage, res: http.ServerResponse) => {
    let match: (o: KubeObject) => boolean
    try {
      const labels = parseLabelSelector(url.searchParams.get('labelSelector') ?? '')
      const fields = parseFieldSelector(url.searchParams.get('fieldSelector') ?? '', rt)
      match = (o) => (info.namespace === undefined || o.metadata.namespace === info.namespace) && matchLabels(labels, o.metadata.labels) && fields(o)
    } catch (err) {
      return sendJSON(res, 400, statusObject(400, (err as Error).message))
    }
    if (info.verb === 'watch') {
      res.writeHead(200, {'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private'})
      const since = url.searchParams.get('resourceVersion')
      if (since === null || since === '' || since === '0') {
        for (const {obj} of sorted(rt)) if (match(obj)) writeEvent(res, 'ADDED', withTypeMeta(rt, obj))
      } else if (Number(since) < historyStart) {
        writeEvent(res, 'ERROR', statusObject(410, `too old resource version: ${since} (${historyStart})`))
        res.end()
        return
      } else {
        for (const ev of history) if (ev.rv > Number(since) && ev.rt === rt && match(ev.object)) writeEvent(res, ev.type, withTypeMeta(rt, ev.object))
      }
      const w: Watcher = {rt, match, res}
      watchers.add(w)
      const timeout = Number(url.searchParams.get('timeoutSeconds') ?? 0)
      const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined
      const stop = () => {
        watchers.delete(w)
        if (timer) clearTimeout(timer)
      }
      req.on('close', stop)
      res.on('close', stop)
      return
    }
    const all = sorted(rt).filter(({obj}) => match(obj))
    const limit = Number(url.searchParams.get('limit') ?? 0)
    const cont = url.searchParams.get('continue')
    let offset = 0
    let listRv = rv
    if (cont) {
      try {
        const c = JSON.parse(Buffer.from(cont, 'base64url').toString('utf8')) as {offset: number; rv: number}
        offset = c.offset
        listRv = c.rv
      } catch {
        return sendJSON(res, 400, statusObject(400, 'continue key is not valid: illegal base64 data'))
      }
    }
    const page = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset)
    const metadata: Record<string, unknown> = {resourceVersion: String(listRv)}
    if (limit > 0 && offset + limit < all.length) {
      metadata.continue = Buffer.from(JSON.stringify({offset: offset + limit, rv: listRv})).toString('base64url')
      metadata.remainingItemCount = all.length - offset - limit
    }
    sendJSON(res, 200, {
      kind: `${rt.kind}List`,
      apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version,
      metadata,
      // Built-in list items carry no kind/apiVersion on the wire; unstructured (CRD) ones do.
      items: page.map(({obj}) => (rt.crd ? withTypeMeta(rt, obj) : stripTypeMeta(obj))),
    })
  }

  const sorted = (rt: ResourceType) =>
    [...store.values()]
      .filter((e) => e.rt === rt)
      .sort((a, b) => {
        const ka = `${a.obj.metadata.namespace ?? ''}/${a.obj.metadata.name}`
        const kb = `${b.obj.metadata.namespace ?? ''}/${b.obj.metadata.name}`
        return ka < kb ? -1 : ka > kb ? 1 : 0
      })

  const listener = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    const url = new URL(req.url ?? '/', 'http://x')
    const record: RequestRecord = {method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0}
    // A request stops counting when its handler calls res.end(), which certainly precedes the client seeing the end
    // (the 'finish' event does not: with keep-alive, in one process, the client's next request can arrive first).
    let counted = true
    const done = () => {
      if (counted) inFlight--
      counted = false
    }
    const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse
    res.end = ((...args: unknown[]) => {
      done()
      return end(...args)
    }) as typeof res.end
    res.on('close', done)
    try {
      await handle(req, res, record)
    } catch (err) {
      if (!res.headersSent) sendJSON(res, 500, statusObject(500, `fake-apiserver: ${(err as Error).message}`))
    }
    record.status = res.statusCode
    requests.push(record)
  }

  const server = pki
    ? https.createServer({key: pki.serverKeyPem, cert: pki.serverCertPem, ca: pki.caPem, requestCert: clientCertAuth, rejectUnauthorized: false}, listener)
    : http.createServer(listener)
  const wss = createWsServer()
  server.on('upgrade', upgrade)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `${useTls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dir = mkdtempSync(join(tmpdir(), 'node-doctor-fake-apiserver-'))

  const kubeconfigSpec: FakeApiServer['kubeconfigSpec'] = (user, namespace) => {
    const {name = 'fake-user', ...rest} = user ?? {token}
    const cluster = pki ? {name: 'fake-cluster', server: url, caFile: pki.caFile} : {name: 'fake-cluster', server: url}
    const context = namespace === undefined ? {name: 'fake', cluster: 'fake-cluster', user: name} : {name: 'fake', cluster: 'fake-cluster', user: name, namespace}
    return {currentContext: 'fake', clusters: [cluster], users: [{name, ...rest}], contexts: [context]}
  }
  const kubeconfigPath = writeKubeconfig(join(dir, 'kubeconfig'), kubeconfigSpec())

  const api: FakeApiServer = {
    url,
    kubeconfigPath,
    token,
    requests,
    execs,
    setLog(key, text) {
      logs[key] = text
    },
    get maxInFlight() {
      return maxInFlight
    },
    resetRequests() {
      requests.length = 0
      maxInFlight = inFlight
    },
    setObjects(objects) {
      const next = new Set<string>()
      for (const o of objects) {
        const stored = put(o, true)
        next.add(keyOf(typeOf(o), stored.metadata.namespace, stored.metadata.name))
      }
      for (const [key, e] of [...store]) if (!next.has(key)) drop(e.rt, e.obj.metadata.namespace, e.obj.metadata.name)
    },
    upsert: (o) => structuredClone(put(o, true)),
    remove(apiVersion, kind, name, namespace) {
      const rt = typeOf({apiVersion, kind, metadata: {name}})
      return drop(rt, rt.namespaced ? (namespace ?? 'default') : undefined, name) !== undefined
    },
    objects: () => [...store.values()].map((e) => structuredClone(e.obj)),
    setDenyRules(rules) {
      denyRules = [...rules]
    },
    setPodWebhookDenial(denial) {
      podWebhookDenial = denial
    },
    setLatency(ms) {
      latencyMs = ms
    },
    kubeconfigSpec,
    async close() {
      controllers?.stop()
      for (const w of watchers) w.res.end()
      watchers.clear()
      for (const key of new Set([...podTimers.keys(), ...podSessions.keys()])) stopPod(key)
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dir, {recursive: true, force: true})
    },
  }
  if (pki) api.caFile = pki.caFile
  return api
}

function requestInfo(method: string, url: URL): RequestInfo {
  const seg = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent)
  const base = {path: url.pathname, subpath: [] as string[], group: '', version: '', resource: ''}
  const nonResource = (): RequestInfo => ({...base, resourceRequest: false, verb: method === 'GET' ? 'get' : method.toLowerCase()})
  let rest: string[]
  let group = ''
  let version: string
  if (seg[0] === 'api' && seg.length >= 3) {
    version = seg[1]!
    rest = seg.slice(2)
  } else if (seg[0] === 'apis' && seg.length >= 4) {
    group = seg[1]!
    version = seg[2]!
    rest = seg.slice(3)
  } else return nonResource()
  let namespace: string | undefined
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]
    rest = rest.slice(2)
  }
  const [resource, name, sub, ...subpath] = rest
  const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '')
  const verb =
    method === 'GET'
      ? name === undefined
        ? watch
          ? 'watch'
          : 'list'
        : 'get'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : method === 'DELETE'
              ? name === undefined
                ? 'deletecollection'
                : 'delete'
              : method.toLowerCase()
  const info: RequestInfo = {...base, resourceRequest: true, verb, group, version, resource: resource!, subpath}
  if (namespace !== undefined) info.namespace = namespace
  if (name !== undefined) info.name = name
  if (sub !== undefined) info.subresource = sub
  return info
}

function versionInfo(v: FakeApiServerOptions['version']): Record<string, string> {
  const gitVersion = v?.gitVersion ?? 'v1.33.1'
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion)
  return {
    major: v?.major ?? m?.[1] ?? '1',
    minor: v?.minor ?? m?.[2] ?? '33',
    gitVersion,
    gitCommit: '8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828',
    gitTreeState: 'clean',
    buildDate: '2025-05-15T08:19:08Z',
    goVersion: 'go1.24.2',
    compiler: 'gc',
    platform: v?.platform ?? 'linux/amd64',
  }
}

function opt(o: Record<string, string>, ...keys: Array<'subresource' | 'namespace' | 'name'>): Partial<Record<'subresource' | 'namespace' | 'name', string>> {
  const out: Partial<Record<'subresource' | 'namespace' | 'name', string>> = {}
  for (const k of keys) if (o[k]) out[k] = o[k]
  return out
}

function withTypeMeta(rt: ResourceType, obj: KubeObject): KubeObject {
  const {apiVersion: _a, kind: _k, ...rest} = obj
  return {apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version, kind: rt.kind, ...rest}
}

function stripTypeMeta(obj: KubeObject): Omit<KubeObject, 'apiVersion' | 'kind'> {
  const {apiVersion: _a, kind: _k, ...rest} = obj
  return rest
}

function sameObject(a: KubeObject, b: KubeObject): boolean {
  const norm = (o: KubeObject) => JSON.stringify({...o, metadata: {...o.metadata, resourceVersion: undefined}})
  return norm(a) === norm(b)
}

function writeEvent(res: http.ServerResponse, type: string, object: unknown): void {
  res.write(JSON.stringify({type, object}) + '\n')
}

function sendJSON(res: http.ServerResponse, code: number, body: unknown): void {
  sendRaw(res, code, 'application/json', JSON.stringify(body))
}

function sendText(res: http.ServerResponse, code: number, text: string): void {
  sendRaw(res, code, 'text/plain; charset=utf-8', text)
}

function sendRaw(res: http.ServerResponse, code: number, contentType: string, body: string): void {
  res.writeHead(code, {'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body)})
  res.end(body)
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** RFC 7386 JSON merge patch: null deletes, objects merge recursively, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch)
  const out: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? {...(target as Record<string, unknown>)} : {}
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}

function randomName(): string {
  // generateName suffix: 5 characters from the API server's alphabet (no vowels, no confusable digits).
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789'
  return Array.from({length: 5}, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('')
}
