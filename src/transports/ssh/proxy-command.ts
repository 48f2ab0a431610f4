// ssh_config ProxyCommand: the command's stdin/stdout carry the SSH connection (ssh2's `sock`), as ssh(1) runs it:
// `$SHELL -c "exec COMMAND"` (/bin/sh when SHELL is unset), tokens already expanded by ssh-config.ts.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {Duplex} from 'node:stream'

/** Bytes of the command's stderr kept for error messages. */
const STDERR_KEEP = 4096
/** After the connection ends, how long the command may take to exit on its closed stdin before it is killed. */
const EXIT_GRACE_MS = 2_000

export interface ProxyCommandStream {
  sock: Duplex
  /** Why the command ended, when it has ("exited with code 1: nc: connection refused"); undefined while running. */
  ended(): string | undefined
  /** Waits (bounded, ms) for the command to end, then returns ended(). */
  settle(ms: number): Promise<string | undefined>
  /** Ends the command: closes its stdin, then SIGTERM after a grace period. */
  stop(): void
}

export function spawnProxyCommand(command: string, env: NodeJS.ProcessEnv = process.env): ProxyCommandStream {
  const shell = env.SHELL || '/bin/sh'
  const child: ChildProcessWithoutNullStreams = spawn(shell, ['-c', `exec ${command}`], {stdio: ['pipe', 'pipe', 'pipe'], env})
  let stderr = ''
  let end: string | undefined
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`
      const said = stderr.trim().split('\n').at(-1)
      end = `the ProxyCommand ${why}${said ? `: ${said}` : ''}`
      resolve()
    })
    child.once('error', (err) => {
      end = `ProxyCommand "${command}" could not be started with ${shell}: ${err.message}`
      sock.destroy()
      resolve()
    })
  })
  child.stderr.on('data', (b: Buffer) => {
    if (stderr.length < STDERR_KEEP) stderr += b.toString('utf8').slice(0, STDERR_KEEP - stderr.length)
  })
  // EPIPE when the command exits while ssh2 still writes: the 'close' below reports it instead.
  child.stdin.on('error', () => undefined)
  const sock = Duplex.from({readable: child.stdout, writable: child.stdin})
  sock.on('error', () => undefined)
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    child.stdin.end()
    const t = setTimeout(() => child.kill('SIGTERM'), EXIT_GRACE_MS)
    t.unref()
    void exited.then(() => clearTimeout(t))
  }
  sock.once('close', stop)
  return {
    sock,
    ended: () => end,
    settle: async (ms) => {
      await Promise.race([exited, new Promise((r) => setTimeout(r, ms).unref())])
      return end
    },
    stop,
  }
}
