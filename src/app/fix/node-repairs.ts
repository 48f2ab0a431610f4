// `fix kubelet` and `fix conntrack`: the node repairs of src/app/repair run through the node-repair flow
// (src/app/fix/node-session.ts); the command confirms and prints.
import {describeSetting, describeValue, type KubeletEdit} from '../repair/kubelet-edit.js'
import {UsageError} from '../../errors.js'
import {applyConntrackFix, formatConntrackPlan, planConntrackFix} from '../repair/conntrack.js'
import {applyKubeletFix, formatKubeletPlan, type KubeletFixPlan, planKubeletFix} from '../repair/kubelet.js'
import type {Environment} from '../../ports/environment.js'
import {type NodeRepairOutcome, type RepairSessionFlags, runNodeRepair} from './node-session.js'

type Confirm = (planText: string, question: string) => Promise<'apply' | 'dry-run' | 'declined'>
type Flags = RepairSessionFlags & {'dry-run'?: boolean}

export function fixKubelet(
  req: {node: string; set: KubeletEdit[]; fromFinding?: string | undefined; waitTimeoutMs: number; applyPending?: boolean},
  flags: Flags & {yes?: boolean},
  env: Environment,
  confirm: Confirm,
): Promise<NodeRepairOutcome> {
  let pending = 0
  return runNodeRepair(req.node, flags, env, {
    permissions: {
      what: `fix the kubelet of node ${req.node}`,
      // get the Node: its Ready condition is how the restart is verified; --from-finding reads the Services too.
      queries: [{verb: 'get', resource: 'nodes', name: req.node}, ...(req.fromFinding !== undefined ? [{verb: 'list', resource: 'services'}] : [])],
    },
    plan: async (deps) => {
      const plan = await planKubeletFix(deps, req.fromFinding === undefined ? {node: req.node, set: req.set} : {node: req.node, fromFinding: req.fromFinding})
      pending = plan.pending.length
      const refusal = pendingRefusal(plan, {yes: flags.yes, applyPending: req.applyPending, dryRun: flags['dry-run']})
      if (refusal) throw refusal
      return plan
    },
    changes: (plan) => plan.changes.length > 0,
    format: formatKubeletPlan,
    confirm: (text) =>
      confirm(text, pending > 0 ? `Apply this change and the ${pending} pending difference${pending === 1 ? '' : 's'} listed to node ${req.node} and restart its kubelet` : `Apply this change to node ${req.node} and restart its kubelet`),
    apply: (deps, plan) => applyKubeletFix(deps, plan, {waitTimeoutMs: req.waitTimeoutMs}),
  })
}

/**
 * The restart would also apply differences nobody asked for here (KubeletFixPlan.pending): --yes alone does not
 * cover them, --yes --apply-pending does; asked on a terminal, the question names them; --dry-run only prints.
 */
export function pendingRefusal(plan: Pick<KubeletFixPlan, 'node' | 'pending'>, o: {yes?: boolean | undefined; applyPending?: boolean | undefined; dryRun?: boolean | undefined}): UsageError | undefined {
  const n = plan.pending.length
  if (n === 0 || !o.yes || o.applyPending || o.dryRun) return undefined
  return new UsageError(
    `the kubelet restart on ${plan.node} would also apply ${n} pending difference${n === 1 ? '' : 's'} between its files and the running kubelet: ` +
      `${plan.pending.map((p) => `${describeSetting(p.field, p.from)} -> ${describeValue(p.to)}`).join('; ')}; nothing was changed`,
    'Pass --apply-pending with --yes to apply them too, or revert them in the files first (see `kubectl node-doctor explain KUBELET-001`).',
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
