// `proxy render|diff --mode iptables` (the default): the rules kube-proxy's iptables proxier would program, from
// --objects files or live for a NODE, and their semantic diff against the node's iptables-save as a Report
// (with the other backend's dump, KUBE-* chains there too: PROXY-010).
import {diffRulesetAgainstDump} from '../../core/checks/iptables/diff.js'
import type {IptablesDifference} from '../../core/diff/iptables.js'
import {dualBackendResult} from '../../core/checks/proxy-mode/dual-backend-report.js'
import {type IptablesDump, parseIptablesSave} from '../../core/parse/iptables-save.js'
import {generateIptablesRestore} from '../../core/proxier/iptables/generate.js'
import {serializeSave} from '../../core/proxier/iptables/save.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import type {LiveFlags} from '../live/targets.js'
import {describeRender, parseInputFile, pastedIptablesDump, renderHeader, type ProxierFlagValues, type ProxyIO, type ProxyMeta, resolveProxierInput, withPastedInput} from './input.js'
import {checkProxierForm, liveProxier} from './live.js'
import {diffLines} from '../dashboard/service-detail.js'
import {type ProxyDiff, proxyDiffReport, type ServiceRuleDiff} from './report.js'

export interface IptablesFlagValues extends ProxierFlagValues {
  'iptables-save'?: string
  'other-backend-save'?: string
  /** render: `restore` (the iptables-restore input) or `save` (the iptables-save view). */
  format?: string
}

function tell(render: RenderInput, io: ProxyIO): void {
  if (io.verbose) io.note(describeRender(render))
  if (!io.quiet) for (const n of render.notes) io.note(`note: ${n}`)
}

/** `proxy render [--mode iptables] [NODE]`: the restore input, or the save view with --format save. */
export async function renderIptables(node: string | undefined, flags: IptablesFlagValues & Partial<LiveFlags>, env: Environment, io: ProxyIO): Promise<string> {
  const render = node !== undefined ? (await liveProxier(node, flags, env)).render : resolveProxierInput(flags, env)
  tell(render, io)
  const out = generateIptablesRestore(render.input)
  return renderHeader(render, 'iptables', node !== undefined, io) + (flags.format === 'save' ? serializeSave(out.ruleset) : out.text)
}

/** `proxy diff [--mode iptables] (--iptables-save FILE | NODE)`: the Report, and the rule diff per Service port. */
export async function diffIptables(node: string | undefined, flags: IptablesFlagValues & Partial<LiveFlags>, env: Environment, io: ProxyIO, meta: ProxyMeta): Promise<ProxyDiff> {
  checkProxierForm(node, flags, '--iptables-save', flags['iptables-save'])
  if (node !== undefined) {
    const live = await liveProxier(node, flags, env)
    return iptablesDiffReport(live.render, live.dump, meta, live.context)
  }
  const dump = parseInputFile(env, flags['iptables-save']!, (text) => parseIptablesSave(text), {io, read: pastedIptablesDump()})
  const family = flags['ip-family'] as 'ipv4' | 'ipv6' | undefined
  if (family && dump.familySource === 'header' && dump.family !== family) {
    throw new UsageError(`--ip-family ${family} but ${flags['iptables-save']} is ${dump.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output`)
  }
  const render = resolveProxierInput(flags, env, family ?? (dump.familySource === 'default' ? undefined : dump.family))
  if (render.input.options.family !== dump.family && dump.familySource !== 'default') {
    throw new UsageError(`the dump is ${dump.family} but the proxier renders ${render.input.options.family}`, 'Pass --ip-family to choose.')
  }
  tell(render, io)
  const other = flags['other-backend-save'] === undefined ? undefined : env.readInput(flags['other-backend-save'])
  return withPastedInput(iptablesDiffReport(render, dump, meta, undefined, other), io)
}

function iptablesDiffReport(render: RenderInput, dump: IptablesDump, meta: ProxyMeta, context?: string, otherBackend?: string): ProxyDiff {
  const {ruleset} = generateIptablesRestore(render.input)
  const node = render.node.metadata.name
  const outcome = diffRulesetAgainstDump(ruleset, dump, node)
  if (otherBackend !== undefined) {
    const dual = dualBackendResult(node, dump, otherBackend)
    outcome.results.push(dual.result)
    outcome.findings.push(...dual.findings)
  }
  const report = proxyDiffReport(render, outcome, {...meta, context}, {ipFamily: ruleset.family, ...(dump.backend ? {iptablesBackend: dump.backend} : {})})
  return {report, ruleDiff: ruleDiffByService(outcome.differences)}
}

/**
 * The differences as `-`/`+` lines (the dashboard's Service view, app/dashboard/service-detail.ts), per Service
 * port: the ones no Service port owns (a missing jump from a built-in chain breaks them all) first, then by name.
 */
export function ruleDiffByService(differences: readonly IptablesDifference[]): ServiceRuleDiff[] {
  const groups = new Map<string | undefined, IptablesDifference[]>()
  for (const d of differences) {
    const group = d.kind === 'missing-builtin-jump' ? undefined : d.group
    groups.set(group, [...(groups.get(group) ?? []), d])
  }
  // Sorted as entries: Array.prototype.sort puts undefined elements last without asking the comparator.
  const entries = [...groups.entries()].sort(([a], [b]) => (a === b ? 0 : a === undefined ? -1 : b === undefined ? 1 : a < b ? -1 : 1))
  return entries.map(([service, list]) => ({...(service === undefined ? {} : {service}), lines: diffLines(list)}))
}
