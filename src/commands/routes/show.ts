import {Args, Flags} from '@oclif/core'
import {showRoutes} from '../../app/show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import type {ShowFormat} from '../../render/ipvs-show.js'
import {renderRoutesShow} from '../../render/routes-show.js'
import {environment} from '../../transports/connect.js'

export default class RoutesShow extends BaseCommand {
  static override summary = 'Show a route table grouped by device, marking blackhole/unreachable routes and Calico devices.'
  static override description =
    'Reads `ip route`, `ip -d route`, `ip -6 route`, `ip -j route` (also `ip -j -d route show table all`) or `route -n` output. ' +
    'Collect it on the node with `ip -j -d route show table all > routes.json`.'

  static override examples = [
    '<%= config.bin %> routes show --from-file routes.txt',
    '<%= config.bin %> routes show --from-file routes.json node-a -o yaml',
  ]

  static override args = {
    node: Args.string({ignoreStdin: true, description: 'Node to read live (over SSH, or --via pod|local); with --from-file, only a label.', required: false}),
  }

  static override flags = {
    'from-file': Flags.string({summary: 'Route listing to read (- for stdin).', helpValue: 'FILE'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(RoutesShow)
    const {value: table, source} = await showRoutes(args.node, flags['from-file'], flags, environment(flags))
    const opts = {color: this.useColor(flags['no-color']), source, ...(args.node ? {node: args.node} : {})}
    process.stdout.write(renderRoutesShow(table, flags.output as ShowFormat, opts))
  }
}
