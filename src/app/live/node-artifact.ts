// `show` views read their artifact from --from-file, or live from a NODE: the node is looked up through the
// kubeconfig and the one plan item is run over the chosen transport (SSH by default).
import {COLLECTION_PLAN, type PlanItem} from '../../core/collection/plan.js'
import type {NodeSnapshot} from '../../core/model/snapshot.js'
import {parseDuration} from '../../duration.js'
import {BugError, NodeDoctorError, ParseError, InputError, UsageError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'
import type {ClusterApi, Environment} from '../../ports/environment.js'
import {collectNode} from '../collect-node.js'
import {type LiveFlags, SINGLE_NODE_DEFAULTS} from './targets.js'

/** The artifact could not be collected from the node (tool missing, file absent, timeout). Exit 3. */
export class ArtifactUnavailableError extends NodeDoctorError {
  constructor(message: string, hint?: string) {
    super(message, {exitCode: ExitCode.PARTIAL, hint})
  }
}

export interface ArtifactText {
  text: string
  /** What to call it in messages: the file name, or `NODE:command`. */
  source: string
}

/** Reads `--from-file`, or collects artifact `id` from `node` live. Exactly one of the two must be given. */
export async function readArtifact(id: string, file: string | undefined, node: string | undefined, flags: Partial<LiveFlags>, env: Environment): Promise<ArtifactText> {
  if (file !== undefined) return {text: env.readInput(file), source: file === '-' ? '<stdin>' : file}
  if (node === undefined) throw new UsageError('give a NODE to read live, or --from-file FILE')
  const item = COLLECTION_PLAN.find((p) => p.id === id)
  if (!item) throw new BugError(`no collection plan item "${id}"`)
  const {snap} = await collectOneNode(node, [item], flags, env)
  const artifact = snap.artifacts[id]!
  if (artifact.error !== undefined) throw new ArtifactUnavailableError(`${node}: ${item.description} (${sourceLabel(item, artifact.source)}): ${artifact.error}`)
  return {text: artifact.content, source: `${node}:${sourceLabel(item, artifact.source)}`}
}

/** The command to name in messages: itself, or for a plan item's sh script (pages long) the item id docs/bundle.md describes. */
function sourceLabel(item: PlanItem, source: string): string {
  return item.argv[0] === 'sh' && item.argv[1] === '-c' ? `collection item ${item.id}` : source
}

/** Looks the node up through the API and runs `items` on it over one transport, closed again before returning. */
async function collectOneNode(node: string, items: PlanItem[], flags: Partial<LiveFlags>, env: Environment): Promise<{snap: NodeSnapshot; client: ClusterApi}> {
  const full: LiveFlags = {...SINGLE_NODE_DEFAULTS, ...flags}
  const connection = env.cluster()
  const client = connection.api
  const nodeObject = await client.getNode(node)
  if (!nodeObject) throw new UsageError(`nodes "${node}" not found`, "List nodes with 'kubectl get nodes'.")
  const connector = env.nodes(connection, (m) => env.stderr.write(`${m}\n`))
  try {
    const transport = await connector.connect(nodeObject)
    try {
      const snap = await collectNode(transport, {plan: items, timeoutMs: parseDuration(full.timeout, 'timeout'), sudo: Boolean(full.sudo), now: () => new Date()})
      return {snap, client}
    } finally {
      await transport.close()
    }
  } finally {
    await connector.close()
  }
}

/** Parses artifact text, turning a ParseError into an InputError that names its source. */
export function parseArtifact<T>(a: ArtifactText, parse: (text: string) => T): T {
  try {
    return parse(a.text)
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(a.source, err.message, err.line)
    throw err
  }
}

export interface LiveNodeInputs {
  /** Artifacts that were collected, as named texts (`NODE:command`). */
  texts: Array<{name: string; text: string}>
  /** Why the others could not be read. */
  missing: string[]
  client: ClusterApi
}

/**
 * Collects several artifacts from `node` over one connection; a missing optional artifact is reported in `missing`
 * instead of failing. The API client is returned so callers can add what only the API has (configz, ConfigMaps).
 */
export async function readNodeArtifacts(node: string, ids: readonly string[], flags: Partial<LiveFlags>, env: Environment): Promise<LiveNodeInputs> {
  const items = ids.map((id) => COLLECTION_PLAN.find((p) => p.id === id) ?? (() => {
    throw new BugError(`no collection plan item "${id}"`)
  })())
  const {snap, client} = await collectOneNode(node, items, flags, env)
  const texts: Array<{name: string; text: string}> = []
  const missing: string[] = []
  for (const item of items) {
    const a = snap.artifacts[item.id]!
    if (a.error !== undefined) missing.push(`${item.description} (${sourceLabel(item, a.source)}): ${a.error}`)
    else texts.push({name: `${node}:${sourceLabel(item, a.source)}`, text: a.content})
  }
  return {texts, missing, client}
}
