// Reads and writes bundles (directories, or .tgz archives of one). The only bundle I/O.
//
// A bundle is input from elsewhere (a colleague's laptop, a CI artifact, an attacker): reading it resolves real
// paths (no symlink, `..` or absolute path leads outside it), takes regular files only, validates node names,
// checks the manifest's and snapshots' shape (a malformed bundle is exit 2, not a crash), bounds JSON depth and
// every size (src/core/limits), and refuses an archive over its limits from its headers, before extracting it.
import {closeSync, constants as fsConstants, createReadStream, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve, sep} from 'node:path'
import * as tar from 'tar'
import {redactJson, redactSecrets} from '../../core/redact/redact.js'
import {artifactShapeProblem} from '../../core/collection/shape.js'
import {parseJsonBounded} from '../../core/limits/json.js'
import {type Limits, limitMessage, limits} from '../../core/limits/limits.js'
import type {CollectionError} from '../../core/model/report.js'
import {SNAPSHOT_API_VERSION, type Artifact, type ClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {hostProblem} from '../../core/net/host.js'
import {UsageError} from '../../errors.js'
import {artifactFileName, BUNDLE_FILE, BUNDLE_KIND, type BundleManifest, CLUSTER_FILE, NODE_FILE, NODES_DIR} from './format.js'

export interface Bundle {
  manifest: BundleManifest
  cluster: ClusterSnapshot
  nodes: NodeSnapshot[]
}

type StoredArtifact = Omit<Artifact, 'content'> & {file: string}
type StoredNode = Omit<NodeSnapshot, 'artifacts'> & {artifacts: Record<string, StoredArtifact>}

/** Why `name` cannot be a node folder of a bundle (node names are DNS subdomains), or undefined. */
export function nodeNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `it is ${name === null ? 'null' : typeof name}, not a string`
  if (name.endsWith('.')) return 'it ends with a dot'
  if (name.includes(':') || name.includes('%')) return 'it contains ":" or "%"'
  return hostProblem(name)
}

/** Reads files of one bundle directory: real paths inside it only, regular files only, within the size limits. */
class BundleFiles {
  readonly root: string
  private total = 0

  constructor(
    dir: string,
    private readonly lim: Limits,
  ) {
    this.root = realpathSync(dir)
  }

  /** The text of `rel` (relative to the bundle root). `what` names it in errors. */
  read(rel: string, what: string): string {
    const full = resolve(this.root, rel)
    if (!full.startsWith(this.root + sep)) throw new UsageError(`bundle ${this.root}: ${what} (${rel}) points outside the bundle`)
    let fd: number
    try {
      // O_NOFOLLOW: a symlink as the file itself is refused; realpath below catches one in a parent folder.
      fd = openSync(full, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0))
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ELOOP' || code === 'EMLINK') throw new UsageError(`bundle ${this.root}: ${what} (${rel}) is a symbolic link; bundles hold regular files only`)
      throw new UsageError(`bundle is incomplete: ${what} (${full}) is missing`, 'Re-run `kubectl node-doctor collect`.')
    }
    try {
      const real = realpathSync(full)
      if (!real.startsWith(this.root + sep)) throw new UsageError(`bundle ${this.root}: ${what} (${rel}) resolves outside the bundle (${real})`)
      const st = fstatSync(fd)
      if (!st.isFile()) throw new UsageError(`bundle ${this.root}: ${what} (${rel}) is not a regular file`)
      if (st.size > this.lim.artifactBytes) throw new UsageError(`bundle ${this.root}: ${limitMessage(`${what} (${rel})`, 'artifactBytes', this.lim.artifactBytes)}`)
      this.total += st.size
      if (this.total > this.lim.bundleBytes) throw new UsageError(`bundle ${this.root}: ${limitMessage('the bundle', 'bundleBytes', this.lim.bundleBytes)}`)
      return readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
  }

  json(rel: string, what: string): unknown {
    const text = this.read(rel, what)
    try {
      return parseJsonBounded(text, this.lim.documentDepth)
    } catch (err) {
      throw new UsageError(`bundle file ${join(this.root, rel)} is not valid JSON: ${(err as Error).message}`)
    }
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function malformed(file: string, detail: string): UsageError {
  return new UsageError(`bundle file ${file} is malformed: ${detail}`, 'Re-run `kubectl node-doctor collect`, or check that this is a node-doctor bundle.')
}

/** Reads a bundle directory or .tgz. Throws UsageError naming what is missing, malformed or over a limit. */
export async function readBundle(path: string, lim: Limits = limits()): Promise<Bundle> {
  if (!existsSync(path)) throw new UsageError(`bundle ${path} does not exist`)
  if (statSync(path).isFile()) {
    await checkArchive(path, lim)
    const dir = mkdtempSync(join(tmpdir(), 'node-doctor-bundle-'))
    try {
      try {
        await tar.x({file: path, cwd: dir, strict: true, preserveOwner: false, filter: (_p, e) => isPlainEntry(e as unknown as ArchiveEntry)})
      } catch (err) {
        throw new UsageError(`bundle ${path} is not a readable .tgz archive: ${(err as Error).message}`)
      }
      const top = existsSync(join(dir, BUNDLE_FILE)) ? dir : join(dir, readdirSync(dir)[0] ?? '')
      return readBundleDir(top, lim)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }
  return readBundleDir(path, lim)
}

interface ArchiveEntry {
  type: string
  path: string
  size: number
  resume(): void
}

const PLAIN_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory'])

function escapes(path: string): boolean {
  return path.startsWith('/') || path.split(/[\\/]/).includes('..')
}

function isPlainEntry(e: ArchiveEntry): boolean {
  return PLAIN_TYPES.has(e.type) && !escapes(e.path)
}

/**
 * One streaming pass over the archive's headers before anything is written to disk: refuses links, devices,
 * absolute and `..` paths, more than bundleEntries entries and more than bundleBytes in total, stopping at the
 * first header over a limit (a 5 GiB entry is refused at its header, not after inflating it).
 */
function checkArchive(path: string, lim: Limits): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    let entries = 0
    let total = 0
    let failed = false
    const input = createReadStream(path)
    const parser = new tar.Parser({strict: true})
    const fail = (message: string) => {
      if (failed) return
      failed = true
      input.unpipe()
      input.destroy()
      reject(new UsageError(`bundle ${path}: ${message}`, 'A bundle written by `kubectl node-doctor collect` is far below these limits; raise them only for a bundle you trust.'))
    }
    parser.on('entry', (entry: ArchiveEntry) => {
      if (!failed) {
        entries++
        total += entry.size
        if (!PLAIN_TYPES.has(entry.type)) fail(`the archive holds ${JSON.stringify(entry.path)} of type ${entry.type}; bundles hold regular files and folders only`)
        else if (escapes(entry.path)) fail(`the archive entry ${JSON.stringify(entry.path)} points outside the bundle`)
        else if (entries > lim.bundleEntries) fail(limitMessage('the number of archive entries', 'bundleEntries', lim.bundleEntries))
        else if (entry.size > lim.artifactBytes) fail(limitMessage(`the archive entry ${JSON.stringify(entry.path)}`, 'artifactBytes', lim.artifactBytes))
        else if (total > lim.bundleBytes) fail(limitMessage('the uncompressed size of the archive', 'bundleBytes', lim.bundleBytes))
      }
      entry.resume()
    })
    parser.on('error', (err: Error) => {
      if (!failed) {
        failed = true
        reject(new UsageError(`bundle ${path} is not a readable .tgz archive: ${err.message}`))
      }
    })
    parser.on('warn', (_code: string, message: string) => fail(`the archive is damaged: ${message}`))
    parser.on('end', () => {
      if (!failed) resolvePromise()
    })
    input.on('error', (err) => {
      if (!failed) {
        failed = true
        reject(new UsageError(`bundle ${path} cannot be read: ${err.message}`))
      }
    })
    input.pipe(parser as unknown as NodeJS.WritableStream)
  })
}

function readBundleDir(dir: string, lim: Limits): Bundle {
  const files = new BundleFiles(dir, lim)
  const manifestPath = join(files.root, BUNDLE_FILE)
  const manifest = files.json(BUNDLE_FILE, 'the manifest')
  if (!isRecord(manifest)) throw malformed(manifestPath, 'it is not a JSON object')
  if (manifest.kind !== BUNDLE_KIND) throw new UsageError(`${manifestPath} is not a node-doctor bundle manifest (kind ${JSON.stringify(manifest.kind)})`)
  if (manifest.apiVersion !== SNAPSHOT_API_VERSION) {
    throw new UsageError(`bundle ${dir} has apiVersion ${JSON.stringify(manifest.apiVersion)}; this node-doctor reads ${SNAPSHOT_API_VERSION}`)
  }
  if (!Array.isArray(manifest.nodes)) throw malformed(manifestPath, '"nodes" is not a list of node names')
  for (const name of manifest.nodes as unknown[]) {
    const why = nodeNameProblem(name)
    if (why !== undefined) throw malformed(manifestPath, `node name ${JSON.stringify(name)} is not a DNS subdomain (${why})`)
  }
  if (new Set(manifest.nodes).size !== manifest.nodes.length) throw malformed(manifestPath, 'a node is listed twice')
  const clusterPath = join(files.root, CLUSTER_FILE)
  const cluster = files.json(CLUSTER_FILE, 'the cluster snapshot')
  if (!isRecord(cluster) || cluster.kind !== 'ClusterSnapshot') throw malformed(clusterPath, 'it is not a ClusterSnapshot')
  for (const key of ['nodes', 'services', 'endpointSlices', 'pods', 'daemonSets', 'configMaps', 'serviceCIDRs', 'errors']) {
    if (!Array.isArray(cluster[key])) throw malformed(clusterPath, `"${key}" is not a list`)
  }
  for (const key of ['configz', 'kubeProxyLogs', 'calico']) {
    if (!isRecord(cluster[key])) throw malformed(clusterPath, `"${key}" is not an object`)
  }
  const nodes = (manifest.nodes as string[]).map((name): NodeSnapshot => {
    const nodeRel = join(NODES_DIR, name)
    const nodeFile = join(files.root, nodeRel, NODE_FILE)
    const stored = files.json(join(nodeRel, NODE_FILE), `the snapshot of node ${name}`)
    if (!isRecord(stored) || !isRecord(stored.artifacts)) throw malformed(nodeFile, 'it is not a NodeSnapshot with an "artifacts" object')
    if (stored.errors !== undefined && !Array.isArray(stored.errors)) throw malformed(nodeFile, '"errors" is not a list')
    const errors = [...((stored.errors as CollectionError[] | undefined) ?? [])]
    const artifacts: Record<string, Artifact> = {}
    for (const [id, a] of Object.entries(stored.artifacts)) {
      if (!isRecord(a) || typeof a.file !== 'string') throw malformed(nodeFile, `artifact ${JSON.stringify(id)} has no "file"`)
      if (a.error !== undefined && typeof a.error !== 'string') throw malformed(nodeFile, `artifact ${JSON.stringify(id)} has an "error" that is not text`)
      if (typeof a.source !== 'string') throw malformed(nodeFile, `artifact ${JSON.stringify(id)} has no "source"`)
      const {file, ...rest} = a as unknown as StoredArtifact
      const artifact: Artifact = {...rest, id, content: ''}
      if (a.error === undefined) {
        const content = files.read(join(nodeRel, file), `artifact ${id} of node ${name}`)
        // The same shape check as at collection: a bundle edited (or damaged) since is not read as a clean node.
        const problem = artifactShapeProblem(id, content)
        if (problem === undefined) artifact.content = content
        else {
          artifact.error = problem
          errors.push({node: name, source: id, message: `${problem} (in the bundle)`})
        }
      }
      artifacts[id] = artifact
    }
    const s = stored as unknown as StoredNode
    return {...s, apiVersion: SNAPSHOT_API_VERSION, kind: 'NodeSnapshot', node: name, artifacts, errors}
  })
  return {manifest: manifest as unknown as BundleManifest, cluster: cluster as unknown as ClusterSnapshot, nodes}
}

/**
 * Writes a bundle directory (or a .tgz when `path` ends in .tgz/.tar.gz). Writes to a temp dir then renames.
 * Everything stored is redacted (src/core/redact): artifact contents and every string of the cluster and node
 * snapshots. A node whose name is not a DNS subdomain is not written (no folder outside nodes/ can be made from
 * a name); it is listed as an error of the cluster snapshot instead.
 */
export async function writeBundle(path: string, bundle: Bundle): Promise<void> {
  const archive = /\.(tgz|tar\.gz)$/.test(path)
  const parent = dirname(resolve(path))
  mkdirSync(parent, {recursive: true})
  const staging = mkdtempSync(join(archive ? tmpdir() : parent, '.node-doctor-bundle-'))
  const root = archive ? join(staging, 'node-doctor-bundle') : staging
  mkdirSync(root, {recursive: true})
  const refused: CollectionError[] = []
  const nodes = bundle.nodes.filter((n) => {
    const why = nodeNameProblem(n.node)
    if (why !== undefined) refused.push({node: JSON.stringify(n.node).slice(1, -1), source: 'bundle', message: `node name is not a DNS subdomain (${why}); its snapshot was not written to the bundle`})
    return why === undefined
  })
  const manifest: BundleManifest = {...bundle.manifest, nodes: bundle.manifest.nodes.filter((n) => nodeNameProblem(n) === undefined)}
  writeFileSync(join(root, BUNDLE_FILE), JSON.stringify(redactJson(manifest), null, 2) + '\n')
  mkdirSync(join(root, 'cluster'), {recursive: true})
  const cluster = refused.length === 0 ? bundle.cluster : {...bundle.cluster, errors: [...bundle.cluster.errors, ...refused]}
  writeFileSync(join(root, CLUSTER_FILE), JSON.stringify(redactJson(cluster), null, 2) + '\n')
  const nodesRoot = join(root, NODES_DIR)
  for (const node of nodes) {
    const nodeDir = join(nodesRoot, node.node)
    if (!nodeDir.startsWith(nodesRoot + sep)) throw new UsageError(`node name ${JSON.stringify(node.node)} would be written outside the bundle`)
    mkdirSync(nodeDir, {recursive: true})
    const artifacts: Record<string, StoredArtifact> = {}
    for (const [id, a] of Object.entries(node.artifacts)) {
      const {content, ...rest} = a
      const file = artifactFileName(id)
      if (a.error === undefined) writeFileSync(join(nodeDir, file), redactSecrets(content))
      artifacts[id] = {...rest, file}
    }
    const stored: StoredNode = {...node, artifacts}
    writeFileSync(join(nodeDir, NODE_FILE), JSON.stringify(redactJson(stored), null, 2) + '\n')
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
