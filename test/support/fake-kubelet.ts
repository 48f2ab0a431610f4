// The "kubelet" half of the fake API server: what happens to pods created through it (Pending → Running, image
// pull failures, Pod Security admission) and the pods/exec subresource over WebSocket, with the channel protocol
// kube-apiserver and the kubelet speak (v4/v5.channel.k8s.io: one byte of channel, then data; 1 stdout, 2 stderr,
// 3 a metav1.Status JSON ending the session). Exec runs the command for real: in the network namespace the test
// maps the pod's node to (`ip netns exec`), or on this machine for unmapped nodes.
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import type http from 'node:http'
import {createRequire} from 'node:module'
import {constants} from 'node:os'
import type {Duplex} from 'node:stream'
import type {KubeObject} from '../../src/core/model/k8s.js'

export interface FakeKubeletOptions {
  /** Node name → network namespace standing in for that node's host; exec into its pods runs there. */
  netns?: Record<string, string>
  /** Delay (ms) before a created pod on an existing Node becomes Running (or starts failing its image pull). */
  startDelayMs?: number
  /** Images no node can pull: their pods go ErrImagePull, then ImagePullBackOff, and stay Pending. */
  unpullableImages?: string[]
  /**
   * Called once a pod is Running on its node (e.g. to let a test play the part of the new kube-proxy: re-program a
   * namespace's rules, or of an agent pod: set its log). Errors are the test's own and are rethrown asynchronously.
   */
  onRunning?: (pod: KubeObject, node: KubeObject) => void
  /**
   * Nodes whose host has no shell (Talos, Bottlerocket): an nsenter into PID 1's mount namespace (`-m`) fails
   * there as util-linux's does when the target root has no `sh` (exit 127); nsenter without `-m` runs the command.
   */
  hostsWithoutShell?: string[]
}

/** One finished exec session. */
export interface ExecRecord {
  namespace: string
  pod: string
  container: string
  node: string
  netns?: string
  /** The argv the client asked for (query `command` parameters). */
  command: string[]
  protocol: string
  exitCode: number | null
  /** The client closed the stream before the command ended (the command was then killed). */
  hungUp: boolean
}

/** The subset of the `ws` package's server and socket the fake uses (ws ships no types; it is client-node's dependency). */
export interface WsSocket {
  readyState: number
  send(data: Buffer): void
  close(code?: number): void
  terminate(): void
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this
  on(event: 'close', listener: () => void): this
  on(event: 'error', listener: (err: Error) => void): this
}

export interface WsServer {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, callback: (ws: WsSocket) => void): void
  close(): void
}

const require = createRequire(import.meta.url)

/** A `ws` server without its own HTTP listener: upgrades are handed to it, and it answers with `protocol`. */
export function createWsServer(): WsServer {
  const {WebSocketServer} = require('ws') as {
    WebSocketServer: new (options: {noServer: true; handleProtocols: (offered: Set<string>) => string | false}) => WsServer
  }
  return new WebSocketServer({noServer: true, handleProtocols: (offered) => negotiateChannelProtocol([...offered]) ?? false})
}

/** The channel protocol the API server picks from a client's offer (it prefers the newest it knows). */
export function negotiateChannelProtocol(offered: string[]): string | undefined {
  return ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((p) => offered.includes(p))
}

const CHANNEL = {stdin: 0, stdout: 1, stderr: 2, error: 3, close: 255} as const

/**
 * The Status the kubelet writes on the error channel when the command ended: Success for exit 0, otherwise
 * NonZeroExitCode with the code as an ExitCode cause (kubelet cri/streaming/remotecommand/exec.go).
 */
export function exitStatus(exitCode: number, argv: string[]): Record<string, unknown> {
  if (exitCode === 0) return {metadata: {}, status: 'Success'}
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: {causes: [{reason: 'ExitCode', message: String(exitCode)}]},
  }
}

/**
 * Runs one exec session on an open WebSocket. `nsenter ... --` is dropped from the argv: entering PID 1's
 * namespaces means "the host", which the node's network namespace (or this machine) stands for. Returns a kill
 * function (pod deleted, server closing).
 */
export function runExecSession(
  ws: WsSocket,
  o: {argv: string[]; netns?: string; stdin: boolean; stdout: boolean; stderr: boolean; hostWithoutShell?: boolean},
  done: (r: {exitCode: number | null; hungUp: boolean}) => void,
): () => void {
  let argv = o.argv
  if (argv[0] === 'nsenter') {
    const own = argv.slice(1, argv.indexOf('--'))
    argv = argv.slice(argv.indexOf('--') + 1)
    // util-linux nsenter exec()s the command inside the host's root: no sh there.
    if (o.hostWithoutShell && own.includes('-m')) argv = ['sh', '-c', `echo "nsenter: failed to execute ${argv[0]}: No such file or directory" >&2; exit 127`]
  }
  const full = o.netns ? ['ip', 'netns', 'exec', o.netns, ...argv] : argv
  let finished = false
  let hungUp = false
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState === 1) ws.send(Buffer.concat([Buffer.from([channel]), data]))
  }
  const end = (exitCode: number | null, status: Record<string, unknown>) => {
    if (finished) return
    finished = true
    if (!hungUp) {
      send(CHANNEL.error, Buffer.from(JSON.stringify(status)))
      ws.close(1000)
    }
    done({exitCode, hungUp})
  }
  // kubelet: an empty message on the lowest writable channel tells the client the streams are ready.
  send(o.stdout ? CHANNEL.stdout : o.stderr ? CHANNEL.stderr : CHANNEL.error, Buffer.alloc(0))
  // Own process group, so a hang-up kills the whole command (sh and its children), as the runtime would.
  const child = spawn(full[0]!, full.slice(1), {stdio: [o.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], detached: true})
  const kill = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  child.on('error', (err) => {
    end(null, {
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: error executing command in container: failed to exec in container: exec: "${full[0]}": ${err.message}: unknown`,
      reason: 'InternalError',
      details: {causes: [{message: `error executing command in container: exec: "${full[0]}": ${err.message}`}]},
      code: 500,
    })
  })
  child.stdout!.on('data', (d: Buffer) => o.stdout && send(CHANNEL.stdout, d))
  child.stderr!.on('data', (d: Buffer) => o.stderr && send(CHANNEL.stderr, d))
  child.on('close', (code, signal) => {
    // The runtime reports a signalled command as 128 + signal number (137 for SIGKILL).
    const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)
    end(exitCode, exitStatus(exitCode, o.argv))
  })
  ws.on('message', (data) => {
    if (!o.stdin || data.length === 0) return
    if (data[0] === CHANNEL.stdin) child.stdin?.write(data.subarray(1))
    // v5: the client half-closes stdin with [255, 0].
    if (data[0] === CHANNEL.close && data[1] === CHANNEL.stdin) child.stdin?.end()
  })
  ws.on('error', () => undefined)
  ws.on('close', () => {
    if (finished) return
    hungUp = true
    kill()
  })
  return () => {
    kill()
    ws.terminate()
  }
}

/** The baseline Pod Security violations of a pod, worded as pod-security-admission words them; [] when none. */
export function baselineViolations(pod: KubeObject): string[] {
  const spec = ((pod as {spec?: Record<string, unknown>}).spec ?? {}) as {
    hostNetwork?: boolean
    hostPID?: boolean
    hostIPC?: boolean
    containers?: Array<{name: string; securityContext?: {privileged?: boolean}}>
    initContainers?: Array<{name: string; securityContext?: {privileged?: boolean}}>
    volumes?: Array<{name: string; hostPath?: unknown}>
  }
  const out: string[] = []
  const host = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true).map((k) => `${k}=true`)
  if (host.length > 0) out.push(`host namespaces (${host.join(', ')})`)
  const privileged = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].filter((c) => c.securityContext?.privileged === true).map((c) => `"${c.name}"`)
  if (privileged.length > 0) out.push(`privileged (${privileged.length === 1 ? 'container' : 'containers'} ${privileged.join(', ')} must not set securityContext.privileged=true)`)
  const hostPath = (spec.volumes ?? []).filter((v) => v.hostPath !== undefined).map((v) => `"${v.name}"`)
  if (hostPath.length > 0) out.push(`hostPath volumes (${hostPath.length === 1 ? 'volume' : 'volumes'} ${hostPath.join(', ')})`)
  return out
}

function rfc3339(d = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** Status of a pod the kubelet has started: Running, every container running and ready. */
export function runningPodStatus(pod: KubeObject, node: KubeObject): Record<string, unknown> {
  const spec = (pod as {spec?: {hostNetwork?: boolean; containers?: Array<{name: string; image?: string}>}}).spec ?? {}
  const hostIP = (node as {status?: {addresses?: Array<{type: string; address: string}>}}).status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '192.168.0.1'
  const now = rfc3339()
  const conditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({type, status: 'True', lastProbeTime: null, lastTransitionTime: now}))
  return {
    phase: 'Running',
    conditions,
    hostIP,
    hostIPs: [{ip: hostIP}],
    ...(spec.hostNetwork ? {podIP: hostIP, podIPs: [{ip: hostIP}]} : {}),
    startTime: now,
    containerStatuses: (spec.containers ?? []).map((c) => ({
      name: c.name,
      state: {running: {startedAt: now}},
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c.image,
      imageID: '',
      containerID: `containerd://${randomBytes(32).toString('hex')}`,
      started: true,
    })),
    qosClass: 'Burstable',
  }
}

/** Status of a pod whose image cannot be pulled: Pending, the container waiting with the kubelet's reason. */
export function pullFailureStatus(pod: KubeObject, reason: 'ErrImagePull' | 'ImagePullBackOff'): Record<string, unknown> {
  const containers = (pod as {spec?: {containers?: Array<{name: string; image?: string}>}}).spec?.containers ?? []
  return {
    phase: 'Pending',
    conditions: [{type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339()}],
    containerStatuses: containers.map((c) => ({
      name: c.name,
      state: {
        waiting: {
          reason,
          message:
            reason === 'ImagePullBackOff'
              ? `Back-off pulling image "${c.image}"`
              : `rpc error: code = NotFound desc = failed to pull and unpack image "${c.image}": failed to resolve reference "${c.image}": ${c.image}: not found`,
        },
      },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: c.image,
      imageID: '',
      started: false,
    })),
    qosClass: 'Burstable',
  }
}

/** Status of a pod whose node does not exist: Pending, never scheduled. */
export function unschedulableStatus(nodeName: string | undefined, nodeCount: number): Record<string, unknown> {
  return {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: rfc3339(),
        reason: 'Unschedulable',
        message: nodeName ? `0/${nodeCount} nodes are available: node "${nodeName}" not found.` : `0/${nodeCount} nodes are available: no scheduler in the fake API server.`,
      },
    ],
    qosClass: 'Burstable',
  }
}

export {rfc3339}
