// Recording a repair: the local audit log (required) and an Event on the Node (best effort). Every `fix` command
// calls recordRepair once per node it touched, whatever the outcome.
import {AUDIT_API_VERSION, type AuditActor, type AuditOutcome, type AuditRecord} from '../../core/model/audit.js'
import type {AuditSink} from '../../ports/audit.js'
import {ClusterAccessError, type ClusterWriter} from '../../ports/cluster.js'

export interface RecordRepairDeps {
  audit: AuditSink
  /** When present (and it implements recordNodeEvent), the repair is also posted as an Event on the Node. */
  events?: Pick<ClusterWriter, 'recordNodeEvent'>
  /** Warnings (an Event that could not be posted) go here, e.g. to stderr. */
  warn: (message: string) => void
}

export interface RepairSummary {
  who: AuditActor
  node: string
  nodeUid?: string
  action: string
  target: string
  before: string
  after: string
  outcome: AuditOutcome
  message: string
  details?: AuditRecord['details']
  time: Date
}

/** Builds the audit record for a finished repair (pure). */
export function auditRecord(s: RepairSummary): AuditRecord {
  const r: AuditRecord = {
    apiVersion: AUDIT_API_VERSION,
    kind: 'RepairRecord',
    time: s.time.toISOString(),
    who: s.who,
    node: s.node,
    action: s.action,
    target: s.target,
    before: s.before,
    after: s.after,
    outcome: s.outcome,
    message: s.message,
  }
  if (s.details !== undefined) r.details = s.details
  return r
}

const EVENT_REASON: Record<AuditOutcome, string> = {applied: 'NodeDoctorRepair', 'rolled-back': 'NodeDoctorRollback', failed: 'NodeDoctorRepairFailed'}

/**
 * Appends the record to the audit log, then posts the Event. An Event that cannot be posted (403 included) is a
 * warning; a record that cannot be appended rejects (after the Event was tried), since the trail is required.
 * Resolves with whether the Event was posted.
 */
export async function recordRepair(s: RepairSummary, deps: RecordRepairDeps): Promise<{record: AuditRecord; eventPosted: boolean}> {
  const record = auditRecord(s)
  let auditError: unknown
  try {
    await deps.audit.append(record)
  } catch (err) {
    auditError = err
  }
  let eventPosted = false
  if (deps.events?.recordNodeEvent) {
    const by = [s.who.localUser && `${s.who.localUser}${s.who.host ? `@${s.who.host}` : ''}`, s.who.kubeUser && `kube user ${s.who.kubeUser}`].filter(Boolean).join(', ')
    try {
      await deps.events.recordNodeEvent({
        node: s.node,
        ...(s.nodeUid === undefined ? {} : {nodeUid: s.nodeUid}),
        type: s.outcome === 'applied' ? 'Normal' : 'Warning',
        reason: EVENT_REASON[s.outcome],
        action: s.action,
        message: `node-doctor ${s.action} (${s.outcome}) on ${s.target}: ${s.before} -> ${s.after}. ${s.message}${by ? ` By ${by}.` : ''}`.slice(0, 1024),
        time: s.time,
      })
      eventPosted = true
    } catch (err) {
      const why =
        err instanceof ClusterAccessError && err.forbidden
          ? 'not allowed to create events in namespace default'
          : (err as Error).message
      deps.warn(`warning: the repair was not recorded as an Event on node ${s.node} (${why}); it is in the audit log ${deps.audit.location}`)
    }
  }
  if (auditError !== undefined) throw auditError
  return {record, eventPosted}
}
