// The one place that picks transport implementations: from a command's flags, the Environment (src/ports/
// environment.ts) the app services run against — the kubeconfig and KubeClusterClient for the API, SSH / debug pod /
// local node transports by --via, the agent API, input files, bundles, the audit log. Commands call environment()
// and hand the result to one service; nothing else outside src/transports/<kind>/ imports an implementation.
import {readFileSync} from 'node:fs'
import {hostname, homedir, userInfo} from 'node:os'
import os from 'node:os'
import type {AuditActor} from '../core/model/audit.js'
import {nodeAddress} from '../core/select-nodes.js'
import {UsageError} from '../errors.js'
import type {AuditSink} from '../ports/audit.js'
import type {ApiAccess, ClusterConnection, Environment, NodeConnector} from '../ports/environment.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {auditLogPath, FileAuditSink} from './audit/file-audit-sink.js'
import {readBundle, writeBundle} from './bundle/bundle.js'
import {backupSaver} from './files/backup.js'
import {readInputFile} from './files/input-file.js'
import {KubeAgentApi} from './kube/agent-api.js'
import {KubeClusterClient} from './kube/client.js'
import {type KubeAccess, type KubeOptions, loadKubeConfig} from './kube/kubeconfig.js'
import {LocalTransport} from './local/local.js'
import {cleanupDebugPods, type LeftoverPod} from './pod/cleanup.js'
import {DEBUG_POD_SELECTOR, DEFAULT_POD_NAMESPACE, DebugPodTransport, newRunId} from './pod/debug-pod.js'
import {registerInterruptCleanup} from './pod/interrupt.js'
import {RunNamespace} from './pod/run-namespace.js'
import {resolveSshTarget} from './ssh/ssh-config.js'
import {SshJumpPool, SshTransport} from './ssh/ssh.js'

// What commands use directly: the debug-pod cleanup and input files (benchmarks).
export {cleanupDebugPods, type LeftoverPod, DEBUG_POD_SELECTOR, DEFAULT_POD_NAMESPACE, readInputFile}
export type {Bundle} from './bundle/bundle.js'

/** The flags that say how to reach the API and the nodes (kubectl's client flags and the NODE ACCESS group). */
export interface ConnectFlags extends KubeOptions {
  via?: string
  'address-type'?: string
  'ssh-user'?: string
  'ssh-identity'?: string[]
  'ssh-port'?: number
  'ssh-jump'?: string
  'ssh-config'?: string
  'insecure-ignore-host-key'?: boolean
  'pod-image'?: string
  'pod-namespace'?: string
}

/** The live flags' defaults for commands that examine one node (show views, proxy render|diff|trace, repairs). */
const SINGLE_NODE_CONNECT = {via: 'ssh', 'address-type': 'InternalIP'}

/** The kubeconfig behind each ClusterConnection handed out (debug pods need its KubeConfig). */
const kubeAccess = new WeakMap<ClusterConnection, KubeAccess>()

/** The Environment for a command run with these flags. */
export function environment(flags: ConnectFlags): Environment {
  const full = {...SINGLE_NODE_CONNECT, ...flags}
  return {
    cluster() {
      const access = loadKubeConfig(full)
      const connection: ClusterConnection = {access, api: new KubeClusterClient(access)}
      kubeAccess.set(connection, access)
      return connection
    },
    nodes: (cluster, warn) => nodeConnector(full, warn, () => kubeAccess.get(cluster) ?? loadKubeConfig(full)),
    agents: (cluster) => ({api: new KubeAgentApi(cluster.api as KubeClusterClient), runId: newRunId(), registerCleanup: registerInterruptCleanup}),
    readInput: readInputFile,
    readFile: (path) => readFileSync(path, 'utf8'),
    readBundle,
    writeBundle,
    auditLog: openAuditLog,
    actor: repairActor,
    backupSaver,
    stderr: process.stderr,
  }
}

/** A NodeTransport on this machine (the agent container collects its own node with it). */
export function localTransport(node: string): NodeTransport {
  return new LocalTransport(node)
}

export function openAuditLog(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): AuditSink {
  return new FileAuditSink(auditLogPath(flag, env, homedir()))
}

/** Who is repairing: the local account and the kubeconfig identity the API requests use. */
export function repairActor(access: Pick<ApiAccess, 'context' | 'user'>): AuditActor {
  let localUser = process.env['USER'] ?? ''
  try {
    localUser = userInfo().username
  } catch {
    // No passwd entry for this uid (containers): keep $USER.
  }
  const who: AuditActor = {localUser, host: hostname(), kubeContext: access.context}
  if (access.user !== undefined) who.kubeUser = access.user
  return who
}

type NodeFlags = ConnectFlags & {via: string; 'address-type': string}

function nodeConnector(flags: NodeFlags, warn: (message: string) => void, access: () => KubeAccess): NodeConnector {
  switch (flags.via) {
    case 'local':
      return {kind: 'local', connect: async (node) => new LocalTransport(node.metadata.name), close: async () => {}}
    case 'ssh': {
      const pool = new SshJumpPool()
      if (flags['insecure-ignore-host-key']) warn('WARNING: --insecure-ignore-host-key: node host keys are NOT verified; a man-in-the-middle can read and alter everything collected.')
      return {
        kind: 'ssh',
        connect: async (node) => {
          const address = nodeAddress(node, flags['address-type'])
          const target = resolveSshTarget({
            nodeName: node.metadata.name,
            ...(address ? {address} : {}),
            flags: {
              ...(flags['ssh-user'] ? {user: flags['ssh-user']} : {}),
              ...(flags['ssh-identity']?.[0] ? {identity: flags['ssh-identity'][0]} : {}),
              ...(flags['ssh-port'] ? {port: flags['ssh-port']} : {}),
              ...(flags['ssh-jump'] ? {jump: flags['ssh-jump']} : {}),
              ...(flags['ssh-config'] ? {sshConfigPath: flags['ssh-config']} : {}),
              insecureSkipHostKeyCheck: Boolean(flags['insecure-ignore-host-key']),
            },
            env: process.env,
            home: os.homedir(),
          })
          const transport = new SshTransport(node.metadata.name, target, {jumpPool: pool})
          await transport.connect()
          for (const w of transport.warnings) warn(`${node.metadata.name}: ${w}`)
          return transport
        },
        close: () => pool.close(),
      }
    }
    case 'pod':
      return debugPodConnector(flags, warn, access())
    default:
      throw new UsageError(`unknown --via ${flags.via}`, 'Use --via ssh, pod or local.')
  }
}

/**
 * One debug pod per node, all labelled with one run id, in the run's own namespace (created on the first node,
 * deleted at the end: transports/pod/run-namespace.ts) unless --pod-namespace names one; close() deletes any pod
 * a node's own close() missed, then the namespace.
 */
function debugPodConnector(flags: ConnectFlags, warn: (message: string) => void, access: KubeAccess): NodeConnector {
  const api = new KubeClusterClient(access)
  const runId = newRunId()
  const open = new Set<DebugPodTransport>()
  const runNamespace = flags['pod-namespace'] ? undefined : new RunNamespace(new KubeAgentApi(api), runId, warn)
  return {
    kind: 'pod',
    connect: async (node) => {
      const namespace = flags['pod-namespace'] ?? (await runNamespace!.ensure())
      const t = new DebugPodTransport(node.metadata.name, api, access.kc, {
        runId,
        warn,
        namespace,
        ...(flags['pod-image'] ? {image: flags['pod-image']} : {}),
      })
      open.add(t)
      await t.start()
      return t
    },
    close: async () => {
      await Promise.all([...open].map((t) => t.close()))
      await runNamespace?.close()
    },
  }
}
