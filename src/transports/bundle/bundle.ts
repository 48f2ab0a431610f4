// Reads and writes bundles (directories, or .tgz archives of one). The only bundle I/O.
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import * as tar from 'tar'
import {redactJson, redactSecrets} from '../../core/collection/redact.js'
import {SNAPSHOT_API_VERSION, type Artifact, type ClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {UsageError} from '../../errors.js'
import {artifactFileName, BUNDLE_FILE, BUNDLE_KIND, type BundleManifest, CLUSTER_FILE, NODE_FILE, NODES_DIR} from './format.js'

export interface Bundle {
  manifest: BundleManifest
  cluster: ClusterSnapshot
  nodes: NodeSnapshot[]
}

type StoredArtifact = Omit<Artifact, 'content'> & {file: string}
type StoredNode = Omit<NodeSnapshot, 'artifacts'> & {artifacts: Record<string, StoredArtifact>}

function readJson<T>(path: string, what: string): T {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new UsageError(`bundle is incomplete: ${what} (${path}) is missing`, 'Re-run `kubectl node-doctor collect`.')
  }
  try {
    return JSON.parse(text) as T
  } catch (err) {
    throw new UsageError(`bundle file ${path} is not valid JSON: ${(err as Error).message}`)
  }
}

/** Reads a bundle directory or .tgz. Throws UsageError naming what is missing or malformed. */
export async function readBundle(path: string): Promise<Bundle> {
  if (!existsSync(path)) throw new UsageError(`bundle ${path} does not exist`)
  if (statSync(path).isFile()) {
    const dir = mkdtempSync(join(tmpdir(), 'node-doctor-bundle-'))
    try {
      await tar.x({file: path, cwd: dir, strict: true})
    } catch (err) {
      rmSync(dir, {recursive: true, force: true})
      throw new UsageError(`bundle ${path} is not a readable .tgz archive: ${(err as Error).message}`)
    }
    try {
      const top = existsSync(join(dir, BUNDLE_FILE)) ? dir : join(dir, readdirSync(dir)[0] ?? '')
      return readBundleDir(top)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }
  return readBundleDir(path)
}

function readBundleDir(dir: string): Bundle {
  const manifest = readJson<BundleManifest>(join(dir, BUNDLE_FILE), 'the manifest')
  if (manifest.kind !== BUNDLE_KIND) throw new UsageError(`${join(dir, BUNDLE_FILE)} is not a node-doctor bundle manifest (kind ${String(manifest.kind)})`)
  if (manifest.apiVersion !== SNAPSHOT_API_VERSION) {
    throw new UsageError(`bundle ${dir} has apiVersion ${manifest.apiVersion}; this node-doctor reads ${SNAPSHOT_API_VERSION}`)
  }
  const cluster = readJson<ClusterSnapshot>(join(dir, CLUSTER_FILE), 'the cluster snapshot')
  const nodes = manifest.nodes.map((name) => {
    const nodeDir = join(dir, NODES_DIR, name)
    const stored = readJson<StoredNode>(join(nodeDir, NODE_FILE), `the snapshot of node ${name}`)
    const artifacts: Record<string, Artifact> = {}
    for (const [id, a] of Object.entries(stored.artifacts)) {
      const {file, ...rest} = a
      let content = ''
      if (a.error === undefined) {
        const p = resolve(nodeDir, file)
        if (!p.startsWith(resolve(nodeDir))) throw new UsageError(`bundle node ${name}: artifact ${id} points outside its folder`)
        try {
          content = readFileSync(p, 'utf8')
        } catch {
          throw new UsageError(`bundle is incomplete: artifact ${id} of node ${name} (${p}) is missing`)
        }
      }
      artifacts[id] = {...rest, content}
    }
    return {...stored, artifacts, transport: stored.transport} satisfies NodeSnapshot
  })
  return {manifest, cluster, nodes}
}

/** Writes a bundle directory (or a .tgz when `path` ends in .tgz/.tar.gz). Writes to a temp dir then renames. */
export async function writeBundle(path: string, bundle: Bundle): Promise<void> {
  const archive = /\.(tgz|tar\.gz)$/.test(path)
  const parent = dirname(resolve(path))
  mkdirSync(parent, {recursive: true})
  const staging = mkdtempSync(join(archive ? tmpdir() : parent, '.node-doctor-bundle-'))
  const root = archive ? join(staging, 'node-doctor-bundle') : staging
  mkdirSync(root, {recursive: true})
  writeFileSync(join(root, BUNDLE_FILE), JSON.stringify(bundle.manifest, null, 2) + '\n')
  mkdirSync(join(root, 'cluster'), {recursive: true})
  writeFileSync(join(root, CLUSTER_FILE), JSON.stringify(redactJson(bundle.cluster), null, 2) + '\n')
  for (const node of bundle.nodes) {
    const nodeDir = join(root, NODES_DIR, node.node)
    mkdirSync(nodeDir, {recursive: true})
    const artifacts: Record<string, StoredArtifact> = {}
    for (const [id, a] of Object.entries(node.artifacts)) {
      const {content, ...rest} = a
      const file = artifactFileName(id)
      if (a.error === undefined) writeFileSync(join(nodeDir, file), redactSecrets(content))
      artifacts[id] = {...rest, file}
    }
    const stored: StoredNode = {...node, artifacts}
    writeFileSync(join(nodeDir, NODE_FILE), JSON.stringify(stored, null, 2) + '\n')
  }
  if (archive) {
    await tar.c({gzip: true, file: path, cwd: staging, portable: true}, ['node-doctor-bundle'])
    rmSync(staging, {recursive: true, force: true})
  } else {
    if (existsSync(path)) {
      if (readdirSync(path).length > 0) {
        rmSync(staging, {recursive: true, force: true})
        throw new UsageError(`output directory ${path} exists and is not empty`, 'Choose a new --out path, or remove it first.')
      }
      rmSync(path, {recursive: true})
    }
    renameSync(staging, path)
  }
}
