// Over 500 lines: the pod spec, its start/wait/cleanup and the exec channel are one lifecycle; a split would export its private state.
// Debug-pod transport (`--via pod`): one privileged pod per node, pinned with spec.nodeName and sharing the host's
// network, PID and IPC namespaces. Every command goes through the pods/exec subresource (WebSocket, channel
// protocol v4/v5) as `nsenter -t 1 -m -u -i -n -p -- sh -c COMMAND`: PID 1 is the host's init (hostPID), so the
// command sees the host's mounts, hostname, IPC, network and processes, as `kubectl node-shell` does.
import {createHash, randomBytes} from 'node:crypto'
import {Writable} from 'node:stream'
import {Capture, stderrCap} from '../capture.js'
import {limits} from '../../core/limits/limits.js'
import {Exec, type KubeConfig} from '@kubernetes/client-node'
import type {KubeObject, Pod} from '../../core/model/k8s.js'
import {DEFAULT_POD_IMAGE, DEFAULT_POD_NAMESPACE, MANAGED_BY_LABEL, MANAGED_BY_VALUE, RUN_LABEL} from '../../core/model/managed-objects.js'
import {NodeDoctorError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'
import {ClusterAccessError, type DebugPodApi} from '../../ports/cluster.js'
import type {ExecOptions, ExecResult, NodeTransport} from '../../ports/node-transport.js'
import {registerInterruptCleanup} from './interrupt.js'

// The labels, the selector `cleanup` uses and the defaults: core/model/managed-objects.ts (one definition).
export {DEBUG_POD_SELECTOR, DEFAULT_POD_IMAGE, DEFAULT_POD_NAMESPACE, MANAGED_BY_LABEL, MANAGED_BY_VALUE, RUN_LABEL} from '../../core/model/managed-objects.js'
export const DEBUG_CONTAINER = 'node-doctor'
/** The pod's own bound: `sleep` and activeDeadlineSeconds, so a crashed node-doctor leaves no shell running longer. */
export const DEFAULT_LIFETIME_SECONDS = 3600

const DEFAULT_START_TIMEOUT_MS = 120_000
const DEFAULT_POLL_MS = 500
/** After the DELETE: how long to wait for the pod to disappear from the API. */
const DELETE_WAIT_MS = 5_000
/** Container states that will not fix themselves while we wait. */
const HOPELESS_WAITING = new Set(['ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'CreateContainerConfigError'])
const PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'])

/** A fresh run id: 8 hex digits, valid as a label value and a name part. */
export function newRunId(): string {
  return randomBytes(4).toString('hex')
}

/**
 * `node-doctor-<node>-<run>`, at most 62 characters so it is also a valid hostname label: dots become dashes, and a
 * long node name is shortened with a hash of the full name so two long names never collide.
 */
export function debugPodName(node: string, runId: string): string {
  let part = node.toLowerCase().replace(/[^a-z0-9-]/g, '-')
  if (part.length > 41) part = `${part.slice(0, 32).replace(/-+$/, '')}-${createHash('sha256').update(node).digest('hex').slice(0, 8)}`
  return `node-doctor-${part}-${runId}`.replace(/--+/g, '-')
}

/**
 * Where on the node a command runs. `host`: every namespace of the host's PID 1, then the host's `sh -c` (what
 * `kubectl node-shell` does). `host-network`: for hosts without a shell (Talos, Bottlerocket): the host's network,
 * UTS, IPC and PID namespaces, but the pod's own mount namespace, so the pod image's `sh` and tools run; a private
 * mount namespace then binds the host's /etc, /var, /run and /home (reached through /proc/1/root) over the image's,
 * so the plan's file reads see the host's files, not the image's.
 */
export type ExecScope = 'host' | 'host-network'

/** The host directories `host-network` commands see in place of the pod image's. */
export const HOST_BOUND_DIRS = ['etc', 'var', 'run', 'home'] as const

/** The argv each command runs as inside the pod (see ExecScope). */
export function nsenterArgv(command: string, scope: ExecScope = 'host'): string[] {
  if (scope === 'host') return ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'sh', '-c', command]
  const binds = `for d in ${HOST_BOUND_DIRS.join(' ')}; do [ -d "/proc/1/root/$d" ] && [ -d "/$d" ] && mount -o rbind "/proc/1/root/$d" "/$d"; done; exec sh -c "$0"`
  return ['nsenter', '-t', '1', '-u', '-i', '-n', '-p', '--', 'unshare', '-m', '--', 'sh', '-c', binds, command]
}

/**
 * The host has no `sh` for nsenter to run: util-linux says `nsenter: failed to execute sh: No such file or
 * directory`, busybox `nsenter: can't execute 'sh': No such file or directory`; both exit 127.
 */
export function hostHasNoShell(r: Pick<ExecResult, 'exitCode' | 'stderr'>): boolean {
  return r.exitCode === 127 && /nsenter: (?:failed to execute|can't execute) '?sh'?: No such file or directory/.test(r.stderr)
}

export interface DebugPodManifestOptions {
  node: string
  namespace: string
  name: string
  image: string
  runId: string
  lifetimeSeconds: number
}

/** The pod, exactly as it is POSTed. */
export function debugPodManifest(o: DebugPodManifestOptions): KubeObject & {spec: Record<string, unknown>} {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      labels: {[MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [RUN_LABEL]: o.runId},
      annotations: {'node-doctor.io/node': o.node},
    },
    spec: {
      // Bypasses the scheduler: the pod must land on this node or nowhere.
      nodeName: o.node,
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: o.lifetimeSeconds,
      terminationGracePeriodSeconds: 0,
      // A root shell on the node needs no API credentials; do not hand it any.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      tolerations: [{operator: 'Exists'}],
      containers: [
        {
          name: DEBUG_CONTAINER,
          image: o.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', String(o.lifetimeSeconds)],
          securityContext: {privileged: true},
          // Requests only: Burstable pods are admitted under memory pressure (BestEffort ones are not), and no limit
          // can OOM-kill a large iptables-save (commands run in this container's cgroup).
          resources: {requests: {cpu: '10m', memory: '16Mi'}},
        },
      ],
    },
  }
}

/** The parts of a pod's status that decide whether it started. */
interface PodStatusView {
  phase?: string
  reason?: string
  message?: string
  conditions?: Array<{type: string; status: string; reason?: string; message?: string}>
  containerStatuses?: Array<{
    name: string
    state?: {
      waiting?: {reason?: string; message?: string}
      running?: {startedAt?: string}
      terminated?: {reason?: string; message?: string; exitCode?: number}
    }
  }>
}

export type StartState =
  | {state: 'running'}
  | {state: 'waiting'; detail: string}
  | {state: 'failed'; detail: string; reason: 'image-pull' | 'pod-failed'}

/** Reads a debug pod's status: running, still coming up (and why), or never going to run (and why). */
export function debugPodStartState(pod: Pod): StartState {
  const status = (pod.status ?? {}) as PodStatusView
  const container = status.containerStatuses?.find((c) => c.name === DEBUG_CONTAINER)
  const terminated = container?.state?.terminated
  if (status.phase === 'Failed' || status.phase === 'Succeeded' || terminated) {
    const why = [status.reason, status.message].filter(Boolean).join(': ')
    const exited = terminated ? `container ${terminated.reason ?? 'terminated'}${terminated.exitCode === undefined ? '' : ` with exit code ${terminated.exitCode}`}${terminated.message ? `: ${terminated.message}` : ''}` : ''
    return {state: 'failed', reason: 'pod-failed', detail: `pod ${status.phase ?? 'stopped'}${why ? ` (${why})` : ''}${exited ? `, ${exited}` : ''}`}
  }
  if (status.phase === 'Running' && container?.state?.running) return {state: 'running'}
  const waiting = container?.state?.waiting
  if (waiting?.reason) {
    const detail = `container ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`
    if (HOPELESS_WAITING.has(waiting.reason)) return {state: 'failed', reason: PULL_REASONS.has(waiting.reason) ? 'image-pull' : 'pod-failed', detail}
    return {state: 'waiting', detail}
  }
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')
  if (scheduled) return {state: 'waiting', detail: `not scheduled: ${[scheduled.reason, scheduled.message].filter(Boolean).join(': ')}`}
  return {state: 'waiting', detail: `phase ${status.phase ?? 'unknown'}, no container status yet (no kubelet has reported on it: is the node Ready?)`}
}

/** The exit code a pods/exec status channel message reports; undefined when the exec itself failed. */
export function exitCodeFromStatus(status: ExecStatus): number | undefined {
  if (status.status === 'Success') return 0
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode')
  return cause?.message !== undefined && /^\d+$/.test(cause.message) ? Number(cause.message) : undefined
}

/** metav1.Status as the status channel (3) carries it. */
export interface ExecStatus {
  status?: string
  message?: string
  reason?: string
  details?: {causes?: Array<{reason?: string; message?: string}>}
}

export type DebugPodFailure =
  | 'create-refused'
  | 'pod-security'
  | 'admission-webhook'
  | 'image-pull'
  | 'start-timeout'
  | 'pod-failed'
  | 'pod-gone'
  | 'exec-refused'
  | 'exec-failed'
  | 'disconnected'
  | 'closed'

/** The debug pod could not be created, did not start, or exec into it failed (never a command's non-zero exit). */
export class DebugPodError extends NodeDoctorError {
  readonly node: string
  readonly pod: string
  readonly reason: DebugPodFailure

  constructor(options: {node: string; pod: string; reason: DebugPodFailure; detail: string; hint?: string; cause?: unknown}) {
    super(`debug pod ${options.pod} on node ${options.node}: ${options.detail}`, {exitCode: ExitCode.ACCESS, hint: options.hint, cause: options.cause})
    this.node = options.node
    this.pod = options.pod
    this.reason = options.reason
  }
}

/** client-node's Exec (what the transport uses of it); injectable for tests. */
export type PodExec = Pick<Exec, 'exec'>

export interface DebugPodTransportOptions {
  namespace?: string
  image?: string
  /** Shared by every pod of one node-doctor run (label node-doctor.io/run). Default: a fresh id. */
  runId?: string
  lifetimeSeconds?: number
  /** From creation until the container runs (default 2 min). */
  startTimeoutMs?: number
  pollIntervalMs?: number
  /** Problems that do not fail the run, e.g. a pod that could not be deleted. */
  warn?: (message: string) => void
  /** Default: client-node's Exec with the kubeconfig's credentials. */
  exec?: PodExec
}

/** The part of client-node's WebSocket (ws) the transport touches. */
interface ExecSocket {
  readyState: number
  close(): void
  terminate?(): void
  on(event: 'close', listener: () => void): unknown
}

const WS_CLOSED = 3

export class DebugPodTransport implements NodeTransport {
  readonly kind = 'pod' as const
  readonly namespace: string
  readonly podName: string
  readonly image: string
  readonly runId: string
  private readonly lifetimeSeconds: number
  private readonly startTimeoutMs: number
  private readonly pollMs: number
  private readonly warn: (message: string) => void
  private readonly podExec: PodExec
  private creating: Promise<Pod> | undefined
  private starting: Promise<void> | undefined
  private closing: Promise<void> | undefined
  private unregister: (() => void) | undefined
  private readonly sockets = new Set<ExecSocket>()

  constructor(
    readonly node: string,
    private readonly api: DebugPodApi,
    kc: KubeConfig,
    options: DebugPodTransportOptions = {},
  ) {
    this.namespace = options.namespace ?? DEFAULT_POD_NAMESPACE
    this.image = options.image ?? DEFAULT_POD_IMAGE
    this.runId = options.runId ?? newRunId()
    this.podName = debugPodName(node, this.runId)
    this.lifetimeSeconds = options.lifetimeSeconds ?? DEFAULT_LIFETIME_SECONDS
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
    this.pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS
    this.warn = options.warn ?? ((m) => process.stderr.write(`${m}\n`))
    this.podExec = options.exec ?? new Exec(kc)
  }

  /** namespace/name of the pod. */
  get pod(): string {
    return `${this.namespace}/${this.podName}`
  }

  /**
   * Creates the pod and waits until its container runs. Idempotent (exec calls it too). Rejects with a
   * DebugPodError carrying the API's reason, after deleting whatever it created.
   */
  start(): Promise<void> {
    if (this.starting) return this.starting
    if (this.closing) return Promise.reject(this.fail('closed', 'the transport was closed'))
    this.starting = this.createAndWait().catch(async (err: unknown) => {
      await this.close()
      throw err
    })
    return this.starting
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    await this.start()
    if (this.closing) throw this.fail('closed', 'the transport was closed')
    const used = this.scope
    const r = await this.runExec(command, options, used)
    if (used !== 'host' || !hostHasNoShell(r)) return r
    // Once per pod: the host has no shell (Talos, Bottlerocket). Say what changes, then run in the host's network.
    if (this.scope === 'host') {
      this.scope = 'host-network'
      this.warn(
        `${this.node}: the host has no shell (Talos, Bottlerocket and other immutable systems): commands run with the debug pod's own tools ` +
          `(${this.image}) in the host's network namespace, and read the host's /${HOST_BOUND_DIRS.join(', /')}; tools the image lacks are reported ` +
          'as not installed (pass --pod-image with an image that has iptables, ip, nft and ipvsadm). The kubelet\'s running configuration is read through the API.',
      )
    }
    return this.runExec(command, options, this.scope)
  }

  /** Where commands run now: `host` until the host turns out to have no shell (see ExecScope). */
  scope: ExecScope = 'host'

  /** Deletes the pod (grace period 0) and waits briefly until the API no longer has it. Idempotent, never rejects. */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async createAndWait(): Promise<void> {
    // Registered before the POST: an interrupt during creation waits for it, then deletes.
    try {
      this.unregister = registerInterruptCleanup(`debug pod ${this.pod}`, () => this.close())
    } catch (err) {
      throw this.fail('closed', (err as Error).message, undefined, err)
    }
    const manifest = debugPodManifest({
      node: this.node,
      namespace: this.namespace,
      name: this.podName,
      image: this.image,
      runId: this.runId,
      lifetimeSeconds: this.lifetimeSeconds,
    })
    this.creating = this.api.createPod(this.namespace, manifest)
    try {
      await this.creating
    } catch (err) {
      throw this.createError(err)
    }
    await this.waitRunning()
  }

  private async waitRunning(): Promise<void> {
    const started = Date.now()
    for (;;) {
      if (this.closing) throw this.fail('closed', 'the transport was closed while the pod was starting')
      let pod: Pod | undefined
      try {
        pod = await this.api.getPod(this.namespace, this.podName)
      } catch (err) {
        throw this.fail('pod-gone', `could not read the pod while it started: ${(err as Error).message}`, (err as NodeDoctorError).hint, err)
      }
      if (!pod) throw this.fail('pod-gone', 'the pod was deleted before it started (evicted, or removed by someone else)')
      const s = debugPodStartState(pod)
      if (s.state === 'running') return
      if (s.state === 'failed') {
        throw this.fail(
          s.reason,
          s.detail,
          s.reason === 'image-pull'
            ? `The node could not pull ${this.image}. Pass --pod-image with an image the node can pull (a mirror, in air-gapped clusters) that has nsenter, sh and sleep.`
            : `See: kubectl describe pod -n ${this.namespace} ${this.podName} (it is deleted now; run again to watch it).`,
        )
      }
      const waited = Date.now() - started
      if (waited >= this.startTimeoutMs) {
        throw this.fail('start-timeout', `not running after ${Math.round(waited / 1000)}s: ${s.detail}`, `Is node ${this.node} Ready (kubectl get node ${this.node})? Pulling ${this.image} may also be slow.`)
      }
      await new Promise((r) => setTimeout(r, Math.min(this.pollMs, this.startTimeoutMs - waited)))
    }
  }

  private createError(err: unknown): unknown {
    if (!(err instanceof ClusterAccessError)) return err
    const message = err.status?.message ?? err.message
    if (err.status?.code === 403 && /PodSecurity/.test(message)) {
      return this.fail(
        'pod-security',
        `Pod Security admission refused it: ${message}`,
        `Namespace ${this.namespace} must allow privileged pods (kubectl label namespace ${this.namespace} pod-security.kubernetes.io/enforce=privileged --overwrite), or pass --pod-namespace with one that does.`,
        err,
      )
    }
    // Validating/mutating webhooks (Kyverno, Gatekeeper, cloud policies) answer `admission webhook "NAME" denied the request: WHY`.
    // ValidatingAdmissionPolicies: `ValidatingAdmissionPolicy 'NAME' with binding 'B' denied request: WHY`.
    const webhook = /admission webhook "([^"]+)" denied the request/.exec(message) ?? /(ValidatingAdmissionPolicy '[^']+')(?: with binding '[^']+')? denied request/.exec(message)
    if (webhook) {
      return this.fail(
        'admission-webhook',
        `${webhook[1]!.startsWith('ValidatingAdmissionPolicy') ? webhook[1] : `the admission webhook ${webhook[1]}`} refused it: ${message}`,
        `A policy refuses privileged pods with host namespaces in ${this.namespace}. Ask for an exception for pods labelled ${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE} ` +
          '(or pass --pod-namespace with a namespace the policy exempts), or reach the nodes with --via ssh.',
        err,
      )
    }
    if (err.status?.code === 404 && /namespaces? "/.test(message)) {
      return this.fail('create-refused', `cannot create it: ${message}`, 'Pass --pod-namespace with an existing namespace.', err)
    }
    return this.fail('create-refused', `cannot create it: ${message}`, err.hint, err)
  }

  private runExec(command: string, options: ExecOptions, scope: ExecScope): Promise<ExecResult> {
    const max = options.maxBytes ?? limits().artifactBytes
    const out = new Capture(max)
    const err = new Capture(stderrCap(max))
    return new Promise<ExecResult>((resolve, reject) => {
      let socket: ExecSocket | undefined
      let done = false
      let timedOut = false
      let timer: NodeJS.Timeout | undefined
      const result = (exitCode: number | null): ExecResult => {
        const r: ExecResult = {exitCode, stdout: out.text(), stderr: err.text()}
        if (timedOut) r.timedOut = true
        if (out.cut) {
          r.truncated = true
          r.stderr += `\noutput exceeded ${max} bytes and was cut`
        }
        if (err.cut) r.stderr += `\nstderr exceeded ${stderrCap(max)} bytes and was cut`
        return r
      }
      const finish = (fn: () => void) => {
        if (done) return
        done = true
        clearTimeout(timer)
        if (socket) this.sockets.delete(socket)
        fn()
      }
      // Hanging up is how a command is stopped: the API server ends the stream, and the command, if it still
      // writes, dies of SIGPIPE; deleting the pod (close) kills whatever is left in its cgroup.
      const hangUp = () => {
        if (socket) killSocket(socket)
        finish(() => resolve(result(null)))
      }
      if (options.timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true
          hangUp()
        }, options.timeoutMs)
      }
      // End frames on both streams: done, even if a daemon the command started still holds them open.
      const ended = () => {
        const m = options.endMarkers
        if (m && out.endsWith(m.stdout) && err.endsWith(m.stderr)) hangUp()
      }
      const stdout = sink(out, hangUp, ended)
      const stderr = sink(err, () => undefined, ended)
      const onStatus = (status: ExecStatus) => {
        const code = exitCodeFromStatus(status)
        if (code !== undefined) return finish(() => resolve(result(code)))
        const message = status.message ?? JSON.stringify(status)
        finish(() =>
          reject(
            this.fail(
              'exec-failed',
              `exec failed: ${message}`,
              /nsenter|executable file not found|no such file/i.test(message) ? `The pod image ${this.image} must provide nsenter and sh (--pod-image).` : undefined,
            ),
          ),
        )
      }
      this.podExec
        .exec(this.namespace, this.podName, DEBUG_CONTAINER, nsenterArgv(command, scope), stdout, stderr, null, false, (s) => onStatus(s as ExecStatus))
        .then(
          (ws: unknown) => {
            const s = ws as ExecSocket
            if (done) return killSocket(s)
            socket = s
            this.sockets.add(s)
            const closed = () =>
              finish(() =>
                reject(
                  this.closing
                    ? this.fail('closed', 'the transport was closed while a command ran')
                    : this.fail('disconnected', 'the exec stream closed without reporting an exit status (pod deleted or API server connection lost)'),
                ),
              )
            if (s.readyState === WS_CLOSED) closed()
            else s.on('close', closed)
          },
          (e: unknown) => finish(() => reject(this.execConnectError(e))),
        )
    })
  }

  private execConnectError(e: unknown): DebugPodError {
    const message = (e as {message?: string})?.message ?? (e as {error?: Error})?.error?.message ?? String(e)
    const code = Number(/Unexpected server response: (\d+)/.exec(message)?.[1] ?? 0)
    if (code === 403) {
      return this.fail('exec-refused', `the API server refused the exec (403 Forbidden)`, `node-doctor needs permission to create pods/exec in namespace ${this.namespace} (check: kubectl auth can-i create pods/exec -n ${this.namespace}).`, e)
    }
    if (code === 404) return this.fail('pod-gone', 'the pod no longer exists (404 on exec)', undefined, e)
    if (code !== 0) return this.fail('exec-refused', `the API server refused the exec (HTTP ${code}): is the pod still running?`, undefined, e)
    return this.fail('exec-failed', `cannot open the exec stream: ${message}`, undefined, e)
  }

  private async shutdown(): Promise<void> {
    for (const s of this.sockets) killSocket(s)
    this.sockets.clear()
    const pod = await this.creating?.catch(() => undefined)
    if (pod) {
      try {
        await this.api.deletePod(this.namespace, this.podName, {gracePeriodSeconds: 0, ...(pod.metadata.uid ? {uid: pod.metadata.uid} : {})})
        await this.waitGone()
      } catch (err) {
        if (!(err instanceof ClusterAccessError && err.status?.code === 404)) {
          this.warn(
            `WARNING: could not delete debug pod ${this.pod} on node ${this.node}: ${(err as Error).message}. Delete it with: kubectl node-doctor cleanup --pod-namespace ${this.namespace}`,
          )
        }
      }
    }
    this.unregister?.()
  }

  /** The DELETE was accepted; waiting is a courtesy, so a failed read ends it quietly. */
  private async waitGone(): Promise<void> {
    const end = Date.now() + DELETE_WAIT_MS
    while (Date.now() < end) {
      const pod = await this.api.getPod(this.namespace, this.podName).catch(() => undefined)
      if (pod === undefined) return
      await new Promise((r) => setTimeout(r, Math.min(this.pollMs, 250)))
    }
  }

  private fail(reason: DebugPodFailure, detail: string, hint?: string, cause?: unknown): DebugPodError {
    return new DebugPodError({node: this.node, pod: this.pod, reason, detail, hint, cause})
  }
}

function killSocket(s: ExecSocket): void {
  if (s.terminate) s.terminate()
  else s.close()
}

/** A Writable that feeds a Capture; `onFull` once the capture refuses more. */
function sink(capture: Capture, onFull: () => void, onData: () => void = () => undefined): Writable {
  const w = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!capture.push(chunk)) onFull()
      else onData()
      callback()
    },
  })
  w.on('error', () => undefined) // a frame after the status (write after end) must not crash the process
  return w
}

