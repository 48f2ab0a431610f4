import {Args, Flags} from '@oclif/core'
import {collectLive} from '../app/live/collect.js'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, kubeFlags, parseAreas, selectionFlags, transportFlags} from '../cli/flags.js'
import {SNAPSHOT_API_VERSION} from '../core/model/snapshot.js'
import {ExitCode} from '../exit-codes.js'
import {environment, writeBundle} from '../transports/connect.js'

export default class Collect extends BaseCommand {
  static override summary = 'Save the cluster snapshot and each node snapshot as a bundle, for `analyze` or a bug report.'
  static override examples = [
    '<%= config.bin %> collect worker-1 --out ./bundle',
    '<%= config.bin %> collect --all --out cluster-2026-12-02.tgz',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {
    out: Flags.string({summary: 'Bundle directory, or a .tgz file.', required: true}),
    ...selectionFlags,
    ...areaFlags,
    ...transportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Collect)
    const live = await collectLive(argv as string[], flags, environment(flags), {areas: parseAreas(flags.only)})
    await writeBundle(flags.out, {
      manifest: {
        apiVersion: SNAPSHOT_API_VERSION,
        kind: 'Bundle',
        createdAt: new Date().toISOString(),
        tool: {name: 'node-doctor', version: this.config.version},
        context: live.access.context,
        nodes: live.nodes.map((n) => n.node),
      },
      cluster: live.cluster,
      nodes: live.nodes,
    })
    const failed = live.nodes.filter((n) => n.errors.length > 0)
    const errors = live.cluster.errors.length + failed.length
    if (!flags.quiet) {
      this.note(`wrote ${flags.out}: ${live.nodes.length} node(s), ${errors === 0 ? 'no collection errors' : `${errors} with collection errors`}`)
      for (const n of failed) for (const e of n.errors) this.note(`  ${n.node}: ${e.source}: ${e.message}`)
      for (const e of live.cluster.errors) this.note(`  cluster: ${e.source}: ${e.message}`)
    }
    process.exitCode = errors > 0 ? ExitCode.PARTIAL : ExitCode.OK
  }
}
