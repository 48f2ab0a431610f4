// Everything a use case in src/app may reach outside the process, as one injected object: the kubeconfig's API
// client, node transports (chosen by --via), the in-cluster agent's API, input files, bundles, the audit log, and
// stderr. The one implementation is src/transports/connect.ts; commands build it from their flags and pass it in,
// tests pass fakes. Every member is lazy: nothing is read or opened before a service asks for it.
import type {AuditActor} from '../core/model/audit.js'
import type {Node} from '../core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import type {AgentApi} from './agent.js'
import type {AuditSink} from './audit.js'
import type {ClusterReader, ClusterWriter, DebugPodApi} from './cluster.js'
import type {NodeTransport} from './node-transport.js'

/** Where progress lines and notes go (process.stderr in the CLI). */
export interface TextSink {
  write(text: string): unknown
  readonly isTTY?: boolean
}

/** The kubeconfig identity a run uses: named in reports and audit records. */
export interface ApiAccess {
  context: string
  server: string
  /** Kubeconfig user name; absent when the context names none. */
  user?: string
}

export type ClusterApi = ClusterReader & Required<ClusterWriter> & DebugPodApi

/** The API, once the kubeconfig is loaded (no request made yet). */
export interface ClusterConnection {
  access: ApiAccess
  api: ClusterApi
}

/** Opens node transports of one kind; close() releases what they share (bastion connections, leftover pods). */
export interface NodeConnector {
  readonly kind: NodeTransport['kind']
  connect(node: Node): Promise<NodeTransport>
  close(): Promise<void>
}

/** What an in-cluster agent run needs besides its options: the API, a fresh run id, the Ctrl-C cleanup hook. */
export interface AgentRunner {
  api: AgentApi
  runId: string
  registerCleanup(label: string, run: () => Promise<void>): () => void
}

/** A bundle written by `collect`, as read back. */
export interface SnapshotBundle {
  manifest: {createdAt: string; context?: string}
  cluster: ClusterSnapshot
  nodes: NodeSnapshot[]
}

/** What `collect` writes (docs/bundle.md). */
export interface NewBundle extends SnapshotBundle {
  manifest: {apiVersion: string; kind: 'Bundle'; createdAt: string; tool: {name: string; version: string}; context?: string; nodes: string[]}
}

export interface Environment {
  /** Loads the kubeconfig (throws UsageError for a bad one) and returns the API client. */
  cluster(): ClusterConnection
  /** The node transports --via names (UsageError for an unknown one); `warn` gets their warnings. */
  nodes(cluster: ClusterConnection, warn: (message: string) => void): NodeConnector
  agents(cluster: ClusterConnection): AgentRunner
  /** A user-given text input file ('-' = stdin); UsageError/InputError naming the file when it cannot be read. */
  readInput(path: string): string
  /** A file's text as is (UTF-8); the file system's error when it cannot be read. */
  readFile(path: string): string
  readBundle(path: string): Promise<SnapshotBundle>
  /** Writes a bundle directory, or a .tgz when the path ends so. */
  writeBundle(path: string, bundle: NewBundle): Promise<void>
  /** The audit log --audit-log (or NODE_DOCTOR_AUDIT_LOG, or the default location) names. */
  auditLog(flag: string | undefined): AuditSink
  /** Who is repairing: the local account and the kubeconfig identity. */
  actor(access: ApiAccess): AuditActor
  /** Saves backups (0600, never overwriting) into `backups/` next to the audit log; resolves with the path. */
  backupSaver(auditLocation: string): (name: string, content: string) => Promise<string>
  stderr: TextSink
}
