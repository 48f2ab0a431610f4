// The dashboard's data: one check run after another, nodes analysed one by one as their snapshots arrive and merged
// into one Report (fleetReport). A pure reducer over run events; events of an older run (after `r`) are ignored.
import {analyzeSnapshots, type ProfileSelection} from '../app/analyze.js'
import {
  buildReport,
  type Area,
  type Assumption,
  type CheckResult,
  type CollectionError,
  type Finding,
  type NodeLayout,
  type Report,
  type ReportMetadata,
} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import type {NodeProgress, NodeState} from './model.js'

/** One node's share of a Report: what analysing its snapshot alone gives, without the cluster-wide errors. */
export interface NodeAnalysis {
  snapshot: NodeSnapshot
  /** The cluster snapshot it was analysed against (the service view needs the same pair). */
  cluster: ClusterSnapshot
  results: CheckResult[]
  findings: Finding[]
  /** The node's collection errors and any check that failed on it. */
  errors: CollectionError[]
  /** The node's resolved layout (core/layout), for the report's node summary. */
  layout?: NodeLayout
  /** What its expected kube-proxy state assumed (NodeSummary.assumptions). */
  assumptions?: Assumption[]
}

/**
 * Analyses one node. Checks run per node, so merging these (mergeReport) gives the Report analyzeSnapshots gives
 * for all nodes at once; a test holds the two equal.
 */
export function analyzeNode(cluster: ClusterSnapshot, snapshot: NodeSnapshot, options: {metadata: ReportMetadata; areas?: readonly Area[]; profile?: ProfileSelection}): NodeAnalysis {
  const r = analyzeSnapshots(cluster, [snapshot], {metadata: options.metadata, ...(options.areas ? {areas: options.areas} : {}), ...(options.profile ? {profile: options.profile} : {})})
  const clusterErrors = new Set(cluster.errors)
  const layout = r.nodes[0]?.layout
  const assumptions = r.nodes[0]?.assumptions
  return {snapshot, cluster, results: r.results, findings: r.findings, errors: r.collectionErrors.filter((e) => !clusterErrors.has(e)), ...(layout ? {layout} : {}), ...(assumptions ? {assumptions} : {})}
}

/** The Report of the nodes analysed so far (in `nodes` order, missing ones left out). */
export function mergeReport(metadata: ReportMetadata, cluster: ClusterSnapshot, nodes: readonly string[], analyses: ReadonlyMap<string, NodeAnalysis>): Report {
  const done = nodes.flatMap((n) => {
    const a = analyses.get(n)
    return a ? [a] : []
  })
  return buildReport({
    metadata,
    nodes: done.map((a) => ({
      name: a.snapshot.node,
      ...(a.snapshot.durationMs === undefined ? {} : {durationMs: a.snapshot.durationMs}),
      ...(a.layout ? {layout: a.layout} : {}),
      ...(a.assumptions ? {assumptions: a.assumptions} : {}),
    })),
    results: done.flatMap((a) => a.results),
    findings: done.flatMap((a) => a.findings),
    collectionErrors: [...cluster.errors, ...done.flatMap((a) => a.errors)],
  })
}

/**
 * The Report of what the state holds so far (undefined before the run names its nodes). Derived, not stored: the
 * App computes it once per render, so nodes that land together are merged once.
 */
export function fleetReport(state: FleetState): Report | undefined {
  if (!state.metadata || !state.cluster) return undefined
  return mergeReport(state.metadata, state.cluster, state.progress.map((p) => p.name), state.analyses)
}

export interface FleetState {
  /** Increments with every check run (start, `r`, --refresh). */
  run: number
  running: boolean
  /** Why the last run could not start or finish (cannot reach the cluster, unknown node, bad bundle). */
  error?: {message: string; hint?: string; exitCode: number}
  cluster?: ClusterSnapshot
  metadata?: ReportMetadata
  /** The run's nodes, in name order. */
  progress: NodeProgress[]
  /** Latest analysis per node; a node keeps its previous run's analysis (shown as stale) until the new one lands. */
  analyses: Map<string, NodeAnalysis>
  /** When the last complete run finished (ISO time). */
  checkedAt?: string
}

export type FleetEvent =
  | {type: 'run-start'; run: number}
  | {type: 'targets'; run: number; cluster: ClusterSnapshot; nodes: string[]; metadata: ReportMetadata}
  | {type: 'node-start'; run: number; node: string}
  | {type: 'node-done'; run: number; analysis: NodeAnalysis}
  | {type: 'run-done'; run: number; at: string}
  | {type: 'run-failed'; run: number; message: string; hint?: string; exitCode: number}

export const INITIAL_FLEET: FleetState = {run: 0, running: false, progress: [], analyses: new Map()}

function setState(progress: readonly NodeProgress[], node: string, state: NodeState, stale: boolean): NodeProgress[] {
  return progress.map((p) => (p.name === node ? {name: p.name, state, ...(stale ? {stale} : {})} : p))
}

export function fleetReducer(state: FleetState, e: FleetEvent): FleetState {
  if (e.type === 'run-start') {
    if (e.run <= state.run) return state
    const {error: _dropped, ...rest} = state
    return {...rest, run: e.run, running: true, progress: state.progress.map((p) => ({name: p.name, state: 'waiting', stale: state.analyses.has(p.name)}))}
  }
  if (e.run !== state.run) return state
  switch (e.type) {
    case 'targets': {
      const nodes = [...e.nodes].sort()
      const wanted = new Set(nodes)
      const analyses = new Map([...state.analyses].filter(([n]) => wanted.has(n)))
      return {
        ...state,
        cluster: e.cluster,
        metadata: e.metadata,
        analyses,
        progress: nodes.map((name) => ({name, state: 'waiting', ...(analyses.has(name) ? {stale: true} : {})})),
      }
    }
    case 'node-start':
      return {...state, progress: setState(state.progress, e.node, 'collecting', state.analyses.has(e.node))}
    case 'node-done': {
      const node = e.analysis.snapshot.node
      return {...state, analyses: new Map(state.analyses).set(node, e.analysis), progress: setState(state.progress, node, 'done', false)}
    }
    case 'run-done':
      return {...state, running: false, checkedAt: e.at}
    case 'run-failed':
      return {...state, running: false, error: {message: e.message, exitCode: e.exitCode, ...(e.hint ? {hint: e.hint} : {})}}
  }
}
