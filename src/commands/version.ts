import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, kubeFlags} from '../cli/flags.js'

export default class Version extends BaseCommand {
  static override summary = "Print node-doctor's version and, with a cluster, the server's and each node's kubelet and kube-proxy versions."
  static override description =
    'Like `kubectl version`: the client first (no cluster needed with --client), then the API server, then a line per ' +
    "node with its kubelet version (Node status) and its kube-proxy version (the image of the node's kube-proxy pod), " +
    'all read from the API. A node whose kube-proxy runs outside the API (a systemd service) has none here; ' +
    '`check` reads it on the node.'

  static override examples = [
    '<%= config.bin %> version',
    '<%= config.bin %> version --client',
    '<%= config.bin %> version worker-1 worker-2 -o json',
    '<%= config.bin %> version -l node-role.kubernetes.io/worker',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s); default: every node.'})}
  static override flags = {
    client: Flags.boolean({summary: 'Only the client version (no cluster access).'}),
    selector: Flags.string({char: 'l', summary: 'Node label selector (kubectl syntax).', helpGroup: 'SELECTION'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Version)
    const {renderVersion} = await import('../render/version.js')
    const format = flags.output as 'table' | 'json' | 'yaml'
    const color = format === 'table' && this.useColor(flags['no-color'])
    const client = {version: `v${this.config.version}`, runtime: `node-${process.version} ${process.platform}-${process.arch}`}
    if (flags.client) {
      process.stdout.write(renderVersion({client}, format, {color}))
      return
    }
    const [{readVersions}, {environment}] = await Promise.all([import('../app/version.js'), import('../transports/connect.js')])
    try {
      const view = await readVersions(environment(flags).cluster().api, {
        client,
        nodeNames: argv as string[],
        ...(flags.selector ? {selector: flags.selector} : {}),
      })
      process.stdout.write(renderVersion(view, format, {color}))
    } catch (err) {
      // As kubectl does: the client version still prints when the cluster cannot be used; the error follows (exit 4).
      process.stdout.write(renderVersion({client}, format, {color}))
      throw err
    }
  }
}
