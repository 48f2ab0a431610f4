// The HTTP transport under KubeClusterClient: credentials and TLS from @kubernetes/client-node (applyToHTTPSOptions),
// a keep-alive agent, timeouts, paging, and the mapping of every failure to a ClusterAccessError. Requests are raw
// HTTP so that objects arrive exactly as the server sent them.
// NOTE: the typed client-node APIs are not used because their deserialiser turns timestamps into Date objects and
// drops fields its generated models do not know, and a diagnostic dump must be what `kubectl get -o json` prints.
import http from 'node:http'
import https from 'node:https'
import type {KubeConfig} from '@kubernetes/client-node'
import type {KubeObject} from '../../core/model/k8s.js'
import {type ApiRequest, type ApiStatus, ClusterAccessError, describeRequest} from '../../ports/cluster.js'
import type {KubeAccess} from './kubeconfig.js'

export interface KubeClientOptions {
  /** Items per list page (`limit`); kubectl uses 500. */
  pageSize?: number
  userAgent?: string
  /** TCP connect timeout, as client-go's dialer (30 s), so a black-holed address fails even without --request-timeout. */
  connectTimeoutMs?: number
}

/** How a request failed, before it is turned into a ClusterAccessError by clusterErrorFor. */
export type RequestFailure =
  | {type: 'network'; error: Error & {code?: string; hostname?: string}}
  | {type: 'timeout'; timeoutMs: number}
  | {type: 'connect-timeout'; timeoutMs: number}
  | {type: 'credentials'; error: Error & {code?: string; syscall?: string; path?: string}; command?: string}
  | {type: 'response'; statusCode: number; body: string}

export interface RequestTarget {
  server: string
  context: string
  user?: string
  /** Where the credential came from, when not the kubeconfig user's entry (KubeAccess.credentialSource). */
  credentialSource?: string
  request?: ApiRequest
}

interface Prepared {
  agent?: http.Agent
  headers: Record<string, string>
  auth?: string
}

// Credentials are prepared once and reused for this long, so an exec plugin is not spawned per request while a
// long run still picks up refreshed tokens (client-node caches exec output only when it carries an expiry).
const CREDENTIAL_REUSE_MS = 60_000

/** Credentials, HTTP and error mapping for the Kubernetes API; the resource methods are KubeClusterClient's. */
export class KubeTransport {
  private readonly kc: KubeConfig
  protected readonly target: Omit<RequestTarget, 'request'>
  private readonly requestTimeoutMs: number
  private readonly pageSize: number
  private readonly userAgent: string
  private readonly connectTimeoutMs: number
  private prepared?: {at: number; value: Promise<Prepared>}
  private sharedAgent?: {key: string; agent: https.Agent}

  constructor(access: Pick<KubeAccess, 'kc' | 'server' | 'context' | 'user' | 'requestTimeoutMs' | 'credentialSource'>, options: KubeClientOptions = {}) {
    this.kc = access.kc
    this.target = {server: access.server, context: access.context}
    if (access.user !== undefined) this.target.user = access.user
    if (access.credentialSource !== undefined) this.target.credentialSource = access.credentialSource
    this.requestTimeoutMs = access.requestTimeoutMs
    this.pageSize = options.pageSize ?? 500
    this.userAgent = options.userAgent ?? 'kubectl-node_doctor'
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000
  }

  /**
   * One request for the API adapters built on this client (repairs, the in-cluster agent): the same credentials,
   * timeouts and error mapping as every read. Resolves with the parsed JSON of a 2xx answer ('' bodies as undefined).
   */
  async requestJSON<T>(
    req: ApiRequest,
    h: {method?: string; path: string; query?: Record<string, string | undefined>; body?: unknown; contentType?: string},
  ): Promise<T> {
    const text = await this.call(req, h)
    return (text === '' ? undefined : parseJSON(text, this.target.server)) as T
  }

  /** Like requestJSON for a text body (pod logs). */
  requestText(req: ApiRequest, h: {path: string; query?: Record<string, string | undefined>}): Promise<string> {
    return this.call(req, {...h, accept: 'text/plain, */*'})
  }

  // --- plumbing ---

  protected async list<T extends KubeObject>(
    req: ApiRequest,
    path: string,
    apiVersion: string,
    kind: string,
    query: Record<string, string | undefined> = {},
  ): Promise<T[]> {
    const items: T[] = []
    let cont: string | undefined
    do {
      const page = await this.getJSON<{items?: T[] | null; metadata?: {continue?: string}}>(req, path, {
        ...query,
        limit: String(this.pageSize),
        continue: cont,
      })
      // Items of built-in lists carry no kind/apiVersion on the wire; kubectl adds them, and so do we.
      for (const item of page.items ?? []) items.push({apiVersion, kind, ...item})
      cont = page.metadata?.continue || undefined
    } while (cont !== undefined)
    return items
  }

  protected async listIfServed<T extends KubeObject>(req: ApiRequest, path: string, apiVersion: string, kind: string): Promise<T[]> {
    try {
      return await this.list<T>(req, path, apiVersion, kind)
    } catch (err) {
      // A 404 on a collection means the API group or CRD is not served, which is a fact about the cluster, not a failure.
      if (err instanceof ClusterAccessError && err.status?.code === 404) return []
      throw err
    }
  }

  protected async getOptional<T extends KubeObject>(req: ApiRequest, path: string, apiVersion: string, kind: string): Promise<T | undefined> {
    try {
      return {apiVersion, kind, ...(await this.getJSON<T>(req, path))}
    } catch (err) {
      if (err instanceof ClusterAccessError && err.status?.code === 404) return undefined
      throw err
    }
  }

  protected async getJSON<T>(req: ApiRequest, path: string, query?: Record<string, string | undefined>): Promise<T> {
    const text = await this.call(req, query === undefined ? {path} : {path, query})
    return parseJSON(text, this.target.server) as T
  }

  /** One HTTP exchange; resolves with the body of a 2xx answer, throws ClusterAccessError otherwise. */
  protected async call(
    req: ApiRequest,
    h: {method?: string; path: string; query?: Record<string, string | undefined>; body?: unknown; accept?: string; contentType?: string},
  ): Promise<string> {
    const target: RequestTarget = {...this.target, request: req}
    let prepared: Prepared
    try {
      prepared = await this.credentials()
    } catch (err) {
      const exec = this.kc.getCurrentUser()?.exec as {command?: string} | undefined
      throw clusterErrorFor({type: 'credentials', error: err as Error, command: exec?.command}, target)
    }
    const url = new URL(this.target.server + h.path)
    for (const [k, v] of Object.entries(h.query ?? {})) if (v !== undefined) url.searchParams.set(k, v)
    const payload = h.body === undefined ? undefined : JSON.stringify(h.body)
    const headers: Record<string, string> = {
      ...prepared.headers,
      Accept: h.accept ?? 'application/json',
      'User-Agent': this.userAgent,
    }
    if (payload !== undefined) {
      headers['Content-Type'] = h.contentType ?? 'application/json'
      // Node frames a DELETE body only with an explicit length (no chunking by default for DELETE).
      headers['Content-Length'] = String(Buffer.byteLength(payload))
    }
    const options: https.RequestOptions = {method: h.method ?? 'GET', headers}
    if (prepared.agent) options.agent = prepared.agent
    if (prepared.auth) options.auth = prepared.auth
    const res = await send(url, options, payload, this.requestTimeoutMs, this.connectTimeoutMs)
    if (res.type !== 'ok') throw clusterErrorFor(res.failure, target)
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw clusterErrorFor({type: 'response', statusCode: res.statusCode, body: res.body}, target)
    }
    return res.body
  }

  private credentials(): Promise<Prepared> {
    const now = Date.now()
    if (this.prepared && now - this.prepared.at < CREDENTIAL_REUSE_MS) return this.prepared.value
    const value = this.prepare()
    const entry = {at: now, value}
    this.prepared = entry
    value.catch(() => {
      if (this.prepared === entry) delete this.prepared
    })
    return value
  }

  private async prepare(): Promise<Prepared> {
    // client-go sends credentials only over TLS; a plain-http server is typically `kubectl proxy`.
    if (this.target.server.startsWith('http:')) return {headers: {}}
    const opts: https.RequestOptions = {}
    await this.kc.applyToHTTPSOptions(opts)
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v)
    const out: Prepared = {headers}
    if (opts.agent instanceof http.Agent) out.agent = this.keepAliveAgent(opts.agent)
    if (typeof opts.auth === 'string') out.auth = opts.auth
    return out
  }

  /**
   * client-node hands out a fresh https.Agent without keep-alive, so every request paid a TLS handshake (most of the
   * CLI's CPU in a 1,000-node run). A plain https.Agent is replaced by one keep-alive agent with the same TLS
   * options, kept while those options (CA, client certificate, key, verification) stay the same; proxy agents are
   * used as they come.
   */
  private keepAliveAgent(agent: http.Agent): http.Agent {
    if (agent.constructor !== https.Agent) return agent
    const o = (agent as https.Agent).options as https.AgentOptions
    const key = JSON.stringify([o.ca, o.cert, o.key, o.pfx, o.passphrase, o.rejectUnauthorized, o.servername])
    if (this.sharedAgent?.key !== key) {
      this.sharedAgent?.agent.destroy()
      this.sharedAgent = {key, agent: new https.Agent({...o, keepAlive: true})}
    }
    return this.sharedAgent.agent
  }
}

type SendResult = {type: 'ok'; statusCode: number; body: string} | {type: 'failed'; failure: RequestFailure}

function send(url: URL, options: https.RequestOptions, payload: string | undefined, timeoutMs: number, connectTimeoutMs: number): Promise<SendResult> {
  return new Promise((resolve) => {
    let done = false
    const timers: NodeJS.Timeout[] = []
    const finish = (r: SendResult) => {
      if (done) return
      done = true
      for (const t of timers) clearTimeout(t)
      if (r.type === 'failed') req.destroy()
      resolve(r)
    }
    const req = (url.protocol === 'http:' ? http : https).request(url, options)
    // --request-timeout bounds the whole exchange, body included, like Go's http.Client.Timeout.
    if (timeoutMs > 0) timers.push(setTimeout(() => finish({type: 'failed', failure: {type: 'timeout', timeoutMs}}), timeoutMs))
    req.on('socket', (socket) => {
      if (!socket.connecting) return
      const t = setTimeout(() => finish({type: 'failed', failure: {type: 'connect-timeout', timeoutMs: connectTimeoutMs}}), connectTimeoutMs)
      timers.push(t)
      socket.once('connect', () => clearTimeout(t))
    })
    req.on('error', (error) => finish({type: 'failed', failure: {type: 'network', error}}))
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', (error) => finish({type: 'failed', failure: {type: 'network', error}}))
      res.on('end', () => finish({type: 'ok', statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}))
      res.on('aborted', () => finish({type: 'failed', failure: {type: 'network', error: new Error('connection closed before the response was complete')}}))
    })
    req.end(payload)
  })
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ISSUER/

/**
 * The one place that turns a failed request into a ClusterAccessError: connection refused, DNS, TLS and timeouts
 * become "cannot reach the API server at URL: cause"; 401 names user and context; any other non-2xx keeps the
 * server's Status (403s carry verb, resource and namespace through `request`).
 */
export function clusterErrorFor(f: RequestFailure, t: RequestTarget): ClusterAccessError {
  const base = {server: t.server, ...(t.request ? {request: t.request} : {})}
  const reach = `cannot reach the API server at ${t.server}`
  const ctx = `context "${t.context}"`
  switch (f.type) {
    case 'timeout':
      return new ClusterAccessError('timeout', `${reach}: no response within ${formatMs(f.timeoutMs)} (--request-timeout)`, {
        ...base,
        hint: 'Raise --request-timeout (0 disables it), or check the network path to the API server.',
      })
    case 'connect-timeout':
      return new ClusterAccessError('unreachable', `${reach}: could not connect within ${formatMs(f.timeoutMs)}`, {
        ...base,
        hint: `Check that the cluster is running and that ${ctx} points at it (kubectl config view --minify).`,
      })
    case 'network': {
      const code = f.error.code ?? ''
      if (TLS_CODES.test(code)) {
        return new ClusterAccessError('tls', `${reach}: TLS: ${f.error.message}`, {
          ...base,
          cause: f.error,
          hint:
            code === 'ERR_TLS_CERT_ALTNAME_INVALID'
              ? `The server certificate does not name this address; set tls-server-name for the cluster of ${ctx}.`
              : `The server certificate is not trusted by the certificate-authority of ${ctx}. Fix the kubeconfig's CA, or pass --insecure-skip-tls-verify for a throwaway cluster.`,
        })
      }
      const cause =
        code === 'ECONNREFUSED'
          ? 'connection refused'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? `cannot resolve host ${f.error.hostname ?? new URL(t.server).hostname}`
            : f.error.message
      return new ClusterAccessError('unreachable', `${reach}: ${cause}`, {
        ...base,
        cause: f.error,
        hint: `Check that the cluster is running and that ${ctx} points at it (kubectl config view --minify).`,
      })
    }
    case 'credentials': {
      const who = t.user === undefined ? ctx : `user "${t.user}" (${ctx})`
      const missing = f.error.code === 'ENOENT' && f.error.syscall?.startsWith('spawn')
      const detail = f.command
        ? missing
          ? `exec plugin "${f.command}" was not found`
          : `exec plugin "${f.command}" failed: ${f.error.message.trim() || 'non-zero exit status'}`
        : f.error.message
      return new ClusterAccessError('credentials', `cannot get credentials for ${who}: ${detail}`, {
        ...base,
        cause: f.error,
        hint: missing
          ? 'Install the credential plugin named in the kubeconfig (users[].user.exec.command) or put it on PATH.'
          : 'Run the same kubectl command to see whether the credential plugin works, and log in again if needed.',
      })
    }
    case 'response': {
      const status = parseStatus(f.statusCode, f.body, t.request)
      if (f.statusCode === 401) {
        const who =
          t.credentialSource !== undefined
            ? `${t.credentialSource} (${t.user === undefined ? ctx : `user "${t.user}", ${ctx}`})`
            : t.user === undefined
              ? `${ctx}, which has no user credentials`
              : `user "${t.user}" (${ctx})`
        return new ClusterAccessError('unauthorized', `the API server at ${t.server} rejected the credentials of ${who}: ${status.message}`, {
          ...base,
          status,
          hint: 'Refresh the credentials (log in again, renew the token or client certificate), or choose another --context/--user.',
        })
      }
      const r = t.request
      const hint =
        f.statusCode === 403 && r && r.resource !== ''
          ? `node-doctor needs permission to ${describeRequest(r)}; ask a cluster admin (check: kubectl auth can-i ${r.verb} ${r.resource}${r.group ? `.${r.group}` : ''}${r.subresource ? `/${r.subresource}` : ''}${scopeFlag(r)}).`
          : undefined
      return new ClusterAccessError('status', status.message, {...base, status, ...(hint ? {hint} : {})})
    }
  }
}

function parseStatus(code: number, body: string, req: ApiRequest | undefined): ApiStatus {
  try {
    const s = JSON.parse(body) as {kind?: string; message?: string; reason?: string}
    if (s && s.kind === 'Status' && typeof s.message === 'string' && s.message !== '') {
      const out: ApiStatus = {code, message: s.message}
      if (s.reason) out.reason = s.reason
      return out
    }
  } catch {
    // not a Status: fall through
  }
  if (code === 403 && req && req.resource !== '') {
    const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource
    const scope = req.namespace ? `in the namespace "${req.namespace}"` : 'at the cluster scope'
    return {code, reason: 'Forbidden', message: `forbidden: cannot ${req.verb} resource "${resource}" in API group "${req.group}" ${scope}`}
  }
  const text = body.trim().slice(0, 300)
  return {code, message: `${code} ${http.STATUS_CODES[code] ?? 'error'}${text ? `: ${text}` : ''}`}
}

export function parseJSON(text: string, server: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ClusterAccessError('status', `the API server at ${server} returned a body that is not JSON: ${text.slice(0, 120)}`, {
      server,
      cause: err,
    })
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

/** Resources that belong to no namespace: `kubectl auth can-i` takes neither -n nor --all-namespaces for them. */
const CLUSTER_SCOPED = new Set(['nodes', 'namespaces', 'persistentvolumes', 'clusterroles', 'clusterrolebindings', 'customresourcedefinitions', 'storageclasses', 'priorityclasses', 'runtimeclasses', 'csidrivers', 'csinodes', 'servicecidrs', 'ipaddresses', 'selfsubjectaccessreviews', 'certificatesigningrequests', 'validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'apiservices', 'ippools', 'ipamblocks', 'blockaffinities', 'felixconfigurations'])

function scopeFlag(r: ApiRequest): string {
  if (r.namespace) return ` -n ${r.namespace}`
  return CLUSTER_SCOPED.has(r.resource) ? '' : ' --all-namespaces'
}
