import {Args} from '@oclif/core'
import {analyzeSnapshots} from '../app/analyze.js'
import {BaseCommand} from '../cli/base-command.js'
import {collectInCluster} from '../cli/agent-live.js'
import {areaFlags, commonFlags, inClusterFlags, kubeFlags, parseAreas, reportFlags, selectionFlags, transportFlags} from '../cli/flags.js'
import {collectLive} from '../cli/live.js'

export default class Check extends BaseCommand {
  static override summary = 'Collect node state live and run every applicable check.'
  static override description =
    'Reads the cluster once through your kubeconfig, collects each node over SSH (or --via pod / --via local), and ' +
    'reports what is wrong and how to fix it. Nodes that cannot be reached are reported as collection errors; the ' +
    'others are still checked.'

  static override examples = [
    '<%= config.bin %> check worker-1',
    '<%= config.bin %> check --all --only iptables,kubelet',
    '<%= config.bin %> check -l node-role.kubernetes.io/worker -o json --fail-on warning',
    '<%= config.bin %> check worker-1 --via local',
    '<%= config.bin %> check --all --in-cluster',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {...selectionFlags, ...areaFlags, ...transportFlags, ...inClusterFlags, ...reportFlags, ...kubeFlags, ...commonFlags}

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Check)
    const areas = parseAreas(flags.only)
    const live = flags['in-cluster']
      ? await collectInCluster(argv as string[], flags, {areas, version: this.config.version})
      : await collectLive(argv as string[], flags, {areas})
    const report = analyzeSnapshots(live.cluster, live.nodes, {
      areas,
      metadata: {
        generatedAt: new Date().toISOString(),
        tool: {name: 'node-doctor', version: this.config.version},
        command: this.commandLine(),
        context: live.access.context,
      },
    })
    this.emitReport(report, flags)
  }
}
