import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: 'Show an IPVS table: virtual servers with their real servers, weights, scheduler and persistence.',
  description:
    'Reads `ipvsadm -Ln` output (also --stats, --rate, --persistent-conn, --thresholds) or `ipvsadm -Sn` save output. ' +
    'Collect it on the node with `ipvsadm -Ln > ipvs.txt`.',
  examples: [
    '<%= config.bin %> ipvs show --from-file ipvs.txt',
    '<%= config.bin %> ipvs show --from-file ipvs.txt node-a -o json',
    'ssh node-a sudo ipvsadm -Ln | <%= config.bin %> ipvs show --from-file -',
  ],
  fromFile: Flags.string({summary: 'ipvsadm output to read (- for stdin).', helpValue: 'FILE'}),
  flags: {},
  async show({node, flags, format, color, note}) {
    const [{showIpvs}, {environment}, {renderIpvsShow}] = await Promise.all([import('../../app/show.js'), import('../../transports/connect.js'), import('../../render/ipvs-show.js')])
    const {value: table, source, warnings} = await showIpvs(node, flags['from-file'], flags, environment(flags))
    for (const w of warnings) note(`warning: ${source}:${w.line}: ${w.message}`)
    return [renderIpvsShow(table, format, {color, source, ...(node ? {node} : {})})]
  },
})
