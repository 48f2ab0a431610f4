// Throwaway network namespaces for tests that drive the real iptables binaries. Never touches the host namespace.
import {spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'

export interface NetnsRun {
  status: number
  stdout: string
  stderr: string
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0
}

/** Creates `nd-<random>`; the caller deletes it with deleteNetns in an `after` hook. */
export function createNetns(): string {
  const name = `nd-${randomBytes(5).toString('hex')}`
  const r = spawnSync('ip', ['netns', 'add', name], {encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`ip netns add ${name} failed: ${r.stderr}`)
  return name
}

export function deleteNetns(name: string): void {
  spawnSync('ip', ['netns', 'del', name], {encoding: 'utf8'})
}

/** Runs a command inside the namespace, feeding `input` on stdin. */
export function inNetns(ns: string, cmd: string, args: string[], input = ''): NetnsRun {
  const r = spawnSync('ip', ['netns', 'exec', ns, cmd, ...args], {input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024})
  return {status: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '')}
}

export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], {encoding: 'utf8'}).status === 0
}
