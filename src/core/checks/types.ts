// Checks: the catalog entry (data, shown by `checks` and `explain`) and the pure logic over snapshots.
import type {Area, Finding, Severity, Subject} from '../model/report.js'
import {NodeFacts} from '../facts/node-facts.js'
import type {Applicability} from '../facts/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'

/** A catalog entry. Ids are stable and never reused. */
export interface CheckSpec {
  /** Stable id, e.g. `IPT-001`, `KUBELET-010`. */
  id: string
  area: Area
  /** Default severity of the findings this check raises. */
  severity: Severity
  /** One line, shown in `checks`. */
  title: string
  /** What the check looked at (artifacts, objects, fields). */
  looksAt: string
  /** Why it matters. */
  why: string
  /** What to do about it. */
  remedy: string
  /** Snapshot inputs the check needs (artifact ids or `cluster:<resource>`); missing ones skip the check. */
  requires: string[]
  /**
   * Inputs needed only where the check applies, which the layout decides and `when` cannot say (flannel's VXLAN
   * neighbour and FDB entries on a flannel node): the check reports them missing itself once it knows it applies, so a
   * node where it does not apply says why ("not applicable: the CNI here is Calico"), not "missing input".
   */
  requiresWhereApplicable?: string[]
  /**
   * `incident` (the default when absent): something that breaks or is about to break traffic or the node.
   * `hygiene`: a hardening or tidiness setting (CIS-like) that breaks nothing today; run by `--profile hygiene|all`.
   */
  profile?: Profile
}

export type Profile = 'incident' | 'hygiene'
/** What `--profile` selects. */
export type ProfileSelection = Profile | 'all'
export const PROFILES: readonly ProfileSelection[] = ['incident', 'hygiene', 'all']

export function profileOf(spec: Pick<CheckSpec, 'profile'>): Profile {
  return spec.profile ?? 'incident'
}

export function inProfile(spec: Pick<CheckSpec, 'profile'>, selection: ProfileSelection | undefined): boolean {
  return selection === undefined || selection === 'all' || profileOf(spec) === selection
}

/** What a check hands back for each problem; the runner fills in id, node, area and the defaults from the spec. */
export interface FindingDraft {
  message: string
  subject: Subject
  evidence?: string[]
  severity?: Severity
  remedy?: string
  group?: string
}

export type CheckOutcome =
  | {status: 'passed'}
  | {status: 'failed'; findings: FindingDraft[]}
  | {status: 'skipped'; reason: string}

export interface CheckContext {
  /** The raw cluster objects. */
  cluster: ClusterSnapshot
  /** The raw node artifacts (prefer ctx.facts for anything that needs parsing). */
  node: NodeSnapshot
  /**
   * The node's parsed artifacts and derived facts, shared by every check on the node in a run. The runner always
   * supplies them; a caller outside the runner (a repair command evaluating a check) may leave them out: `factsOf`
   * then uses the facts shared per snapshot pair outside runs (NodeFacts.of).
   */
  facts?: NodeFacts
}

/** The context's facts; for a context built outside the runner, the facts of its snapshot pair. */
export function factsOf(ctx: CheckContext): NodeFacts {
  return ctx.facts ?? NodeFacts.of(ctx.cluster, ctx.node)
}

export interface Check {
  spec: CheckSpec
  /** When the check applies (proxy mode, dataplane, layout): the runner skips it elsewhere, saying why. */
  when?: Applicability
  /** Pure: no I/O, no clock. Must not throw for any snapshot content; a throw is recorded as a bug. */
  run(ctx: CheckContext): CheckOutcome
}

/** Turns drafts into findings for one node. */
export function toFindings(spec: CheckSpec, node: string, drafts: FindingDraft[]): Finding[] {
  return drafts.map((d) => {
    const f: Finding = {
      id: spec.id,
      node,
      area: spec.area,
      severity: d.severity ?? spec.severity,
      message: d.message,
      subject: d.subject,
      evidence: d.evidence ?? [],
      remedy: d.remedy ?? spec.remedy,
    }
    if (d.group !== undefined) f.group = d.group
    return f
  })
}
