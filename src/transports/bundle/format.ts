// The bundle: what `collect` writes and `analyze` reads. Documented in docs/bundle.md.
//
//   bundle.json                     {apiVersion, kind: Bundle, createdAt, tool, context?, nodes: [names]}
//   cluster/snapshot.json           the ClusterSnapshot (API objects, read once; no Secrets)
//   nodes/<node>/node.json          the NodeSnapshot without artifact contents (each artifact names its file)
//   nodes/<node>/<artifact-id>.txt  each artifact's content, as collected
export const BUNDLE_KIND = 'Bundle'
export const BUNDLE_FILE = 'bundle.json'
export const CLUSTER_FILE = 'cluster/snapshot.json'
export const NODES_DIR = 'nodes'
export const NODE_FILE = 'node.json'

export interface BundleManifest {
  apiVersion: string
  kind: typeof BUNDLE_KIND
  createdAt: string
  tool: {name: string; version: string}
  context?: string
  nodes: string[]
}

/** File name of an artifact inside a node folder; artifact ids are plain words, but never trust them as paths. */
export function artifactFileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`
}
