// `fix kubelet` and `fix conntrack`: the node repairs of src/app/repair run through the node-repair flow
// (src/app/fix/node-session.ts); the command confirms and prints.
import {describeSetting, describeValue, type KubeletEdit} from '../repair/kubelet-edit.js'
import {UsageError} from '../../errors.js'
import {applyConntrackFix, formatConntrackPlan, planConntrackFix} from '../repair/conntrack.js'
import {applyKubeletFix, formatKubeletPlan, type KubeletFixPlan, type KubeletFixRequest, planKubeletFix} from '../repair/kubelet.js'
import {decidePending, type PendingChoice, type PendingDifference} from '../repair/kubelet-pending.js'
import type {Environment} from '../../ports/environment.js'
import {type NodeRepairOutcome, type RepairSessionFlags, runNodeRepair} from './node-session.js'

type Confirm = (planText: string, question: string) => Promise<'apply' | 'dry-run' | 'declined'>
type Flags = RepairSessionFlags & {'dry-run'?: boolean}

/** Asks about one pending difference (on a terminal): apply it, keep the running value, or abort. */
export type ChoosePending = (d: PendingDifference, index: number, total: number) => Promise<PendingChoice>

/**
 * `fix kubelet`. When the restart would also apply pending differences between the files and the running kubelet:
 * --yes --apply-pending applies them, --apply-pending alone applies them after the usual question, a terminal asks
 * for each (`choose`: apply / keep the running value / abort), and anything else refuses (pendingRefusal). A kept
 * value is written back into its file with the change, validated, backed up and written like it (kubelet.ts).
 */
export function fixKubelet(
  req: {node: string; set: KubeletEdit[]; fromFinding?: string | undefined; waitTimeoutMs: number; applyPending?: boolean},
  flags: Flags & {yes?: boolean},
  env: Environment,
  confirm: Confirm,
  choose?: ChoosePending,
): Promise<NodeRepairOutcome & {kubeletPlan?: KubeletFixPlan}> {
  let final: KubeletFixPlan | undefined
  const base: KubeletFixRequest = req.fromFinding === undefined ? {node: req.node, set: req.set} : {node: req.node, fromFinding: req.fromFinding}
  return runNodeRepair(req.node, flags, env, {
    permissions: {
      what: `fix the kubelet of node ${req.node}`,
      // get the Node: its Ready condition is how the restart is verified; --from-finding reads the Services too.
      queries: [{verb: 'get', resource: 'nodes', name: req.node}, ...(req.fromFinding !== undefined ? [{verb: 'list', resource: 'services'}] : [])],
    },
    plan: async (deps) => {
      const plan = await planKubeletFix(deps, base)
      const refusal = pendingRefusal(plan, {yes: flags.yes, applyPending: req.applyPending, dryRun: flags['dry-run'], canAsk: choose !== undefined})
      if (refusal) throw refusal
      final = await decideEach(plan, {applyPending: req.applyPending, dryRun: flags['dry-run']}, choose, (keep) => planKubeletFix(deps, {...base, keep}))
      return final
    },
    changes: (plan) => plan.changes.length > 0,
    format: formatKubeletPlan,
    confirm: async (text) => {
      if (final?.abortedAt) {
        env.stderr.write(`Aborted at the pending difference ${final.abortedAt.field}: nothing was changed.\n`)
        return 'declined'
      }
      return confirm(text, confirmQuestion(req.node, final))
    },
    apply: (deps, plan) => applyKubeletFix(deps, plan, {waitTimeoutMs: req.waitTimeoutMs}),
  }).then((outcome) => (final ? {...outcome, kubeletPlan: final} : outcome))
}

function confirmQuestion(node: string, plan: KubeletFixPlan | undefined): string {
  const pending = plan?.pending.length ?? 0
  const kept = plan?.kept.length ?? 0
  const keptText = kept > 0 ? `, write back the ${kept} running value${kept === 1 ? '' : 's'} kept` : ''
  const pendingText = pending > 0 ? ` and the ${pending} pending difference${pending === 1 ? '' : 's'} listed` : ''
  return `Apply this change${keptText}${pendingText} to node ${node} and restart its kubelet`
}

/**
 * Decides each pending difference of `plan`: all `apply` with --apply-pending, undecided in a dry run, else asked
 * one by one. Kept running values re-plan through `replan` (the same validation, diff and write path as the
 * change); an abort returns the plan with `abortedAt`. The re-planned pending differences must be exactly those
 * answered `apply` (the node did not change in between), else nothing is changed.
 */
export async function decideEach(
  plan: KubeletFixPlan,
  o: {applyPending?: boolean | undefined; dryRun?: boolean | undefined},
  choose: ChoosePending | undefined,
  replan: (keep: Array<KubeletEdit & {file: string}>) => Promise<KubeletFixPlan>,
): Promise<KubeletFixPlan> {
  if (plan.pending.length === 0 || o.dryRun) return plan
  if (o.applyPending) return {...plan, pending: plan.pending.map((p) => ({...p, choice: 'apply' as const}))}
  if (!choose) return plan // pendingRefusal refused already
  const answers: PendingChoice[] = []
  for (const [i, p] of plan.pending.entries()) {
    const a = await choose(p, i, plan.pending.length)
    answers.push(a)
    if (a === 'abort') break
  }
  const d = decidePending(plan.pending, answers)
  if (d.kind === 'abort') return {...plan, abortedAt: d.at}
  const applied = d.decided.filter((p) => p.choice === 'apply')
  const kept = d.decided.filter((p) => p.choice === 'keep')
  if (kept.length === 0) return {...plan, pending: applied}
  const next = await replan(d.keep)
  const same = (a: PendingDifference, b: PendingDifference) => a.ptr === b.ptr && JSON.stringify(a.from) === JSON.stringify(b.from) && JSON.stringify(a.to) === JSON.stringify(b.to)
  const unasked = next.pending.filter((p) => !applied.some((q) => same(p, q)))
  if (unasked.length > 0 || next.pending.length !== applied.length) {
    throw new UsageError(
      `the kubelet's files or running configuration on ${plan.node} changed while asking (${[...new Set([...unasked.map((p) => p.field), ...applied.filter((q) => !next.pending.some((p) => same(p, q))).map((q) => q.field)])].join(', ')}); nothing was changed`,
      'Run the command again.',
    )
  }
  return {...next, pending: applied, kept}
}

/**
 * The restart would also apply differences nobody asked for here (KubeletFixPlan.pending): --yes alone does not
 * cover them, --yes --apply-pending does; on a terminal each is asked (canAsk); without one, and without --yes
 * --apply-pending, nothing is changed; --dry-run only prints.
 */
export function pendingRefusal(
  plan: Pick<KubeletFixPlan, 'node' | 'pending'>,
  o: {yes?: boolean | undefined; applyPending?: boolean | undefined; dryRun?: boolean | undefined; canAsk?: boolean | undefined},
): UsageError | undefined {
  const n = plan.pending.length
  if (n === 0 || o.dryRun || (o.yes && o.applyPending)) return undefined
  if (!o.yes && (o.canAsk || o.applyPending)) return undefined
  const what =
    `the kubelet restart on ${plan.node} would also apply ${n} pending difference${n === 1 ? '' : 's'} between its files and the running kubelet: ` +
    `${plan.pending.map((p) => `${describeSetting(p.field, p.from)} -> ${describeValue(p.to)}`).join('; ')}`
  if (o.yes) {
    return new UsageError(`${what}; nothing was changed`, 'Pass --apply-pending with --yes to apply them too, or revert them in the files first (see `kubectl node-doctor explain KUBELET-001`).')
  }
  return new UsageError(
    `${what}, and there is no terminal to ask about each; nothing was changed`,
    'Pass --yes --apply-pending to apply them too, run on a terminal to apply or keep each, or revert them in the files first (see `kubectl node-doctor explain KUBELET-001`).',
  )
}

export function fixConntrack(req: {node: string; namespace: string; name: string}, flags: Flags, env: Environment, confirm: Confirm): Promise<NodeRepairOutcome> {
  return runNodeRepair(req.node, flags, env, {
    permissions: {
      what: `fix conntrack on node ${req.node}`,
      queries: [
        {verb: 'get', resource: 'nodes', name: req.node},
        {verb: 'list', resource: 'services', namespace: req.namespace},
        {verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io', namespace: req.namespace},
      ],
    },
    plan: (deps) => planConntrackFix(deps, req),
    changes: (plan) => plan.deletions.length > 0,
    format: formatConntrackPlan,
    confirm: (text) => confirm(text, `Delete these conntrack entries on node ${req.node}`),
    apply: (deps, plan) => applyConntrackFix(deps, plan, req),
  })
}

/** `fix kubelet -o json`: what was planned, each pending difference with its choice, and how it ended. */
export interface KubeletFixResultJson {
  kind: 'KubeletFix'
  node: string
  status: 'applied' | 'unchanged' | 'dry-run' | 'not-applied' | 'aborted'
  message?: string
  auditLog?: string
  eventPosted?: boolean
  configFile?: string
  changes: Array<{path: string; settings: Array<{field: string; from: unknown; to: unknown; kept?: boolean}>}>
  /** Every pending difference: `running` (/configz), `files` (what the restart applies), the choice when made. */
  pending: Array<{field: string; running: unknown; files: unknown; origin: string; choice: 'apply' | 'keep' | 'undecided'; writtenTo?: string; keepUnavailable?: string}>
  pendingUnknown?: string
  abortedAt?: string
}

export function kubeletFixJson(node: string, outcome: NodeRepairOutcome & {kubeletPlan?: KubeletFixPlan}, o: {dryRun?: boolean | undefined}): KubeletFixResultJson {
  const plan = outcome.kubeletPlan
  const status: KubeletFixResultJson['status'] =
    outcome.status === 'applied' ? 'applied' : outcome.status === 'unchanged' ? 'unchanged' : plan?.abortedAt ? 'aborted' : o.dryRun ? 'dry-run' : 'not-applied'
  const pendingOf = (p: PendingDifference): KubeletFixResultJson['pending'][number] => ({
    field: p.field,
    running: p.from ?? null,
    files: p.to,
    origin: p.origin,
    choice: p.choice ?? 'undecided',
    ...('file' in p.keep ? (p.choice === 'keep' ? {writtenTo: p.keep.file} : {}) : {keepUnavailable: p.keep.unavailable}),
  })
  const out: KubeletFixResultJson = {
    kind: 'KubeletFix',
    node,
    status,
    changes: (plan?.changes ?? []).map((c) => ({path: c.path, settings: c.settings.map((s) => ({field: s.field, from: s.from ?? null, to: s.to, ...(s.kept ? {kept: true} : {})}))})),
    pending: [...(plan?.pending ?? []), ...(plan?.kept ?? [])].map(pendingOf),
  }
  if (plan) out.configFile = plan.configFile
  if (plan?.pendingUnknown) out.pendingUnknown = plan.pendingUnknown
  if (plan?.abortedAt) out.abortedAt = plan.abortedAt.field
  if (outcome.status === 'applied') {
    out.message = outcome.message
    out.auditLog = outcome.auditLocation
    out.eventPosted = outcome.eventPosted
  }
  return out
}
