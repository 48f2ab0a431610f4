// A small but faithful Kubernetes API server for loopback tests (client-node's watch_test style, grown up):
// real paths, List/Status JSON shaped like kube-apiserver's, bearer-token and client-certificate authentication,
// RBAC-style denials with kube-apiserver's exact 403 message, label/field selectors, limit/continue paging and
// streaming watches. Seeded from fixture objects, which must carry apiVersion and kind.
import {mkdtempSync, rmSync} from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {TLSSocket} from 'node:tls'
import type {KubeObject} from '../../src/core/model/k8s.js'
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
  {group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', kind: 'ServiceCIDR', namespaced: false},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'ippools', kind: 'IPPool', namespaced: false, crd: true},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'blockaffinities', kind: 'BlockAffinity', namespaced: false, crd: true},
  {group: 'crd.projectcalico.org', version: 'v1', resource: 'ipamblocks', kind: 'IPAMBlock', namespaced: false, crd: true},
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

export function statusObject(code: number, message: string, details?: Record<string, string>): Record<string, unknown> {
  const s: Record<string, unknown> = {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: STATUS_REASON[code] ?? 'InternalError'}
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
  }

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
    return gone
  }

  for (const o of options.objects ?? []) put(o, false)
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
      case 'delete': {
        const found = store.get(keyOf(rt, info.namespace, info.name!))
        if (!found) return notFound(res, rt, info.name!)
        const opts = JSON.parse((await readBody(req)) || '{}') as {preconditions?: {uid?: string; resourceVersion?: string}}
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
      let text = options.logs?.[`${info.namespace}/${info.name}/${container}`] ?? options.logs?.[`${info.namespace}/${info.name}`] ?? ''
      const tail = url.searchParams.get('tailLines')
      if (tail !== null && text !== '') {
        const lines = text.split('\n')
        const trailing = lines.at(-1) === '' ? lines.pop() : undefined
        text = lines.slice(Math.max(0, lines.length - Number(tail))).join('\n') + (trailing !== undefined && Number(tail) > 0 ? '\n' : '')
      }
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
    // 'finish' (response handed to the OS) precedes the client seeing the end, so overlaps are never overstated.
    let counted = true
    const done = () => {
      if (counted) inFlight--
      counted = false
    }
    res.on('finish', done)
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
    setLatency(ms) {
      latencyMs = ms
    },
    kubeconfigSpec,
    async close() {
      for (const w of watchers) w.res.end()
      watchers.clear()
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
