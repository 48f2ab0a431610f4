import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, kubeFlags} from '../cli/flags.js'
import {ExitCode} from '../exit-codes.js'
import {KubeClusterClient} from '../transports/kube/client.js'
import {loadKubeConfig} from '../transports/kube/kubeconfig.js'
import {type LeftoverPod, cleanupDebugPods} from '../transports/pod/cleanup.js'
import {DEBUG_POD_SELECTOR, DEFAULT_POD_NAMESPACE} from '../transports/pod/debug-pod.js'

export default class Cleanup extends BaseCommand {
  static override summary = 'Delete debug pods that --via pod runs left behind.'
  static override description =
    `Finds pods labelled ${DEBUG_POD_SELECTOR} (the privileged pods --via pod creates) and deletes them. A run ` +
    'deletes its own pods when it ends, even on Ctrl-C; leftovers come from a killed process or a lost API ' +
    'connection, and stop by themselves after an hour. Note: this also deletes the pods of a run still in progress.'

  static override examples = [
    '<%= config.bin %> cleanup',
    '<%= config.bin %> cleanup --dry-run --all-namespaces',
    '<%= config.bin %> cleanup --pod-namespace node-doctor',
  ]

  static override args = {}
  static override flags = {
    'pod-namespace': Flags.string({summary: 'Namespace to clean up.', default: DEFAULT_POD_NAMESPACE}),
    'all-namespaces': Flags.boolean({char: 'A', summary: 'Look in every namespace (overrides --pod-namespace).'}),
    'dry-run': Flags.boolean({summary: 'Only list what would be deleted.'}),
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Cleanup)
    const client = new KubeClusterClient(loadKubeConfig(flags))
    const namespace = flags['all-namespaces'] ? undefined : flags['pod-namespace']
    const pods = await cleanupDebugPods(client, {dryRun: flags['dry-run'], ...(namespace === undefined ? {} : {namespace})})
    if (pods.length === 0) {
      if (!flags.quiet) this.note(`No node-doctor debug pods ${namespace === undefined ? 'in any namespace' : `in namespace ${namespace}`}.`)
      return
    }
    for (const p of pods) {
      if (p.outcome === 'failed') this.note(`error: could not delete pod "${p.namespace}/${p.name}": ${p.error}`)
      else process.stdout.write(`${describeOutcome(p)}\n`)
    }
    if (pods.some((p) => p.outcome === 'failed')) process.exitCode = ExitCode.ACCESS
  }
}

function describeOutcome(p: LeftoverPod): string {
  const verb = {deleted: 'deleted', gone: 'already gone', 'dry-run': 'would be deleted (dry run)', failed: 'not deleted'}[p.outcome]
  const facts = [p.node && `node ${p.node}`, p.run && `run ${p.run}`, p.phase].filter(Boolean).join(', ')
  return `pod "${p.namespace}/${p.name}" ${verb}${facts ? ` (${facts})` : ''}`
}
