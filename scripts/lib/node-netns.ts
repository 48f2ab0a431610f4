// What the node fixture scripts (make-node-*-fixtures.ts, make-conntrack-fixtures.ts) share: a fresh network
// namespace per case, commands run inside it, and artifacts recorded as the collection plan's command prints them.
import {execFileSync} from 'node:child_process'
import {COLLECTION_PLAN} from '../../src/core/collection/plan.js'
import type {Artifact} from '../../src/core/model/snapshot.js'

/** The collection plan's argv for artifact `id`. */
export function planArgv(id: string): readonly string[] {
  const item = COLLECTION_PLAN.find((p) => p.id === id)
  if (!item) throw new Error(`no collection plan item ${id}`)
  return item.argv
}

/** `content` recorded as the plan's command for `id` printed it (exit 0). */
export function planArtifact(id: string, content: string): Artifact {
  return {id, source: planArgv(id).join(' '), exitCode: 0, content}
}

/** Runs `argv` in namespace `ns` and returns its stdout; sysctl's output (also the plan's sysctls command) is kept when it exits non-zero for keys the namespace lacks. */
export function inNs(ns: string, argv: readonly string[], input?: string): string {
  try {
    return execFileSync('ip', ['netns', 'exec', ns, ...argv], {encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20})
  } catch (err) {
    const e = err as {stdout?: string}
    if ((argv[0] === 'sysctl' || argv === planArgv('sysctls')) && e.stdout) return e.stdout
    throw err
  }
}

/** The plan's command for `id` run in `ns`, as its artifact. */
export function captureInNs(ns: string, id: string): Artifact {
  return planArtifact(id, inNs(ns, planArgv(id)))
}

/** Runs `build` in a fresh namespace `<prefix>-<pid>` and deletes the namespace afterwards. */
export function withNetns<T>(prefix: string, build: (ns: string) => T): T {
  const ns = `${prefix}-${process.pid}`
  execFileSync('ip', ['netns', 'add', ns])
  try {
    return build(ns)
  } finally {
    execFileSync('ip', ['netns', 'del', ns])
  }
}
