import {Args} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, inClusterFlags, kubeFlags, parseAreas, probeFlags, profileFlags, reportFlags, selectionFlags, transportFlags} from '../cli/flags.js'
import type {ProfileSelection} from '../core/checks/registry.js'

export default class Check extends BaseCommand {
  static override summary = 'Collect node state live and run every applicable check.'
  static override description =
    'Reads the cluster once through your kubeconfig, collects each node over SSH (or --via pod / --via local), and ' +
    'reports what is wrong and how to fix it. Nodes that cannot be reached are reported as collection errors; the ' +
    'others are still checked.'

  static override examples = [
    '<%= config.bin %> check worker-1',
    '<%= config.bin %> check --all --only iptables,kubelet',
    '<%= config.bin %> check --all --profile all',
    '<%= config.bin %> check -l node-role.kubernetes.io/worker -o json --fail-on warning',
    '<%= config.bin %> check worker-1 --via local',
    '<%= config.bin %> check --all --in-cluster',
    '<%= config.bin %> check worker-1 worker-2 --probe',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {...selectionFlags, ...areaFlags, ...profileFlags('incident'), ...transportFlags, ...inClusterFlags, ...reportFlags, ...kubeFlags, ...commonFlags, ...probeFlags}

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Check)
    const [{checkLive}, {environment}] = await Promise.all([import('../app/live/check.js'), import('../transports/connect.js')])
    // --probe: the same check with the path-MTU probe between collection and analysis (NODE-019).
    const live = flags.probe ? (await import('../app/live/probe.js')).checkLiveProbed : checkLive
    const report = await live(argv as string[], flags, environment(flags), {
      areas: parseAreas(flags.only),
      profile: flags.profile as ProfileSelection,
      tool: {name: 'node-doctor', version: this.config.version},
      command: this.commandLine(),
    })
    await this.emitReport(report, flags)
  }
}
