import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, kubeFlags, parseAreas, selectionFlags, transportFlags} from '../cli/flags.js'

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
    const [{collectBundle}, {environment}] = await Promise.all([import('../app/live/collect-bundle.js'), import('../transports/connect.js')])
    process.exitCode = await collectBundle(argv as string[], flags, environment(flags), {areas: parseAreas(flags.only), version: this.config.version})
  }
}
