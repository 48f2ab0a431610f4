import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: 'Show a route table grouped by device, marking blackhole/unreachable routes and Calico devices.',
  description:
    'Reads `ip route`, `ip -d route`, `ip -6 route`, `ip -j route` (also `ip -j -d route show table all`) or `route -n` output. ' +
    'Collect it on the node with `ip -j -d route show table all > routes.json`.',
  examples: [
    '<%= config.bin %> routes show --from-file routes.txt',
    '<%= config.bin %> routes show --from-file routes.json node-a -o yaml',
  ],
  fromFile: Flags.string({summary: 'Route listing to read (- for stdin).', helpValue: 'FILE'}),
  flags: {},
  async show({node, flags, format, color, note}) {
    const [{showRoutes}, {environment}, {renderRoutesShow}] = await Promise.all([import('../../app/show.js'), import('../../transports/connect.js'), import('../../render/routes-show.js')])
    const {value: table, source, warnings} = await showRoutes(node, flags['from-file'], flags, environment(flags))
    for (const w of warnings) note(`warning: ${source}:${w.line}: ${w.message}`)
    return [renderRoutesShow(table, format, {color, source, ...(node ? {node} : {})})]
  },
})
