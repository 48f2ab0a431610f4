import {Args, Flags} from '@oclif/core'
import {showNft} from '../../app/show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import type {ShowFormat} from '../../render/ipvs-show.js'
import {renderNftShow} from '../../render/nft-show.js'
import {environment} from '../../transports/connect.js'

export default class NftShow extends BaseCommand {
  static override summary = 'Show an nftables ruleset: tables, chains with rule counts, sets/maps with element counts, kube-proxy services.'
  static override description =
    'Reads `nft list ruleset`, `nft list table ip kube-proxy` (with or without -a) or `nft -j list ruleset` output. ' +
    "For kube-proxy's table (nftables mode) it also lists each service port with its addresses, node ports and endpoints."

  static override examples = [
    '<%= config.bin %> nft show --from-file ruleset.nft',
    '<%= config.bin %> nft show --from-file ruleset.json node-a -o json',
  ]

  static override args = {
    node: Args.string({ignoreStdin: true, description: 'Node to read live (over SSH, or --via pod|local); with --from-file, only a label.', required: false}),
  }

  static override flags = {
    'from-file': Flags.string({summary: 'nft listing to read (- for stdin).', helpValue: 'FILE'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(NftShow)
    const {value: ruleset, source} = await showNft(args.node, flags['from-file'], flags, environment(flags))
    const opts = {color: this.useColor(flags['no-color']), source, ...(args.node ? {node: args.node} : {})}
    process.stdout.write(renderNftShow(ruleset, flags.output as ShowFormat, opts))
  }
}
