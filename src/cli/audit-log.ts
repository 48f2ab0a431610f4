// What a `fix` command needs for its audit trail: the audit log chosen by --audit-log / NODE_DOCTOR_AUDIT_LOG and
// the actor (local user and host, kubeconfig context and user) recorded with every repair.
import {hostname, homedir, userInfo} from 'node:os'
import type {AuditActor} from '../core/model/audit.js'
import type {AuditSink} from '../ports/audit.js'
import {auditLogPath, FileAuditSink} from '../transports/audit/file-audit-sink.js'
import type {KubeAccess} from '../transports/kube/kubeconfig.js'

export function openAuditLog(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): AuditSink {
  return new FileAuditSink(auditLogPath(flag, env, homedir()))
}

/** Who is repairing: the local account and the kubeconfig identity the API requests use. */
export function repairActor(access: Pick<KubeAccess, 'context' | 'user'>): AuditActor {
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
