// `preflight`, the CI gate: every check on the nodes collected live (like `check`, quietly) or read from a bundle
// (like `analyze`), then an optional baseline of accepted findings. The command writes the files and the summary.
import type {ProfileSelection} from '../core/checks/types.js'
import {applyBaseline, type BaselineEntry, parseBaseline} from '../core/baseline.js'
import type {Area, Report, ReportMetadata} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import {selectNodes} from '../core/select-nodes.js'
import {inFile, ParseError, UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {analyzeSnapshots} from './analyze.js'
import {type CheckFlags, collectForCheck} from './live/check.js'
import {collectLiveProbed} from './live/probe.js'

export type PreflightFlags = CheckFlags & {baseline?: string; 'from-bundle'?: string; probe?: boolean}

export interface PreflightResult {
  report: Report
  /** Baseline entries that expired or matched nothing. */
  warnings: string[]
}

export async function preflight(names: string[], flags: PreflightFlags, env: Environment, o: {areas: Area[] | undefined; profile?: ProfileSelection; tool: ReportMetadata['tool']; command: string}): Promise<PreflightResult> {
  const {areas} = o
  const profile = o.profile ? {profile: o.profile} : {}
  // Read the baseline first: a malformed file must fail before minutes of collection.
  const baseline = flags.baseline === undefined ? undefined : loadBaseline(flags.baseline, env)
  if (flags.probe && flags['from-bundle'] !== undefined) {
    throw new UsageError('--probe measures the live path between nodes; it does not apply to --from-bundle', 'A bundle collected with the probe keeps its record (the mtu-probe artifact) and NODE-019 judges it.')
  }

  const metadata: ReportMetadata = {generatedAt: new Date().toISOString(), tool: o.tool, command: o.command}
  let report: Report
  if (flags['from-bundle'] !== undefined) {
    const bundle = await env.readBundle(flags['from-bundle'])
    const nodes = pickBundleNodes(bundle.cluster, bundle.nodes, names, flags)
    report = analyzeSnapshots(bundle.cluster, nodes, {
      areas,
      ...profile,
      metadata: {
        ...metadata,
        ...(bundle.manifest.context ? {context: bundle.manifest.context} : {}),
        annotations: {bundleCreatedAt: bundle.manifest.createdAt},
      },
    })
  } else {
    // quiet: no progress line, even on a terminal.
    // --probe: the path-MTU probe over the same transports, each node as it is collected (app/live/probe.ts).
    const live = flags.probe
      ? await collectLiveProbed(names, {...flags, quiet: true}, env, {areas})
      : await collectForCheck(names, {...flags, quiet: true}, env, {...(areas ? {areas} : {}), version: o.tool.version})
    report = analyzeSnapshots(live.cluster, live.nodes, {areas, ...profile, metadata: {...metadata, context: live.access.context}})
  }

  const warnings: string[] = []
  if (baseline !== undefined) {
    const outcome = applyBaseline(report, baseline.entries, new Date().toISOString().slice(0, 10))
    report = outcome.report
    for (const e of outcome.expired) {
      warnings.push(`baseline ${baseline.file}:${e.line ?? '?'}: entry for ${e.id} expired on ${e.expires}; it no longer suppresses anything (${e.reason})`)
    }
    for (const e of outcome.unused) warnings.push(`baseline ${baseline.file}:${e.line ?? '?'}: entry for ${e.id} matched no finding`)
  }
  return {report, warnings}
}

function loadBaseline(file: string, env: Pick<Environment, 'readFile'>): {file: string; entries: BaselineEntry[]} {
  let text: string
  try {
    text = env.readFile(file)
  } catch (err) {
    throw new UsageError(`cannot read baseline ${file}: ${(err as Error).message}`)
  }
  try {
    return {file, entries: parseBaseline(text)}
  } catch (err) {
    if (err instanceof ParseError) {
      throw inFile(file, err) as Error
    }
    throw err
  }
}

/** Offline node selection: NODE names, -l over the bundle's Node objects, or every node in the bundle. */
function pickBundleNodes(cluster: ClusterSnapshot, nodes: NodeSnapshot[], names: string[], flags: {selector?: string; all?: boolean}): NodeSnapshot[] {
  if ([names.length > 0, flags.selector !== undefined, Boolean(flags.all)].filter(Boolean).length > 1) {
    throw new UsageError('choose nodes one way: NODE names, -l SELECTOR, or --all')
  }
  if (names.length > 0) {
    const unknown = names.filter((n) => !nodes.some((s) => s.node === n))
    if (unknown.length > 0) throw new UsageError(`${unknown.map((n) => `node "${n}"`).join(', ')} not in the bundle`)
    return nodes.filter((s) => names.includes(s.node))
  }
  if (flags.selector !== undefined) {
    let wanted: Set<string>
    try {
      wanted = new Set(selectNodes(cluster.nodes, {selector: flags.selector}).selected.map((n) => n.metadata.name))
    } catch (err) {
      if (err instanceof ParseError) throw new UsageError(err.message)
      throw err
    }
    const picked = nodes.filter((s) => wanted.has(s.node))
    if (picked.length === 0) throw new UsageError(`no nodes in the bundle match the selector "${flags.selector}"`)
    return picked
  }
  return nodes
}
