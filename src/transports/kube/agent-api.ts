// AgentApi over the shared API client: same credentials, timeouts and error mapping as every other request.
import {limits} from '../../core/limits/limits.js'
import type {KubeObject, Pod} from '../../core/model/k8s.js'
import {BugError} from '../../errors.js'
import type {AgentApi, AgentEvent} from '../../ports/agent.js'
import {type ApiRequest, ClusterAccessError} from '../../ports/cluster.js'
import type {KubeClusterClient} from './client.js'

type Client = Pick<KubeClusterClient, 'requestJSON' | 'requestText'>

/** Collection path and authorization attributes of the kinds the agent creates. */
function collection(o: KubeObject): {path: string; req: ApiRequest} {
  const ns = o.metadata.namespace
  switch (`${o.apiVersion}/${o.kind}`) {
    case 'v1/Namespace':
      return {path: '/api/v1/namespaces', req: {verb: 'create', resource: 'namespaces', group: ''}}
    case 'v1/ServiceAccount':
      return {path: `/api/v1/namespaces/${enc(ns)}/serviceaccounts`, req: {verb: 'create', resource: 'serviceaccounts', group: '', namespace: ns!}}
    case 'apps/v1/DaemonSet':
      return {path: `/apis/apps/v1/namespaces/${enc(ns)}/daemonsets`, req: {verb: 'create', resource: 'daemonsets', group: 'apps', namespace: ns!}}
    default:
      throw new BugError(`the agent does not create ${o.apiVersion} ${o.kind}`)
  }
}

export class KubeAgentApi implements AgentApi {
  constructor(private readonly client: Client) {}

  async create(objects: readonly KubeObject[]): Promise<void> {
    for (const o of objects) {
      const {path, req} = collection(o)
      await this.client.requestJSON(req, {method: 'POST', path, body: o})
    }
  }

  async listPods(namespace: string, labelSelector: string): Promise<Pod[]> {
    return this.list<Pod>({verb: 'list', resource: 'pods', group: '', namespace}, `/api/v1/namespaces/${enc(namespace)}/pods`, labelSelector)
  }

  podLog(namespace: string, pod: string, container: string): Promise<string> {
    return this.client.requestText(
      {verb: 'get', resource: 'pods', group: '', subresource: 'log', namespace, name: pod},
      // The agent's document is its log: bounded like the document itself (base64 of gzip: at most 4/3 of it).
      {path: `/api/v1/namespaces/${enc(namespace)}/pods/${enc(pod)}/log`, query: {container, limitBytes: String(Math.ceil((limits().agentDocumentBytes * 4) / 3) + 64 * 1024)}},
    )
  }

  listEvents(namespace: string): Promise<AgentEvent[]> {
    return this.list<KubeObject & AgentEvent>({verb: 'list', resource: 'events', group: '', namespace}, `/api/v1/namespaces/${enc(namespace)}/events`)
  }

  listNamespaces(labelSelector: string): Promise<KubeObject[]> {
    return this.list<KubeObject>({verb: 'list', resource: 'namespaces', group: ''}, '/api/v1/namespaces', labelSelector)
  }

  async deleteNamespace(name: string): Promise<boolean> {
    try {
      await this.client.requestJSON(
        {verb: 'delete', resource: 'namespaces', group: '', name},
        {method: 'DELETE', path: `/api/v1/namespaces/${enc(name)}`, body: {apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background'}},
      )
      return true
    } catch (err) {
      if (err instanceof ClusterAccessError && err.status?.code === 404) return false
      throw err
    }
  }

  private async list<T>(req: ApiRequest, path: string, labelSelector?: string): Promise<T[]> {
    const items: T[] = []
    let cont: string | undefined
    do {
      const page = await this.client.requestJSON<{items?: T[] | null; metadata?: {continue?: string}}>(req, {
        path,
        query: {labelSelector, limit: '500', continue: cont},
      })
      items.push(...(page?.items ?? []))
      cont = page?.metadata?.continue || undefined
    } while (cont !== undefined)
    return items
  }
}

function enc(s: string | undefined): string {
  return encodeURIComponent(s ?? '')
}
