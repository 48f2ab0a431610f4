// The namespace of a --via pod run (without --pod-namespace): created before the first debug pod, labelled for
// privileged Pod Security (core/model/managed-objects.ts), deleted when the run ends or is interrupted (deleting it
// also removes any pod a node's own close() missed). Where the user may not create namespaces, the pods go to
// kube-system, with a warning that says why and how to choose.
import {DEFAULT_POD_NAMESPACE, debugNamespaceManifest, debugNamespaceName} from '../../core/model/managed-objects.js'
import type {AgentApi} from '../../ports/agent.js'
import {ClusterAccessError} from '../../ports/cluster.js'
import {registerInterruptCleanup} from './interrupt.js'

export class RunNamespace {
  private ensuring: Promise<string> | undefined
  private created = false
  private unregister: (() => void) | undefined

  constructor(
    private readonly api: Pick<AgentApi, 'create' | 'deleteNamespace'>,
    readonly runId: string,
    private readonly warn: (message: string) => void,
    private readonly register: typeof registerInterruptCleanup = registerInterruptCleanup,
  ) {}

  get name(): string {
    return debugNamespaceName(this.runId)
  }

  /** The namespace the run's pods go to: its own (created once), or kube-system when creating it is forbidden. */
  ensure(): Promise<string> {
    this.ensuring ??= this.create()
    return this.ensuring
  }

  private async create(): Promise<string> {
    this.unregister = this.register(`namespace ${this.name}`, () => this.close())
    try {
      await this.api.create([debugNamespaceManifest(this.runId)])
      this.created = true
      return this.name
    } catch (err) {
      this.unregister?.()
      this.unregister = undefined
      if (err instanceof ClusterAccessError && err.forbidden) {
        this.warn(
          `warning: may not create namespace ${this.name} for the debug pods (${err.message}); they go to ${DEFAULT_POD_NAMESPACE}, which must admit ` +
            `privileged pods. Pass --pod-namespace NS to choose one.`,
        )
        return DEFAULT_POD_NAMESPACE
      }
      throw err
    }
  }

  /** Deletes the namespace if this run created it. Idempotent; a failure is a warning naming the cleanup command. */
  async close(): Promise<void> {
    if (this.ensuring) await this.ensuring.catch(() => undefined)
    this.unregister?.()
    this.unregister = undefined
    if (!this.created) return
    this.created = false
    try {
      await this.api.deleteNamespace(this.name)
    } catch (err) {
      this.warn(`WARNING: could not delete namespace ${this.name}: ${(err as Error).message}. Delete it with: kubectl node-doctor cleanup`)
    }
  }
}
