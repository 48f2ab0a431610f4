// Snapshots → Report. Pure: the caller passes the clock and the tool identity.
import {runAssumptions} from '../core/checks/assumptions.js'
import {CHECKS} from '../core/checks/registry.js'
import {runChecks} from '../core/checks/run.js'
import type {Check, ProfileSelection} from '../core/checks/types.js'

export type {ProfileSelection} from '../core/checks/types.js'
import {RunFacts} from '../core/facts/node-facts.js'
import {attachImpact} from '../core/impact/impact.js'
import {type Area, buildReport, type CollectionError, type Report, type ReportMetadata} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'

export interface AnalyzeOptions {
  metadata: ReportMetadata
  areas?: readonly Area[]
  checks?: readonly Check[]
  /** `--profile`: checks outside it are not run; recorded in metadata.annotations['node-doctor/profile']. */
  profile?: ProfileSelection
}

/** Runs every applicable check over the snapshots; collection errors from the snapshots are carried into the report. */
export function analyzeSnapshots(cluster: ClusterSnapshot, nodes: readonly NodeSnapshot[], options: AnalyzeOptions): Report {
  const facts = new RunFacts(cluster)
  const run = runChecks(options.checks ?? CHECKS, cluster, nodes, {areas: options.areas, facts, ...(options.profile ? {profile: options.profile} : {})})
  const metadata = options.profile === undefined ? options.metadata : withAnnotation(options.metadata, PROFILE_ANNOTATION, options.profile)
  const collectionErrors: CollectionError[] = [...cluster.errors.map(asReported), ...nodes.flatMap((n) => n.errors), ...run.errors]
  return buildReport({
    metadata,
    nodes: nodes.map((n) => {
      const assumptions = runAssumptions(options.checks ?? CHECKS, options.areas, facts, n)
      return {
        name: n.node,
        ...(n.durationMs === undefined ? {} : {durationMs: n.durationMs}),
        ...(run.layouts[n.node] ? {layout: run.layouts[n.node]} : {}),
        ...(assumptions ? {assumptions} : {}),
      }
    }),
    results: run.results,
    // Every command that analyses (check, analyze, preflight, dashboard, fix) says what each finding breaks.
    findings: attachImpact(cluster, run.findings),
    collectionErrors,
  })
}

export const PROFILE_ANNOTATION = 'node-doctor/profile'

function withAnnotation(m: ReportMetadata, key: string, value: string): ReportMetadata {
  return {...m, annotations: {...m.annotations, [key]: value}}
}

/** A cluster read error as reports carry it: its `source` already names the read, so the typed fields stay in the snapshot. */
function asReported(e: CollectionError): CollectionError {
  if (e.resource === undefined && e.verb === undefined) return e
  const {resource: _resource, verb: _verb, ...rest} = e
  return rest
}
