import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: 'Show a route table grouped by device, marking blackhole/unreachable routes and Calico devices.',
  description:
    'Reads `ip route`, `ip -d route`, `ip -6 route`, `ip -j route` (also `ip -j -d route show table all`) or `route -n` output. ' +
    'Collect it on the node with `ip -j -d route show table all > routes.json`. ' +
    'Pasted listings are read too (indented, quoted, CRLF, with prompt lines or fences; `route -n -e`/`-ee` and `netstat -rn` ' +
    'columns, a cut-off title or header; `ip monitor route` output, shown as the routes its events leave); what was assumed ' +
    'or skipped is listed as warnings (file:line) after the table and as `warnings` [{line, message}] in -o json|yaml. --strict turns that off.',
  examples: [
    '<%= config.bin %> routes show --from-file routes.txt',
    '<%= config.bin %> routes show --from-file routes.json node-a -o yaml',
  ],
  fromFile: Flags.string({summary: 'Route listing to read (- for stdin).', helpValue: 'FILE'}),
  flags: {
    strict: Flags.boolean({summary: 'Read --from-file as the tool prints it: no leniency for pasted excerpts.'}),
  },
  async show({node, flags, format, color}) {
    const [{showRoutes}, {environmentFor}, {renderRoutesShow}] = await Promise.all([import('../../app/show.js'), import('../../transports/environment-for.js'), import('../../render/routes-show.js')])
    const {value: table, source, warnings} = await showRoutes(node, flags['from-file'], flags, await environmentFor(node, flags), {strict: flags.strict})
    return [renderRoutesShow(table, format, {color, source, warnings, ...(node ? {node} : {})})]
  },
})
