import {writeFileSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseAreas, parseDuration} from '../../cli/flags.js'
import {UsageError} from '../../errors.js'

export default class AgentCollect extends BaseCommand {
  static override hidden = true
  static override summary = "Internal: what the in-cluster agent's container runs. Collects this node and prints the framed agent document."
  static override description =
    'Runs the collection plan of the selected areas on this machine (the local transport) and writes one framed, ' +
    'versioned NodeSnapshot document (src/core/agent/document.ts). With --hold it then waits for SIGTERM, because ' +
    'a DaemonSet restarts containers that exit.'

  static override examples = ['<%= config.bin %> agent collect --node worker-1 --only iptables --out -']

  static override flags = {
    node: Flags.string({summary: 'Name of this node (default: $NODE_NAME, which the DaemonSet sets from spec.nodeName).'}),
    only: Flags.string({summary: 'Only these areas (comma-separated).'}),
    timeout: Flags.string({summary: 'Timeout for each command.', default: '30s'}),
    out: Flags.string({summary: 'Where to write the document (- for stdout).', default: '-'}),
    hold: Flags.boolean({summary: 'After writing, wait for SIGTERM/SIGINT instead of exiting.'}),
    'ready-file': Flags.string({summary: 'Create this file once the document is written (the readiness probe looks for it).'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(AgentCollect)
    const node = flags.node ?? process.env.NODE_NAME
    if (!node) throw new UsageError('no node name', 'Pass --node NAME or set NODE_NAME.')
    const areas = parseAreas(flags.only)
    const [{agentDocument}, {localTransport}] = await Promise.all([import('../../app/agent-collect.js'), import('../../transports/connect.js')])
    const {document, collectedAt} = await agentDocument(localTransport(node), {
      ...(areas ? {areas} : {}),
      timeoutMs: parseDuration(flags.timeout, 'timeout'),
      now: () => new Date(),
    })
    if (flags.out === '-') await new Promise<void>((resolve, reject) => process.stdout.write(document, (err) => (err ? reject(err) : resolve())))
    else writeFileSync(flags.out, document)
    if (flags['ready-file']) writeFileSync(flags['ready-file'], `${collectedAt}\n`)
    if (flags.hold) await new Promise<void>((resolve) => ['SIGTERM', 'SIGINT'].forEach((s) => process.once(s, () => resolve())))
  }
}
