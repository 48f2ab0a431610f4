// Kubeconfig loading with kubectl's rules (client-go clientcmd, loader.go + client_config.go), on top of which
// @kubernetes/client-node does authentication (tokens, client certificates, exec plugins, auth providers).
// NOTE: we merge ourselves because client-node's loadFromDefault differs from kubectl: it throws on a name present in
// two files (kubectl: first file wins), lets a later file's current-context win, fails on a missing file in
// KUBECONFIG (kubectl skips it), and resolves token-file and exec commands against the cwd, not the file's folder.
import {existsSync, readFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {KubeConfig} from '@kubernetes/client-node'
import {LineCounter, isMap, isSeq, parseDocument} from 'yaml'
import {InputError, UsageError} from '../../errors.js'
import {parseGoDuration} from '../../core/parse/go-duration.js'

/** kubectl's client flags; keys match `kubeFlags` so parsed oclif flags can be passed as they are. */
export interface KubeOptions {
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  namespace?: string
  server?: string
  token?: string
  'request-timeout'?: string
  'insecure-skip-tls-verify'?: boolean
}

/** The resolved access: `kc` holds only the selected context, cluster and user (like `kubectl config view --minify`). */
export interface KubeAccess {
  kc: KubeConfig
  context: string
  namespace: string
  /** API server URL without a trailing slash. */
  server: string
  /** 0 means no timeout. */
  requestTimeoutMs: number
  cluster: string
  /** Kubeconfig user name; absent when the context names none. */
  user?: string
  /** Where the credential came from when it is not the kubeconfig user's own: `the --token bearer token`. */
  credentialSource?: string
  /** The kubeconfig files that were read, in precedence order (empty for in-cluster config). */
  files: string[]
}

type Raw = Record<string, unknown>
interface NamedEntry {
  name: string
  body: Raw
  file: string
}
interface MergedConfig {
  clusters: Map<string, NamedEntry>
  users: Map<string, NamedEntry>
  contexts: Map<string, NamedEntry>
  currentContext?: {name: string; file: string}
  files: string[]
}

const IN_CLUSTER_SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
// setTimeout's limit; longer Go durations (up to 292 years) are, in practice, "no timeout" as well.
const MAX_TIMER_MS = 2_147_483_647

/**
 * Resolves kubectl's flags, KUBECONFIG and ~/.kube/config into an authenticated KubeConfig.
 * Throws UsageError (InputError for malformed files, naming file and line) for anything the user must fix.
 * `saPathPrefix` prefixes the in-cluster service-account paths (tests).
 */
export function loadKubeConfig(
  opts: KubeOptions,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
  saPathPrefix = '',
): KubeAccess {
  const requestTimeoutMs = parseRequestTimeout(nonEmpty(opts['request-timeout']) ?? '0')
  const explicit = nonEmpty(opts.kubeconfig)
  let candidates: string[]
  let describeSource: string
  if (explicit !== undefined) {
    const file = path.resolve(explicit)
    if (!existsSync(file)) {
      throw new UsageError(`kubeconfig file ${explicit} (from --kubeconfig) does not exist`, 'Pass an existing file to --kubeconfig.')
    }
    candidates = [file]
    describeSource = file
  } else if (nonEmpty(env.KUBECONFIG) !== undefined) {
    // client-go: split on the OS list separator, drop empty entries and duplicates, keep order.
    candidates = [...new Set((env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '').map((p) => path.resolve(p)))]
    describeSource = `KUBECONFIG (${candidates.join(path.delimiter)})`
  } else {
    candidates = [path.join(home, '.kube', 'config')]
    describeSource = candidates[0]!
  }

  const merged = mergeKubeconfigFiles(candidates.filter((f) => existsSync(f)))
  if (merged.files.length === 0 && nonEmpty(opts.server) === undefined) {
    const inCluster = inClusterAccess(opts, env, saPathPrefix, requestTimeoutMs)
    if (inCluster) return inCluster
    throw new UsageError(
      explicit === undefined && nonEmpty(env.KUBECONFIG) === undefined
        ? `no kubeconfig: ${describeSource} does not exist and KUBECONFIG is not set`
        : `no kubeconfig: none of the files in ${describeSource} exists`,
      'Point --kubeconfig or KUBECONFIG at a kubeconfig file, or pass --server (and --token).',
    )
  }
  return resolveAccess(merged, opts, describeSource, requestTimeoutMs)
}

/**
 * Merges kubeconfig files with kubectl's rule: for clusters, users and contexts the first file that defines a name
 * wins (entries are taken whole, never field by field); current-context comes from the first file that sets one.
 * Relative paths are resolved against the folder of the file that holds them.
 */
export function mergeKubeconfigFiles(files: string[]): MergedConfig {
  const merged: MergedConfig = {clusters: new Map(), users: new Map(), contexts: new Map(), files: []}
  for (const file of files) {
    const cfg = readKubeconfigFile(file)
    merged.files.push(file)
    const dir = path.dirname(file)
    for (const [key, target] of [
      ['clusters', merged.clusters],
      ['users', merged.users],
      ['contexts', merged.contexts],
    ] as const) {
      for (const entry of cfg[key]) {
        if (target.has(entry.name)) continue
        target.set(entry.name, {name: entry.name, body: resolvePaths(key, entry.body, dir), file})
      }
    }
    if (merged.currentContext === undefined && cfg.currentContext !== undefined) {
      merged.currentContext = {name: cfg.currentContext, file}
    }
  }
  return merged
}

interface ParsedFile {
  clusters: Array<{name: string; body: Raw}>
  users: Array<{name: string; body: Raw}>
  contexts: Array<{name: string; body: Raw}>
  currentContext?: string
}

const ENTRY_FIELD = {clusters: 'cluster', users: 'user', contexts: 'context'} as const

/** Parses one kubeconfig file; throws InputError naming the file and line. An empty file is an empty config. */
export function readKubeconfigFile(file: string): ParsedFile {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new UsageError(`cannot read kubeconfig ${file}: ${(err as Error).message}`, undefined, err)
  }
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, {lineCounter, uniqueKeys: false, prettyErrors: true})
  const yamlError = doc.errors[0]
  if (yamlError) {
    const detail = yamlError.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')
    throw new InputError(file, `invalid kubeconfig YAML: ${detail}`, yamlError.linePos?.[0]?.line)
  }
  const out: ParsedFile = {clusters: [], users: [], contexts: []}
  const root = doc.contents
  if (root === null || (!isMap(root) && doc.toJS() === null)) return out
  const lineOf = (node: unknown): number | undefined => {
    const range = (node as {range?: [number, number, number]} | null)?.range
    return range ? lineCounter.linePos(range[0]).line : undefined
  }
  if (!isMap(root)) throw new InputError(file, 'not a kubeconfig: expected a mapping (apiVersion: v1, kind: Config)', lineOf(root))
  for (const key of ['clusters', 'users', 'contexts'] as const) {
    const seq = root.get(key, true)
    if (seq === undefined || seq === null || (seq as {value?: unknown}).value === null) continue
    if (!isSeq(seq)) throw new InputError(file, `${key} must be a list`, lineOf(seq))
    seq.items.forEach((item, i) => {
      if (!isMap(item)) throw new InputError(file, `${key}[${i}] must be a mapping with name and ${ENTRY_FIELD[key]}`, lineOf(item))
      const js = item.toJS(doc) as Raw
      const body = js[ENTRY_FIELD[key]]
      if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
        throw new InputError(file, `${key}[${i}].${ENTRY_FIELD[key]} must be a mapping`, lineOf(item.get(ENTRY_FIELD[key], true)))
      }
      if (typeof js.name !== 'string' || js.name === '') return
      out[key].push({name: js.name, body: {...((body as Raw | null) ?? {})}})
    })
  }
  const current = root.get('current-context')
  if (typeof current === 'string' && current !== '') out.currentContext = current
  return out
}

// client-go ResolveLocalPaths: file references are relative to the kubeconfig that holds them; an exec command is
// resolved only when it contains a path separator (a bare name is looked up on PATH).
function resolvePaths(kind: 'clusters' | 'users' | 'contexts', body: Raw, dir: string): Raw {
  const out: Raw = {...body}
  const fix = (key: string) => {
    const v = out[key]
    if (typeof v === 'string' && v !== '' && !path.isAbsolute(v)) out[key] = path.join(dir, v)
  }
  if (kind === 'clusters') fix('certificate-authority')
  if (kind === 'users') {
    fix('client-certificate')
    fix('client-key')
    fix('token-file')
    const exec = out.exec as Raw | undefined
    if (exec && typeof exec.command === 'string' && exec.command.includes(path.sep) && !path.isAbsolute(exec.command)) {
      out.exec = {...exec, command: path.join(dir, exec.command)}
    }
  }
  return out
}

function resolveAccess(merged: MergedConfig, opts: KubeOptions, source: string, requestTimeoutMs: number): KubeAccess {
  const available = [...merged.contexts.keys()].sort()
  const availableHint = available.length > 0 ? `Available contexts: ${available.join(', ')}.` : `No context is defined in ${source}.`
  const flagContext = nonEmpty(opts.context)
  let contextName = flagContext ?? merged.currentContext?.name
  let ctx: Raw = {}
  if (contextName !== undefined) {
    const entry = merged.contexts.get(contextName)
    if (entry) {
      ctx = entry.body
    } else if (flagContext !== undefined) {
      throw new UsageError(`context "${contextName}" does not exist in ${source}`, availableHint)
    } else {
      throw new UsageError(
        `current-context "${contextName}" (set in ${merged.currentContext?.file}) does not exist`,
        `Pass --context or fix current-context (kubectl config use-context NAME). ${availableHint}`,
      )
    }
  } else if (nonEmpty(opts.server) === undefined) {
    throw new UsageError(`no context selected: current-context is not set in ${source}`, `Pass --context. ${availableHint}`)
  }

  const clusterName = nonEmpty(opts.cluster) ?? str(ctx.cluster)
  const userName = nonEmpty(opts.user) ?? str(ctx.user)
  let clusterBody: Raw = {}
  if (clusterName !== undefined) {
    const entry = merged.clusters.get(clusterName)
    if (!entry) {
      const names = [...merged.clusters.keys()].sort().join(', ') || 'none'
      throw new UsageError(
        opts.cluster ? `cluster "${clusterName}" does not exist in ${source}` : `cluster "${clusterName}" of context "${contextName}" does not exist in ${source}`,
        `Available clusters: ${names}.`,
      )
    }
    clusterBody = {...entry.body}
  }
  let userBody: Raw = {}
  if (userName !== undefined) {
    const entry = merged.users.get(userName)
    if (!entry) {
      const names = [...merged.users.keys()].sort().join(', ') || 'none'
      throw new UsageError(
        opts.user ? `user "${userName}" does not exist in ${source}` : `user "${userName}" of context "${contextName}" does not exist in ${source}`,
        `Available users: ${names}.`,
      )
    }
    userBody = {...entry.body}
  }

  // Overrides, as client-go's DirectClientConfig applies them.
  if (nonEmpty(opts.server) !== undefined) {
    clusterBody.server = opts.server
    delete clusterBody['tls-server-name'] // --server without --tls-server-name clears the kubeconfig's one
  }
  if (opts['insecure-skip-tls-verify']) {
    clusterBody['insecure-skip-tls-verify'] = true
    delete clusterBody['certificate-authority']
    delete clusterBody['certificate-authority-data']
  }
  if (nonEmpty(opts.token) !== undefined) {
    // An explicit token is the credential: client-go's exec authenticator stands aside when a token is set.
    for (const k of ['token-file', 'exec', 'auth-provider', 'username', 'password']) delete userBody[k]
    userBody.token = opts.token
  }
  const server = str(clusterBody.server)
  const effectiveContext = contextName ?? 'node-doctor'
  const effectiveCluster = clusterName ?? 'node-doctor'
  if (server === undefined) {
    throw new UsageError(`cluster "${effectiveCluster}" has no server defined`, 'Set clusters[].cluster.server in the kubeconfig or pass --server.')
  }
  try {
    new URL(server)
  } catch {
    throw new UsageError(`invalid server URL "${server}" for cluster "${effectiveCluster}"`, 'Expected a URL such as https://203.0.113.10:6443.')
  }
  checkReferencedFile(clusterBody, 'certificate-authority', `cluster "${effectiveCluster}"`)
  for (const k of ['client-certificate', 'client-key', 'token-file']) checkReferencedFile(userBody, k, `user "${userName}"`)

  const namespace = nonEmpty(opts.namespace) ?? str(ctx.namespace) ?? 'default'
  // client-node ignores the CA and TLS settings when the context has no user, so there is always one.
  const kcUser = userName ?? ''
  const kc = new KubeConfig()
  try {
    kc.loadFromString(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{name: effectiveCluster, cluster: clusterBody}],
        users: [{name: kcUser === '' ? 'node-doctor-no-user' : kcUser, user: userBody}],
        contexts: [
          {
            name: effectiveContext,
            context: {cluster: effectiveCluster, user: kcUser === '' ? 'node-doctor-no-user' : kcUser, namespace},
          },
        ],
        'current-context': effectiveContext,
      }),
    )
  } catch (err) {
    throw new UsageError(`invalid kubeconfig entry for context "${effectiveContext}": ${(err as Error).message}`, undefined, err)
  }
  const access: KubeAccess = {
    kc,
    context: effectiveContext,
    namespace,
    server: server.replace(/\/$/, ''),
    requestTimeoutMs,
    cluster: effectiveCluster,
    files: merged.files,
  }
  if (userName !== undefined) access.user = userName
  if (nonEmpty(opts.token) !== undefined) access.credentialSource = 'the --token bearer token'
  return access
}

function checkReferencedFile(body: Raw, key: string, owner: string): void {
  const file = body[key]
  if (typeof file === 'string' && file !== '' && !existsSync(file)) {
    throw new UsageError(`${key} ${file} of ${owner} does not exist`, 'Fix the path in the kubeconfig (relative paths are relative to the kubeconfig file).')
  }
}

// client-go's in-cluster fallback: used only when no kubeconfig file exists and nothing names a server.
function inClusterAccess(opts: KubeOptions, env: NodeJS.ProcessEnv, prefix: string, requestTimeoutMs: number): KubeAccess | undefined {
  const host = nonEmpty(env.KUBERNETES_SERVICE_HOST)
  const port = nonEmpty(env.KUBERNETES_SERVICE_PORT)
  const tokenFile = `${prefix}${IN_CLUSTER_SA_DIR}/token`
  if (host === undefined || port === undefined || !existsSync(tokenFile)) return undefined
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`
  const nsFile = `${prefix}${IN_CLUSTER_SA_DIR}/namespace`
  const saNamespace = existsSync(nsFile) ? readFileSync(nsFile, 'utf8').trim() : ''
  const token = nonEmpty(opts.token)
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [
      opts['insecure-skip-tls-verify']
        ? {name: 'inCluster', server, skipTLSVerify: true}
        : {name: 'inCluster', server, caFile: `${prefix}${IN_CLUSTER_SA_DIR}/ca.crt`, skipTLSVerify: false},
    ],
    // The tokenFile provider re-reads the projected token, which the kubelet rotates.
    users: [token ? {name: 'inClusterUser', token} : {name: 'inClusterUser', authProvider: {name: 'tokenFile', config: {tokenFile}}}],
    contexts: [{name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser'}],
    currentContext: 'inClusterContext',
  })
  return {
    kc,
    context: 'inClusterContext',
    namespace: nonEmpty(opts.namespace) ?? (saNamespace || 'default'),
    server,
    requestTimeoutMs,
    cluster: 'inCluster',
    user: 'inClusterUser',
    credentialSource: token ? 'the --token bearer token' : 'the pod\'s service account token',
    files: [],
  }
}

/**
 * kubectl's --request-timeout (client-go clientcmd.ParseTimeout): a non-negative integer is seconds, otherwise a Go
 * duration (`1m30s`, `500ms`, `1.5h`). Returns milliseconds, 0 meaning no timeout. Throws UsageError when invalid.
 * NOTE: a negative Go duration is rejected here, where kubectl silently treats it as no timeout.
 */
export function parseRequestTimeout(value: string): number {
  const v = value.trim()
  const invalid = () =>
    new UsageError(
      `invalid --request-timeout "${value}"`,
      'Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h); 0 means no timeout.',
    )
  if (/^\+?\d+$/.test(v)) return clampTimer(Number(v) * 1000)
  const ns = parseGoDuration(v)
  if (ns === undefined || ns < 0n) throw invalid()
  return clampTimer(Number(ns) / 1e6)
}

function clampTimer(ms: number): number {
  if (ms <= 0) return 0
  // Round up so a sub-millisecond timeout still times out instead of meaning "none".
  return Math.min(Math.ceil(ms), MAX_TIMER_MS)
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}
