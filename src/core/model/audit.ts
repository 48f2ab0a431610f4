// The audit trail of repairs: one record per applied (or attempted) change, appended as a JSON line to the local
// audit log and summarised as a Kubernetes Event on the Node. Versioned like the Report.
import {API_GROUP} from './report.js'

export const AUDIT_API_VERSION = `${API_GROUP}/v1alpha1`

/** Who made the change: the local account and the Kubernetes identity the API saw. */
export interface AuditActor {
  /** Local OS user running node-doctor. */
  localUser: string
  /** Local host name. */
  host?: string
  /** Kubeconfig context and user the API requests went out as. */
  kubeContext?: string
  kubeUser?: string
}

/**
 * - `applied`: changed and verified; `rolled-back`: changed, verification failed, the old state was restored and verified;
 * - `failed`: the change or its rollback did not complete (the message says what state the node is in).
 */
export type AuditOutcome = 'applied' | 'rolled-back' | 'failed'

export interface AuditRecord {
  apiVersion: typeof AUDIT_API_VERSION
  kind: 'RepairRecord'
  /** RFC 3339 time the repair finished. */
  time: string
  who: AuditActor
  node: string
  /** The command, e.g. `fix kubelet`, `fix conntrack`, `fix kube-proxy`. */
  action: string
  /** What was changed: a file path, `Service ns/name`, `Pod ns/name`. */
  target: string
  /** One-line summaries of the state before and after (`clusterDNS: [10.0.0.10]`). */
  before: string
  after: string
  outcome: AuditOutcome
  /** What happened, in a sentence (why a rollback happened, where the backup is). */
  message: string
  /** Action-specific facts (backup path, deleted entry count, pod uid). */
  details?: Record<string, string | number | boolean>
}
