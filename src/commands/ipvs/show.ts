import {Args, Flags} from '@oclif/core'
import {showIpvs} from '../../app/show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import {renderIpvsShow, type ShowFormat} from '../../render/ipvs-show.js'
import {environment} from '../../transports/connect.js'

export default class IpvsShow extends BaseCommand {
  static override summary = 'Show an IPVS table: virtual servers with their real servers, weights, scheduler and persistence.'
  static override description =
    'Reads `ipvsadm -Ln` output (also --stats, --rate, --persistent-conn, --thresholds) or `ipvsadm -Sn` save output. ' +
    'Collect it on the node with `ipvsadm -Ln > ipvs.txt`.'

  static override examples = [
    '<%= config.bin %> ipvs show --from-file ipvs.txt',
    '<%= config.bin %> ipvs show --from-file ipvs.txt node-a -o json',
    'ssh node-a sudo ipvsadm -Ln | <%= config.bin %> ipvs show --from-file -',
  ]

  static override args = {
    node: Args.string({ignoreStdin: true, description: 'Node to read live (over SSH, or --via pod|local); with --from-file, only a label.', required: false}),
  }

  static override flags = {
    'from-file': Flags.string({summary: 'ipvsadm output to read (- for stdin).', helpValue: 'FILE'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(IpvsShow)
    const {value: table, source} = await showIpvs(args.node, flags['from-file'], flags, environment(flags))
    const opts = {color: this.useColor(flags['no-color']), source, ...(args.node ? {node: args.node} : {})}
    process.stdout.write(renderIpvsShow(table, flags.output as ShowFormat, opts))
  }
}
