// Runs a FleetSource (src/app/dashboard/sources.ts) for the dashboard: run events in, each node analysed as its
// snapshot arrives.
import type {ProfileSelection} from '../app/analyze.js'
import type {FleetSource} from '../app/dashboard/sources.js'
import type {Area, ReportMetadata} from '../core/model/report.js'
import type {ClusterSnapshot} from '../core/model/snapshot.js'
import {NodeDoctorError} from '../errors.js'
import {ExitCode} from '../exit-codes.js'
import {analyzeNode, type FleetEvent} from './fleet-state.js'

export interface RunOptions {
  run: number
  signal?: AbortSignal
  now: () => Date
  tool: {name: string; version: string}
  command: string
  areas?: Area[]
  profile?: ProfileSelection
}

/** Runs the source once, dispatching run events; analysis happens here, as each node arrives. Never rejects. */
export async function startRun(source: FleetSource, dispatch: (e: FleetEvent) => void, o: RunOptions): Promise<void> {
  dispatch({type: 'run-start', run: o.run})
  let cluster: ClusterSnapshot | undefined
  let metadata: ReportMetadata | undefined
  try {
    await source.run({
      targets(c, nodes, context) {
        cluster = c
        metadata = {generatedAt: o.now().toISOString(), tool: o.tool, command: o.command, ...(context ? {context} : {})}
        dispatch({type: 'targets', run: o.run, cluster: c, nodes, metadata})
      },
      nodeStart: (node) => dispatch({type: 'node-start', run: o.run, node}),
      nodeDone(snapshot) {
        dispatch({type: 'node-done', run: o.run, analysis: analyzeNode(cluster!, snapshot, {metadata: metadata!, ...(o.areas ? {areas: o.areas} : {}), ...(o.profile ? {profile: o.profile} : {})})})
      },
    }, o.signal)
    dispatch({type: 'run-done', run: o.run, at: o.now().toISOString()})
  } catch (err) {
    const known = err instanceof NodeDoctorError
    dispatch({
      type: 'run-failed',
      run: o.run,
      message: known ? err.message : `internal error: ${(err as Error).message}`,
      exitCode: known ? err.exitCode : ExitCode.INTERNAL,
      ...(known && err.hint ? {hint: err.hint} : {}),
    })
  }
}
