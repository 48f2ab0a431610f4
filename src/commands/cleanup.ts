import {Flags} from '@oclif/core'
import type {LeftoverAgentRun} from '../app/agent-cleanup.js'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, kubeFlags} from '../cli/flags.js'
// The pod transport's own selector and default namespace, from their one definition (the transport re-exports them):
// the help states them without loading the transport (ssh2, @kubernetes/client-node).
import {DEBUG_POD_SELECTOR, DEFAULT_POD_NAMESPACE} from '../core/model/managed-objects.js'
import {ExitCode} from '../exit-codes.js'
import {ClusterAccessError} from '../ports/cluster.js'
import type {LeftoverPod} from '../transports/connect.js'

export default class Cleanup extends BaseCommand {
  static override summary = 'Delete debug pods that --via pod runs, and agent namespaces that --in-cluster runs, left behind.'
  static override description =
    `Finds pods labelled ${DEBUG_POD_SELECTOR} (the privileged pods --via pod creates) and deletes them. A run ` +
    'deletes its own pods when it ends, even on Ctrl-C; leftovers come from a killed process or a lost API ' +
    'connection, and stop by themselves after an hour. It also deletes the namespaces of --in-cluster agent runs ' +
    '(labelled app.kubernetes.io/component=agent; every agent object lives in its run\'s namespace) and the namespaces ' +
    '--via pod runs create for their pods (app.kubernetes.io/component=debug-pods). Note: this also ' +
    'deletes the pods and agents of a run still in progress.'

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
    const [{cleanupAgentRuns}, {cleanupDebugPods, environment}] = await Promise.all([import('../app/agent-cleanup.js'), import('../transports/connect.js')])
    const env = environment(flags)
    const cluster = env.cluster()
    const client = cluster.api
    const namespace = flags['all-namespaces'] ? undefined : flags['pod-namespace']
    const pods = await cleanupDebugPods(client, {dryRun: flags['dry-run'], ...(namespace === undefined ? {} : {namespace})})
    // Agent runs live in namespaces of their own; a user who may not list namespaces still gets the pod cleanup.
    const runs = await cleanupAgentRuns(env.agents(cluster).api, {dryRun: flags['dry-run']}).catch((err: unknown) => {
      if (!(err instanceof ClusterAccessError && err.forbidden)) throw err
      this.note(`warning: agent namespaces not checked: ${err.message}`)
      return []
    })
    if (pods.length === 0 && !flags.quiet) this.note(`No node-doctor debug pods ${namespace === undefined ? 'in any namespace' : `in namespace ${namespace}`}.`)
    for (const p of pods) {
      if (p.outcome === 'failed') this.note(`error: could not delete pod "${p.namespace}/${p.name}": ${p.error}`)
      else process.stdout.write(`${describeOutcome(p)}\n`)
    }
    for (const r of runs) {
      if (r.outcome === 'failed') this.note(`error: could not delete namespace "${r.namespace}": ${r.error}`)
      else process.stdout.write(`${describeRun(r)}\n`)
    }
    if (pods.some((p) => p.outcome === 'failed') || runs.some((r) => r.outcome === 'failed')) process.exitCode = ExitCode.ACCESS
  }
}

function describeRun(r: LeftoverAgentRun): string {
  const verb = {deleted: 'deleted', gone: 'already gone', 'dry-run': 'would be deleted (dry run)', failed: 'not deleted'}[r.outcome]
  return `namespace "${r.namespace}" ${verb} (${r.kind === 'agent' ? 'agent run' : 'debug pods of run'}${r.run ? ` ${r.run}` : ''}${r.createdAt ? `, created ${r.createdAt}` : ''})`
}

function describeOutcome(p: LeftoverPod): string {
  const verb = {deleted: 'deleted', gone: 'already gone', 'dry-run': 'would be deleted (dry run)', failed: 'not deleted'}[p.outcome]
  const facts = [p.node && `node ${p.node}`, p.run && `run ${p.run}`, p.phase].filter(Boolean).join(', ')
  return `pod "${p.namespace}/${p.name}" ${verb}${facts ? ` (${facts})` : ''}`
}
