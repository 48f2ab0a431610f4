// One SSH hop: TCP (or a forwarded stream) + handshake + host key check + authentication, as ssh(1) in batch
// mode does it. Used for the node itself and for each ProxyJump bastion. Never writes known_hosts.
import {readFileSync, statSync} from 'node:fs'
import type {Duplex} from 'node:stream'
import ssh2, {BaseAgent, Client, createAgent} from 'ssh2'
import type {AnyAuthMethod, AuthHandlerMiddleware, AuthenticationType, ConnectConfig, IdentityCallback, NextAuthHandler, ParsedKey, SignCallback, SigningRequestOptions} from 'ssh2'
import type {TransportFailure} from './errors.js'
import {type KnownHostEntry, blobKeyType, entryMatches, fingerprint, keyTypeLabel, knownHostsName, lookupHostKey, parseKnownHosts} from './known-hosts.js'
import {shellQuote} from '../../core/collection/shell.js'
import {spawnProxyCommand} from './proxy-command.js'
import type {SshTarget} from './ssh-config.js'

const DEFAULT_CONNECT_TIMEOUT_MS = 15_000
const DEFAULT_HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']

import {SECURITY_WARNING} from '../../core/model/security-warning.js'
export {isSecurityWarning, SECURITY_WARNING} from '../../core/model/security-warning.js'

export const INSECURE_HOST_KEY_FLAG = '--insecure-ignore-host-key'
const INSECURE_HINT = `${INSECURE_HOST_KEY_FLAG} skips this check, but then anyone who can intercept the connection can impersonate the node: they see every command and its output and, with --sudo, run them as root on a machine you trust.`

/**
 * Why a hop could not be connected, without the node it was for: a shared bastion connection fails the same
 * way for every node behind it, and each transport names its own node (TransportError).
 */
export class HopError extends Error {
  constructor(
    readonly reason: TransportFailure,
    message: string,
    readonly hint?: string,
    options?: {cause?: unknown},
  ) {
    super(message, options)
    this.name = 'HopError'
  }
}

export interface HopOptions {
  connectTimeoutMs?: number
  /** Overrides every hop's identityAgent ('' = no agent). */
  agentSocket?: string
  keepaliveIntervalMs?: number
  /** Receives notes about connections that succeeded anyway (accepted unknown host key, ...). */
  warn: (message: string) => void
}

/**
 * Connects and authenticates to `hop`, over `sock` when given (a stream forwarded by the previous hop).
 * `isJump` prefixes messages with "jump host user@host:port: ". Rejects with a HopError.
 */
export function connectHop(hop: SshTarget, sock: Duplex | undefined, isJump: boolean, options: HopOptions): Promise<Client> {
  const label = isJump ? `jump host ${describe(hop)}: ` : ''
  const failHop = (reason: TransportFailure, detail: string, hint?: string, cause?: unknown) => new HopError(reason, label + detail, hint, {cause})
  const timeoutMs = options.connectTimeoutMs ?? hop.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS

  const known = loadKnownHosts(hop.knownHostsFiles)
  const lookupHost = hop.hostKeyAlias ?? hop.host
  const lookupPort = hop.hostKeyAlias ? 22 : hop.port
  let hostKeyProblem: HopError | undefined
  const verifier = (key: Buffer): boolean => {
    const found = lookupHostKey(known.entries, lookupHost, lookupPort, key)
    const presented = `${keyTypeLabel(blobKeyType(key) ?? '?')} key ${fingerprint(key)}`
    const name = knownHostsName(lookupHost, lookupPort)
    if (decideHostKey(found.status, hop.strictHostKeyChecking) === 'accept') {
      if (found.status !== 'match') {
        const why = hop.strictHostKeyChecking === 'accept-new' ? 'StrictHostKeyChecking accept-new' : `StrictHostKeyChecking no / ${INSECURE_HOST_KEY_FLAG}`
        options.warn(`${SECURITY_WARNING}${label}host key of ${name} (${presented}) is ${found.status === 'unknown' ? 'not in known_hosts' : 'different from known_hosts'}; accepted because of ${why} (known_hosts was not changed)`)
      }
      return true
    }
    hostKeyProblem = failHop(...hostKeyRefusal(found.status, name, presented, found.entries, known.files, hop))
    return false
  }

  const auth = prepareAuth(hop, options.agentSocket ?? hop.identityAgent ?? process.env.SSH_AUTH_SOCK)
  if (auth.methods.length === 0) {
    return Promise.reject(failHop('auth', `no credentials to authenticate as ${hop.user}: ${auth.describeEmpty()}`, auth.hint()))
  }

  // ProxyCommand reaches the hop when nothing forwards to it (ssh-config.ts keeps it only where ssh(1) would use it).
  const proxy = !sock && hop.proxyCommand ? spawnProxyCommand(hop.proxyCommand) : undefined
  if (proxy) sock = proxy.sock

  const config: ConnectConfig = {
    host: hop.host,
    port: hop.port,
    username: hop.user,
    readyTimeout: timeoutMs,
    keepaliveInterval: options.keepaliveIntervalMs ?? 15_000,
    keepaliveCountMax: 3,
    hostVerifier: verifier,
    authHandler: auth.handler,
  }
  if (sock) config.sock = sock
  const preferred = preferredHostKeyAlgorithms(known.entries, lookupHost, lookupPort)
  if (preferred) config.algorithms = {serverHostKey: preferred as NonNullable<ConnectConfig['algorithms']>['serverHostKey']}

  return new Promise<Client>((resolve, reject) => {
    const client = new Client()
    client.once('close', () => closedClients.add(client))
    if (proxy) client.once('close', () => proxy.stop())
    let settled = false
    const finish = (err?: HopError) => {
      if (settled) return
      settled = true
      if (err) {
        client.end()
        // A proxy command that died (before we stop it) explains the failure better than the stream it closed.
        if (proxy && !hostKeyProblem && err.reason !== 'auth' && err.reason !== 'timeout') {
          void proxy.settle(500).then((why) => {
            proxy.stop()
            reject(why ? failHop('proxy-command', why, undefined, err) : err)
          })
          return
        }
        proxy?.stop()
        reject(err)
      } else {
        resolve(client)
      }
    }
    client.on('ready', () => finish())
    client.on('error', (err: Error & {level?: string; code?: string}) => {
      if (err.level === 'agent') return // unusable agent: ssh2 moves on to the next method
      if (hostKeyProblem) return finish(hostKeyProblem)
      finish(classifyConnectError(err, hop, timeoutMs, auth, failHop))
    })
    client.on('close', () => finish(hostKeyProblem ?? failHop('disconnected', 'the server closed the connection during the handshake (sshd MaxStartups throttling, a firewall, or not an SSH server?)')))
    try {
      client.connect(config)
    } catch (err) {
      finish(failHop('protocol', (err as Error).message, undefined, err))
    }
  })
}

/** Opens a direct-tcpip stream from the connected jump host `from` to `to`. Rejects with a HopError. */
export function forwardTo(client: Client, from: SshTarget, to: SshTarget): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | undefined, stream?: Duplex) => {
      if (!err) return resolve(stream!)
      const refused = /refused/i.test(err.message)
      reject(new HopError(refused ? 'connection-refused' : 'jump', `jump host ${describe(from)} could not open a connection to ${to.host}:${to.port}: ${err.message.replace(/^\(SSH\) /, '')}`, undefined, {cause: err}))
    }
    try {
      client.forwardOut('127.0.0.1', 0, to.host, to.port, done)
    } catch (err) {
      done(err as Error) // 'Not connected': the jump host connection just went away
    }
  })
}

/** `user@host:port` as shown in messages. */
export function describe(t: SshTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host
  return `${t.user}@${host}:${t.port}`
}

/** Clients whose socket has closed: end() on them would wait for a 'close' that never comes again. */
const closedClients = new WeakSet<Client>()

/** Ends a client and waits (bounded) for its socket to close. */
export function endClient(c: Client): Promise<void> {
  if (closedClients.has(c)) return Promise.resolve()
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 2_000)
    c.once('close', () => (clearTimeout(t), resolve()))
    c.end()
  })
}

function decideHostKey(status: string, strict: SshTarget['strictHostKeyChecking']): 'accept' | 'refuse' {
  if (status === 'match') return 'accept'
  if (status === 'revoked') return 'refuse'
  if (strict === 'no') return 'accept'
  if (strict === 'accept-new' && status === 'unknown') return 'accept'
  return 'refuse'
}

function hostKeyRefusal(
  status: string,
  name: string,
  presented: string,
  entries: KnownHostEntry[],
  files: string[],
  hop: SshTarget,
): [TransportFailure, string, string] {
  const where = (e: KnownHostEntry) => `${e.file}:${e.line}`
  const checked = files.length > 0 ? files.join(', ') : `none of ${hop.knownHostsFiles.join(', ')} exists`
  if (status === 'revoked') {
    return ['host-key-revoked', `host key of ${name} (${presented}) is marked @revoked in ${entries.map(where).join(', ')}; refusing to connect`, 'A revoked key must not be trusted: ask the node owner for its current host key.']
  }
  if (status === 'changed') {
    return [
      'host-key-changed',
      `host key of ${name} has CHANGED: the server presented ${presented}, but ${entries.map(where).join(', ')} holds a different ${keyTypeLabel(entries[0]!.keyType)} key. Someone could be intercepting the connection (man-in-the-middle), or the node was reinstalled`,
      `If the node was rebuilt, check the new fingerprint on the node (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then remove the old entry: ssh-keygen -R ${shellQuote(name)} -f ${shellQuote(entries[0]!.file)}. ${INSECURE_HINT}`,
    ]
  }
  return [
    'host-key-unknown',
    `host key of ${name} is not in known_hosts (checked: ${checked}); the server presented ${presented}`,
    `Compare the fingerprint with the one on the node (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then add the key: ssh-keyscan -p ${hop.port} ${shellQuote(hop.host)} >> ~/.ssh/known_hosts. ${INSECURE_HINT}`,
  ]
}

function preferredHostKeyAlgorithms(entries: KnownHostEntry[], host: string, port: number): string[] | undefined {
  const name = knownHostsName(host, port)
  const types = new Set(entries.filter((e) => !e.marker && e.keyType && entryMatches(e, name)).map((e) => e.keyType))
  if (types.size === 0) return undefined
  const first = DEFAULT_HOST_KEY_ALGORITHMS.filter((a) => types.has(a === 'rsa-sha2-512' || a === 'rsa-sha2-256' ? 'ssh-rsa' : a))
  return [...first, ...DEFAULT_HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))]
}

interface LoadedKnownHosts {
  entries: KnownHostEntry[]
  /** Files that exist. */
  files: string[]
}

const knownHostsCache = new Map<string, {mtimeMs: number; size: number; entries: KnownHostEntry[]}>()

/** Reads and parses known_hosts files, cached by mtime and size (a fleet run reads the same files per node). */
function loadKnownHosts(files: readonly string[]): LoadedKnownHosts {
  const out: LoadedKnownHosts = {entries: [], files: []}
  for (const f of files) {
    let st
    try {
      st = statSync(f)
    } catch {
      continue
    }
    let hit = knownHostsCache.get(f)
    if (!hit || hit.mtimeMs !== st.mtimeMs || hit.size !== st.size) {
      let text: string
      try {
        text = readFileSync(f, 'utf8')
      } catch {
        continue
      }
      hit = {mtimeMs: st.mtimeMs, size: st.size, entries: parseKnownHosts(text, f).entries}
      knownHostsCache.set(f, hit)
    }
    out.files.push(f)
    out.entries.push(...hit.entries)
  }
  return out
}

interface Identity {
  file: string
  key?: ParsedKey
  /** Public key blob (from the key, or from FILE.pub for encrypted keys) to pick the agent's copy. */
  publicBlob?: Buffer
  problem?: string
  encrypted?: boolean
}

const identityCache = new Map<string, {mtimeMs: number; identity: Identity}>()

function loadIdentity(file: string): Identity {
  let st
  try {
    st = statSync(file)
  } catch (err) {
    return {file, problem: `cannot read ${file}: ${(err as Error).message}`}
  }
  const hit = identityCache.get(file)
  if (hit && hit.mtimeMs === st.mtimeMs) return hit.identity
  let identity: Identity
  try {
    const parsed = ssh2.utils.parseKey(readFileSync(file))
    const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | Error | undefined) : parsed
    if (!key || key instanceof Error) {
      const msg = key?.message ?? 'not a private key'
      const encrypted = /encrypted|passphrase/i.test(msg)
      identity = {file, problem: encrypted ? `${file} is encrypted with a passphrase, which node-doctor cannot prompt for` : `${file} is not a usable private key (${msg})`}
      if (encrypted) identity.encrypted = true
      const pub = readPublicBlob(`${file}.pub`)
      if (pub) identity.publicBlob = pub
    } else if (!key.isPrivateKey()) {
      identity = {file, problem: `${file} is a public key, not a private key`}
    } else {
      identity = {file, key, publicBlob: key.getPublicSSH()}
    }
  } catch (err) {
    identity = {file, problem: `cannot read ${file}: ${(err as Error).message}`}
  }
  identityCache.set(file, {mtimeMs: st.mtimeMs, identity})
  return identity
}

function readPublicBlob(file: string): Buffer | undefined {
  try {
    const b64 = readFileSync(file, 'utf8').trim().split(/\s+/)[1]
    return b64 ? Buffer.from(b64, 'base64') : undefined
  } catch {
    return undefined
  }
}

/** Wraps the real agent to count the keys offered and, with IdentitiesOnly, offer only the configured ones. */
class SelectingAgent extends BaseAgent<ParsedKey> {
  offered = 0
  failure: string | undefined

  constructor(
    private readonly inner: BaseAgent,
    private readonly only: Buffer[] | undefined,
  ) {
    super()
  }

  override getIdentities(cb: IdentityCallback<ParsedKey>): void {
    this.inner.getIdentities((err, keys) => {
      if (err) {
        this.failure = err.message
        return cb(err)
      }
      let list = (keys ?? []) as ParsedKey[]
      if (this.only) {
        const only = this.only
        list = list.filter((k) => only.some((b) => b.equals(k.getPublicSSH())))
      }
      this.offered = list.length
      cb(undefined, list)
    })
  }

  override sign(pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions | SignCallback, cb?: SignCallback): void {
    if (typeof options === 'function') this.inner.sign(pubKey, data, options)
    else this.inner.sign(pubKey, data, options, cb)
  }
}

interface PreparedAuth {
  methods: AnyAuthMethod[]
  handler: AuthHandlerMiddleware
  /** Labels of the methods actually tried, in order. */
  tried: string[]
  /** Methods the server said can continue (from its last failure reply). */
  serverMethods: string[] | undefined
  describeEmpty(): string
  hint(): string
  agent: SelectingAgent | undefined
  identities: Identity[]
}

function prepareAuth(hop: SshTarget, agentSocket: string | undefined): PreparedAuth {
  const identities = hop.identityFiles.map(loadIdentity)
  const methods: AnyAuthMethod[] = []
  const labels: string[] = []
  let agent: SelectingAgent | undefined
  if (agentSocket) {
    const only = hop.identitiesOnly ? identities.flatMap((i) => (i.publicBlob ? [i.publicBlob] : [])) : undefined
    if (!only || only.length > 0) {
      agent = new SelectingAgent(createAgent(agentSocket), only)
      methods.push({type: 'agent', username: hop.user, agent})
      labels.push('ssh-agent')
    }
  }
  for (const id of identities) {
    if (!id.key) continue
    methods.push({type: 'publickey', username: hop.user, key: id.key})
    labels.push(`publickey ${id.file}`)
  }
  const prepared: PreparedAuth = {
    methods,
    tried: [],
    serverMethods: undefined,
    agent,
    identities,
    // ssh2 calls this with nulls first, then after each failure; `false` ends authentication (untyped upstream).
    handler: (methodsLeft: AuthenticationType[] | null, _partial: boolean | null, nextAuth: NextAuthHandler) => {
      const next = nextAuth as (m: AnyAuthMethod | false) => void
      if (methodsLeft) prepared.serverMethods = methodsLeft
      // Agent and key files are both publickey: nothing left to try when the server stops accepting it.
      const m = methods[prepared.tried.length]
      if (!m || (methodsLeft && !methodsLeft.includes('publickey'))) return next(false)
      prepared.tried.push(labels[prepared.tried.length]!)
      next(m)
    },
    describeEmpty() {
      const parts = [agentSocket ? 'ssh-agent has none of the IdentitiesOnly keys' : 'no ssh-agent (SSH_AUTH_SOCK is not set, or IdentityAgent none)']
      const problems = identities.filter((i) => i.problem).map((i) => i.problem!)
      if (hop.identityFiles.length === 0) parts.push('no identity file (none given with -i/--ssh-identity or IdentityFile, and no ~/.ssh/id_ed25519, id_ecdsa or id_rsa)')
      return [...parts, ...problems].join('; ')
    },
    hint() {
      const encrypted = identities.filter((i) => i.encrypted)
      if (encrypted.length > 0) return `Load the key into ssh-agent (ssh-add ${encrypted.map((i) => i.file).join(' ')}) and run with SSH_AUTH_SOCK set.`
      if (methods.length === 0) return 'Pass a key with -i/--ssh-identity, set IdentityFile in ~/.ssh/config, or load a key into ssh-agent.'
      return `Check that one of these keys is in ~${hop.user}/.ssh/authorized_keys on the node, or connect as another user or with another key.`
    },
  }
  return prepared
}

function classifyConnectError(
  err: Error & {level?: string; code?: string},
  hop: SshTarget,
  timeoutMs: number,
  auth: PreparedAuth,
  failHop: (reason: TransportFailure, detail: string, hint?: string, cause?: unknown) => HopError,
): HopError {
  const code = err.code ?? ''
  if (err.level === 'client-authentication' || /authentication methods failed/i.test(err.message)) {
    const tried = auth.tried.map((t) => (t === 'ssh-agent' && auth.agent ? `ssh-agent (${auth.agent.failure ? `unusable: ${auth.agent.failure}` : `${auth.agent.offered} key${auth.agent.offered === 1 ? '' : 's'}`})` : t))
    const skipped = auth.identities.filter((i) => i.problem).map((i) => i.problem!)
    const server = auth.serverMethods ? `; the server accepts: ${auth.serverMethods.join(', ') || 'nothing'}` : ''
    return failHop(
      'auth',
      `authentication failed for user ${hop.user}; tried: ${tried.join(', ') || 'nothing'}${skipped.length ? `; skipped: ${skipped.join('; ')}` : ''}${server}`,
      auth.hint(),
      err,
    )
  }
  if (err.level === 'client-timeout' || /timed out/i.test(err.message) || code === 'ETIMEDOUT') {
    return failHop('timeout', `no SSH handshake within ${Math.round(timeoutMs / 100) / 10}s (host down, firewalled, or a slow bastion?)`, undefined, err)
  }
  if (code === 'ECONNREFUSED') return failHop('connection-refused', `connection refused on port ${hop.port} (is sshd running there?)`, undefined, err)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failHop('unreachable', `cannot resolve host name ${hop.host}`, undefined, err)
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') return failHop('unreachable', `${hop.host} is unreachable (${code})`, undefined, err)
  if (code === 'ECONNRESET') return failHop('disconnected', 'the connection was reset during the handshake (sshd MaxStartups throttling or a firewall?)', undefined, err)
  return failHop('protocol', err.message, undefined, err)
}
