// `collect`: the cluster and the selected nodes collected live (src/app/live/collect.ts), written as a bundle for
// `analyze` or a bug report; what could not be collected is listed and makes the exit code PARTIAL.
import type {Area} from '../../core/model/report.js'
import {SNAPSHOT_API_VERSION} from '../../core/model/snapshot.js'
import {ExitCode} from '../../exit-codes.js'
import type {Environment} from '../../ports/environment.js'
import {collectLive} from './collect.js'
import type {LiveFlags} from './targets.js'

export async function collectBundle(names: string[], flags: LiveFlags & {out: string}, env: Environment, o: {areas?: Area[] | undefined; version: string}): Promise<number> {
  const live = await collectLive(names, flags, env, {areas: o.areas})
  await env.writeBundle(flags.out, {
    manifest: {
      apiVersion: SNAPSHOT_API_VERSION,
      kind: 'Bundle',
      createdAt: new Date().toISOString(),
      tool: {name: 'node-doctor', version: o.version},
      context: live.access.context,
      nodes: live.nodes.map((n) => n.node),
    },
    cluster: live.cluster,
    nodes: live.nodes,
  })
  const failed = live.nodes.filter((n) => n.errors.length > 0)
  const errors = live.cluster.errors.length + failed.length
  if (!flags.quiet) {
    const note = (m: string) => env.stderr.write(`${m}\n`)
    note(`wrote ${flags.out}: ${live.nodes.length} node(s), ${errors === 0 ? 'no collection errors' : `${errors} with collection errors`}`)
    for (const n of failed) for (const e of n.errors) note(`  ${n.node}: ${e.source}: ${e.message}`)
    for (const e of live.cluster.errors) note(`  cluster: ${e.source}: ${e.message}`)
  }
  return errors > 0 ? ExitCode.PARTIAL : ExitCode.OK
}
