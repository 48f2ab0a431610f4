// SSH transport: ONE connection per node (through its ProxyJump chain), every exec a channel on it, at most
// `maxChannels` at a time. Host keys are checked against known_hosts like ssh(1) in batch mode (see hop.ts).
import type {Duplex} from 'node:stream'
import type {Client, ClientChannel} from 'ssh2'
import {Capture, stderrCap} from '../capture.js'
import {limits} from '../../core/limits/limits.js'
import type {ExecOptions, ExecResult, NodeTransport} from '../../ports/node-transport.js'
import {TransportError, type TransportFailure} from './errors.js'
import {HopError, type HopOptions, connectHop, describe, endClient, forwardTo} from './hop.js'
import {GroupReportReader, killGroupCommand, withGroupReport} from './remote-kill.js'
import type {SshTarget} from './ssh-config.js'

export {INSECURE_HOST_KEY_FLAG} from './hop.js'

/** sshd's MaxSessions defaults to 10; stay below it and adapt downwards if a server allows fewer. */
const DEFAULT_MAX_CHANNELS = 8
/** Retries of a refused channel open (with 25, 50, 100... ms pauses). */
const OPEN_RETRIES = 6
/** How long a killed channel may take to report its close before we stop waiting for it. */
const KILL_GRACE_MS = 2_000

export interface SshTransportOptions {
  /** TCP connect + handshake + authentication, per hop. Default: the target's ConnectTimeout, else 15 s. */
  connectTimeoutMs?: number
  /** Concurrent channels on the connection (default 8). */
  maxChannels?: number
  /** ssh-agent socket for every hop, overriding the targets' identityAgent ('' disables the agent). */
  agentSocket?: string
  keepaliveIntervalMs?: number
  /** Share bastion connections with the other nodes of a fleet run (see SshJumpPool). */
  jumpPool?: SshJumpPool
}

export class SshTransport implements NodeTransport {
  readonly kind = 'ssh' as const
  /** Notes about a connection that succeeded anyway (accepted unknown or changed host key). */
  readonly warnings: string[] = []
  /** Connections this transport owns, outermost first (pooled bastions are not among them). */
  private readonly clients: Client[] = []
  private lease: JumpLease | undefined
  private connecting: Promise<Client> | undefined
  /** Channels killing timed-out commands' process groups; close() lets them be sent first. */
  private readonly killers = new Set<Promise<void>>()
  private dead: TransportError | undefined
  private closed = false
  /** Bumped by reconnect(): the old connection's close must not mark the new one dead. */
  private generation = 0
  private readonly slots: Slots

  constructor(
    readonly node: string,
    readonly target: SshTarget,
    private readonly options: SshTransportOptions = {},
  ) {
    this.slots = new Slots(options.maxChannels ?? DEFAULT_MAX_CHANNELS)
  }

  /** Connects now (exec connects on first use). Idempotent; rejects with a TransportError. */
  connect(): Promise<void> {
    return this.client().then(() => undefined)
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const client = await this.client()
    for (let attempt = 0; ; attempt++) {
      await this.slots.acquire()
      const others = this.slots.inUse - 1
      let opened = false
      try {
        return await this.runChannel(client, command, options, () => (opened = true))
      } catch (err) {
        if (!(err instanceof ChannelOpenError)) throw err
        // A server with MaxSessions below our limit refuses extra channels ("open failed"): use fewer and
        // retry. Its count can lag behind our closes, so a refusal with no other channel open is retried too.
        if (!opened && !this.dead && attempt < OPEN_RETRIES) {
          if (others > 0) this.slots.shrinkTo(others)
          await new Promise((r) => setTimeout(r, 25 * 2 ** attempt))
          continue
        }
        throw this.fail('disconnected', `could not open a channel: ${err.message}`, err)
      } finally {
        this.slots.release()
      }
    }
  }

  /**
   * After the connection was lost: drops it and connects again (once; rejects with a TransportError when the node
   * cannot be reached). Used by repairs to restore a node after an interrupted step.
   */
  async reconnect(): Promise<void> {
    if (this.closed) throw this.fail('closed', 'the transport was closed')
    if (this.connecting) await this.connecting.catch(() => undefined)
    this.generation++
    await Promise.all(this.clients.splice(0).reverse().map((c) => endClient(c)))
    this.lease?.release()
    this.lease = undefined
    this.dead = undefined
    this.connecting = undefined
    await this.connect()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.connecting) await this.connecting.catch(() => undefined)
    await Promise.all(this.killers)
    await Promise.all([...this.clients].reverse().map((c) => endClient(c)))
    this.lease?.release()
  }

  private client(): Promise<Client> {
    if (this.closed) return Promise.reject(this.fail('closed', 'the transport was closed'))
    if (this.dead) return Promise.reject(this.dead)
    this.connecting ??= this.connectChain().catch(async (err: unknown) => {
      // Nothing half-open may outlive a failed connect: it would keep the process alive.
      await Promise.all(this.clients.splice(0).map((c) => endClient(c)))
      this.lease?.release()
      throw err instanceof HopError ? this.fail(err.reason, err.message, err.cause, err.hint) : err
    })
    return this.connecting
  }

  private async connectChain(): Promise<Client> {
    const hopOptions: HopOptions = {
      connectTimeoutMs: this.options.connectTimeoutMs,
      agentSocket: this.options.agentSocket,
      keepaliveIntervalMs: this.options.keepaliveIntervalMs,
      warn: (m) => this.warnings.push(m),
    }
    const jumps = this.target.proxyJump
    let sock: Duplex | undefined
    if (jumps.length > 0 && this.options.jumpPool) {
      this.lease = await this.options.jumpPool.acquire(jumps, hopOptions)
      sock = await forwardTo(this.lease.client, jumps.at(-1)!, this.target)
    } else {
      for (let i = 0; i < jumps.length; i++) {
        const c = await connectHop(jumps[i]!, sock, true, hopOptions)
        this.clients.push(c)
        sock = await forwardTo(c, jumps[i]!, jumps[i + 1] ?? this.target)
      }
    }
    const final = await connectHop(this.target, sock, false, hopOptions)
    this.clients.push(final)
    const generation = this.generation
    const onGone = (err?: Error) => {
      if (generation !== this.generation) return
      this.dead ??= this.fail('disconnected', err ? `connection lost: ${err.message}` : 'the connection was closed by the node', err)
    }
    final.on('error', onGone).on('close', () => onGone())
    return final
  }

  private runChannel(client: Client, command: string, options: ExecOptions, onOpen: () => void): Promise<ExecResult> {
    const max = options.maxBytes ?? limits().artifactBytes
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      let grace: NodeJS.Timeout | undefined
      let timedOut = false
      let done = false
      const finish = (fn: () => void) => {
        if (done) return
        done = true
        clearTimeout(timer)
        clearTimeout(grace)
        fn()
      }
      if (options.timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true
          kill()
        }, options.timeoutMs)
      }
      let stream: ClientChannel | undefined
      const kill = () => {
        grace ??= setTimeout(() => finish(() => resolve(result(null))), KILL_GRACE_MS)
        if (!stream) return
        // sshd refuses the signal for root logins (no privilege separation after auth) and cannot signal
        // sudo'ed commands; closing the channel closes the command's pipes, so a command that still writes
        // dies of SIGPIPE. A silent one is ended through its process group (remote-kill.ts).
        signalChannel(stream, 'KILL')
        if (group.pgid !== undefined && !killed) {
          killed = true
          this.killRemote(client, group.pgid, command.startsWith('sudo -n '))
        }
        stream.close()
      }
      const out = new Capture(max)
      const err = new Capture(stderrCap(max))
      const group = new GroupReportReader()
      let killed = false
      let exitCode: number | null = null
      let gotExit = false
      const result = (code: number | null): ExecResult => {
        const held = group.flush()
        if (held.length > 0) err.push(held)
        const r: ExecResult = {exitCode: code, stdout: out.text(), stderr: err.text()}
        if (timedOut) r.timedOut = true
        if (out.cut) {
          r.truncated = true
          r.stderr += `\noutput exceeded ${max} bytes and was cut`
        }
        if (err.cut) r.stderr += `\nstderr exceeded ${stderrCap(max)} bytes and was cut`
        return r
      }
      const onOpened = (openErr: Error | undefined, s: ClientChannel) => {
        if (openErr) {
          finish(() => reject(this.dead ?? new ChannelOpenError(openErr.message.replace(/^\(SSH\) /, ''))))
          return
        }
        onOpen()
        stream = s
        if (done || timedOut) {
          kill()
          return
        }
        // End frames on both streams: done, even if a daemon the command started still holds them open.
        const ended = () => {
          const m = options.endMarkers
          if (!m || !out.endsWith(m.stdout) || !err.endsWith(m.stderr)) return
          finish(() => resolve(result(null)))
          s.close()
        }
        s.on('data', (b: Buffer) => {
          if (!out.push(b)) kill()
          else ended()
        })
        s.stderr.on('data', (b: Buffer) => {
          const own = group.push(b)
          if (own.length > 0) err.push(own)
          ended()
        })
        s.on('exit', (code: number | null) => {
          gotExit = true
          exitCode = typeof code === 'number' ? code : null
        })
        s.on('close', () => {
          if (!gotExit && !timedOut && !out.cut && this.dead) return finish(() => reject(this.dead))
          finish(() => resolve(result(timedOut || out.cut ? null : exitCode)))
        })
        s.end() // no stdin: like `ssh -n`, so commands that read it see EOF instead of hanging
      }
      try {
        client.exec(withGroupReport(command), onOpened)
      } catch (e) {
        onOpened(e as Error, undefined as unknown as ClientChannel) // 'Not connected': the connection just went away
      }
    })
  }

  /** Sends the kill for a timed-out command's process group on a channel of its own (best effort, bounded). */
  private killRemote(client: Client, pgid: number, sudo: boolean): void {
    const sent = new Promise<void>((resolve) => {
      const t = setTimeout(resolve, KILL_GRACE_MS)
      const done = () => (clearTimeout(t), resolve())
      const attempt = (left: number) => {
        try {
          client.exec(killGroupCommand(pgid, sudo), (err, s) => {
            // Refused while the server's MaxSessions is used up: retry once channels have closed.
            if (err) return left > 0 && !this.dead ? void setTimeout(() => attempt(left - 1), 100) : done()
            s.on('close', done)
            s.resume()
            s.stderr.resume()
            s.end()
          })
        } catch {
          done() // the connection just went away
        }
      }
      attempt(3)
    })
    this.killers.add(sent)
    void sent.then(() => this.killers.delete(sent))
  }

  private fail(reason: TransportFailure, detail: string, cause?: unknown, hint?: string): TransportError {
    const first = this.target.proxyJump[0] ?? this.target
    const jumps = this.target.proxyJump.length > 0 ? this.target.proxyJump.map(describe).join(' -> ') : undefined
    const proxy = first.proxyCommand === undefined ? undefined : `ProxyCommand "${first.proxyCommand}"`
    const via = [proxy, jumps].filter(Boolean).join(' -> ') || undefined
    return new TransportError({node: this.node, address: describe(this.target), reason, detail, via, hint, cause})
  }
}

class ChannelOpenError extends Error {}

/**
 * Channel.signal() is a no-op once stdin is ended (we end it at once, like `ssh -n`), although the request is
 * still valid on the wire: send it through the protocol object, which is what signal() does internally.
 */
function signalChannel(stream: ClientChannel, name: string): void {
  const s = stream as unknown as {outgoing?: {id?: number; state?: string}; _client?: {_protocol?: {signal?: (id: number, sig: string) => void}}}
  const id = s.outgoing?.id
  if ((s.outgoing?.state !== 'open' && s.outgoing?.state !== 'eof') || id === undefined) return
  try {
    s._client?._protocol?.signal?.(id, name)
  } catch {
    stream.signal(name) // internals changed: fall back to the public method
  }
}

/** Counting semaphore whose limit can only shrink. */
class Slots {
  inUse = 0
  private readonly waiters: Array<() => void> = []

  constructor(private limit: number) {}

  acquire(): Promise<void> {
    if (this.inUse < this.limit) {
      this.inUse++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiters.push(() => (this.inUse++, resolve())))
  }

  release(): void {
    this.inUse--
    if (this.inUse < this.limit) this.waiters.shift()?.()
  }

  shrinkTo(n: number): void {
    this.limit = Math.max(1, Math.min(this.limit, n))
  }
}


interface JumpLease {
  client: Client
  release(): void
}

interface PoolEntry {
  key: string
  client: Promise<Client>
  refs: number
  parent: PoolEntry | undefined
  /** Set once the connection is gone: the next acquire makes a new one. */
  dead: boolean
}

/**
 * Shares ProxyJump connections between the nodes of a fleet run: one connection per distinct chain prefix,
 * each node's own connection forwarded through it. Without it, N nodes behind one bastion open N bastion
 * connections at once, which sshd's MaxStartups (default 10:30:100) starts dropping. A bastion connection is
 * closed when the last node using it closes; errors carry no node name (each transport adds its own).
 */
export class SshJumpPool {
  /** Warnings from pooled connections (accepted unknown host keys, ...). */
  readonly warnings: string[] = []
  private readonly entries = new Map<string, PoolEntry>()

  async acquire(chain: readonly SshTarget[], options: HopOptions): Promise<JumpLease> {
    const entry = this.entry(chain, chain.length, options)
    try {
      const client = await entry.client
      let released = false
      return {
        client,
        release: () => {
          if (!released) (released = true), this.release(entry)
        },
      }
    } catch (err) {
      this.release(entry)
      throw err
    }
  }

  /** Closes every pooled connection (leases still out become unusable). */
  async close(): Promise<void> {
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(all.map((e) => e.client.then(endClient, () => undefined)))
  }

  /** Takes a reference on the entry for chain[0..n) and, transitively, on its parents. */
  private entry(chain: readonly SshTarget[], n: number, options: HopOptions): PoolEntry {
    const key = chain.slice(0, n).map(hopKey).join(' -> ')
    const existing = this.entries.get(key)
    if (existing && !existing.dead) {
      existing.refs++
      return existing
    }
    const parent = n > 1 ? this.entry(chain, n - 1, options) : undefined
    const hop = chain[n - 1]!
    const warn = (m: string) => {
      this.warnings.push(m)
      options.warn(m)
    }
    const entry = {key, refs: 1, parent, dead: false} as PoolEntry
    entry.client = (async () => {
      const sock = parent ? await forwardTo(await parent.client, chain[n - 2]!, hop) : undefined
      const c = await connectHop(hop, sock, true, {...options, warn})
      c.on('close', () => this.forget(entry)).on('error', () => this.forget(entry))
      return c
    })()
    entry.client.catch(() => this.forget(entry))
    this.entries.set(key, entry)
    return entry
  }

  private release(entry: PoolEntry): void {
    for (let e: PoolEntry | undefined = entry; e; e = e.parent) {
      if (--e.refs > 0) break // still used; it keeps its own reference on its parent
      this.forget(e)
      void e.client.then(endClient, () => undefined)
    }
  }

  private forget(entry: PoolEntry): void {
    entry.dead = true
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key)
  }
}

/** Two hops share a connection only if everything that decides how it is made is equal. */
function hopKey(t: SshTarget): string {
  return JSON.stringify([t.user, t.host, t.port, t.identityFiles, t.identitiesOnly, t.knownHostsFiles, t.strictHostKeyChecking, t.hostKeyAlias ?? null, t.identityAgent ?? null, t.proxyCommand ?? null])
}
