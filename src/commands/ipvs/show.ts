import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: 'Show an IPVS table: virtual servers with their real servers, weights, scheduler and persistence.',
  description:
    'Reads `ipvsadm -Ln` output (also --stats, --rate, --persistent-conn, --thresholds) or `ipvsadm -Sn` save output. ' +
    'Collect it on the node with `ipvsadm -Ln > ipvs.txt`. ' +
    'Pasted listings are read too (indented, quoted, CRLF, with prompt lines or fences; header lines cut off; `ipvsadm -L` ' +
    'without -n, whose host and service names are kept as printed); what was assumed or skipped is listed as warnings ' +
    '(file:line) after the table and as `warnings` [{line, message}] in -o json|yaml. --strict turns that off.',
  examples: [
    '<%= config.bin %> ipvs show --from-file ipvs.txt',
    '<%= config.bin %> ipvs show --from-file ipvs.txt node-a -o json',
    'ssh node-a sudo ipvsadm -Ln | <%= config.bin %> ipvs show --from-file -',
  ],
  fromFile: Flags.string({summary: 'ipvsadm output to read (- for stdin).', helpValue: 'FILE'}),
  flags: {
    strict: Flags.boolean({summary: 'Read --from-file as the tool prints it: no leniency for pasted excerpts.'}),
  },
  async show({node, flags, format, color}) {
    const [{showIpvs}, {environmentFor}, {renderIpvsShow}] = await Promise.all([import('../../app/show.js'), import('../../transports/environment-for.js'), import('../../render/ipvs-show.js')])
    const {value: table, source, warnings} = await showIpvs(node, flags['from-file'], flags, await environmentFor(node, flags), {strict: flags.strict})
    return [renderIpvsShow(table, format, {color, source, warnings, ...(node ? {node} : {})})]
  },
})
