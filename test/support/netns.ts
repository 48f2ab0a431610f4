// Network namespaces for tests that run real iptables/nft/ip: each test gets its own, deleted afterwards.
import {execFileSync, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'

/** Why real-tool tests cannot run here, or undefined when they can (root, `ip netns` works). */
export function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root for network namespaces (CI runs as root)'
  const r = spawnSync('ip', ['netns', 'list'], {encoding: 'utf8'})
  if (r.status !== 0) return `ip netns does not work here: ${r.stderr.trim()}`
  return undefined
}

export interface Netns {
  name: string
  /** Runs a command inside the namespace; throws with stderr on failure. */
  exec(argv: string[], input?: string): string
  /** Runs a command inside the namespace and returns status and output. */
  run(argv: string[], input?: string): {status: number | null; stdout: string; stderr: string}
  destroy(): void
}

export function createNetns(prefix = 'nd'): Netns {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`
  execFileSync('ip', ['netns', 'add', name])
  const run = (argv: string[], input?: string) => {
    const r = spawnSync('ip', ['netns', 'exec', name, ...argv], {input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024})
    return {status: r.status, stdout: r.stdout, stderr: r.stderr}
  }
  return {
    name,
    run,
    exec(argv, input) {
      const r = run(argv, input)
      if (r.status !== 0) throw new Error(`${argv.join(' ')} in netns ${name} failed (${r.status}): ${r.stderr}`)
      return r.stdout
    },
    destroy() {
      spawnSync('ip', ['netns', 'del', name])
    },
  }
}
