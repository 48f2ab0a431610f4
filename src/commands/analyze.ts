import {Args} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, parseAreas, reportFlags} from '../cli/flags.js'

export default class Analyze extends BaseCommand {
  static override summary = 'Run every check offline on a bundle written by `collect`; gives the same Report as the live run.'
  static override examples = [
    '<%= config.bin %> analyze ./node-doctor-bundle',
    '<%= config.bin %> analyze bundle.tgz -o json',
    '<%= config.bin %> analyze bundle.tgz --only iptables,kubelet --fail-on warning',
  ]

  static override args = {
    bundle: Args.string({ignoreStdin: true, description: 'Bundle directory or .tgz written by `kubectl node-doctor collect`.', required: true}),
  }

  static override flags = {...areaFlags, ...reportFlags, ...commonFlags}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Analyze)
    const areas = parseAreas(flags.only)
    const [{analyzeSnapshots}, {environment}] = await Promise.all([import('../app/analyze.js'), import('../transports/connect.js')])
    const bundle = await environment({}).readBundle(args.bundle)
    const report = analyzeSnapshots(bundle.cluster, bundle.nodes, {
      areas,
      metadata: {
        generatedAt: new Date().toISOString(),
        tool: {name: 'node-doctor', version: this.config.version},
        command: `analyze ${args.bundle}`,
        ...(bundle.manifest.context ? {context: bundle.manifest.context} : {}),
        annotations: {bundleCreatedAt: bundle.manifest.createdAt},
      },
    })
    await this.emitReport(report, flags)
  }
}
