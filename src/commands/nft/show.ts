import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: 'Show an nftables ruleset: tables, chains with rule counts, sets/maps with element counts, kube-proxy services.',
  description:
    'Reads `nft list ruleset`, `nft list table ip kube-proxy` (with or without -a) or `nft -j list ruleset` output. ' +
    "For kube-proxy's table (nftables mode) it also lists each service port with its addresses, node ports and endpoints.",
  examples: [
    '<%= config.bin %> nft show --from-file ruleset.nft',
    '<%= config.bin %> nft show --from-file ruleset.json node-a -o json',
  ],
  fromFile: Flags.string({summary: 'nft listing to read (- for stdin).', helpValue: 'FILE'}),
  flags: {
    strict: Flags.boolean({summary: 'Read --from-file as nft prints it: no leniency for pasted listings (indentation, CRLF, prompt lines, fences).'}),
  },
  async show({node, flags, format, color}) {
    const [{showNft}, {environmentFor}, {renderNftShow}] = await Promise.all([import('../../app/show.js'), import('../../transports/environment-for.js'), import('../../render/nft-show.js')])
    const {value: ruleset, source, warnings} = await showNft(node, flags['from-file'], flags, await environmentFor(node, flags), {strict: flags.strict})
    return [renderNftShow(ruleset, format, {color, source, warnings, ...(node ? {node} : {})})]
  },
})
