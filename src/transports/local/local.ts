// Local transport: runs the plan's commands on this machine (node-doctor running on the node itself,
// or inside the in-cluster agent). Same contract as SSH: non-zero exits are data.
import {spawn} from 'node:child_process'
import type {ExecOptions, ExecResult, NodeTransport} from '../../ports/node-transport.js'
import {Capture, stderrCap} from '../capture.js'
import {limits} from '../../core/limits/limits.js'


/**
 * Every command runs in a process group of its own, so that a timeout ends all it started (a batch script's
 * commands and watchdog, a pipeline), not only the shell: a child left behind would hold the output pipes open
 * and the exec would wait for it. The groups still running when node-doctor exits (Ctrl-C) are ended with it, as
 * the terminal would have ended them had they stayed in its process group.
 */
const running = new Set<number>()
let exitHook = false

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

function track(pid: number): void {
  running.add(pid)
  if (!exitHook) {
    exitHook = true
    process.on('exit', () => {
      for (const p of running) killGroup(p)
    })
  }
}

export class LocalTransport implements NodeTransport {
  readonly kind = 'local' as const

  constructor(
    readonly node: string,
    private readonly shell = '/bin/sh',
  ) {}

  exec(command: string, options: ExecOptions): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.shell, ['-c', command], {stdio: ['ignore', 'pipe', 'pipe'], detached: true})
      const pid = child.pid
      if (pid !== undefined) track(pid)
      const max = options.maxBytes ?? limits().artifactBytes
      const out = new Capture(max)
      const err = new Capture(stderrCap(max))
      let timedOut = false
      const kill = () => (pid === undefined ? child.kill('SIGKILL') : killGroup(pid))
      let settled = false
      // End frames on both streams: done, even if a daemon the command started still holds the pipes open.
      const ended = () => {
        const m = options.endMarkers
        if (settled || !m || !out.endsWith(m.stdout) || !err.endsWith(m.stderr)) return
        settled = true
        done()
        kill() // what is left of the group (the daemon holding the pipes) ends with the command, as on a timeout
        child.stdout.destroy()
        child.stderr.destroy()
        child.unref()
        resolve({exitCode: null, stdout: out.text(), stderr: err.text()})
      }
      child.stdout.on('data', (b: Buffer) => {
        if (!out.push(b)) kill()
        else ended()
      })
      child.stderr.on('data', (b: Buffer) => {
        err.push(b) // past its cap stderr is dropped, the command goes on
        ended()
      })
      const timer = options.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), kill()), options.timeoutMs) : undefined
      const done = () => {
        if (timer) clearTimeout(timer)
        if (pid !== undefined) running.delete(pid)
      }
      child.on('error', (e) => {
        done()
        if (!settled) reject(e)
      })
      child.on('close', (code) => {
        if (settled) return
        done()
        const r: ExecResult = {exitCode: code, stdout: out.text(), stderr: err.text()}
        if (timedOut) r.timedOut = true
        if (out.cut) {
          r.truncated = true
          r.stderr += `\noutput exceeded ${max} bytes and was cut`
        }
        if (err.cut) r.stderr += `\nstderr exceeded ${stderrCap(max)} bytes and was cut`
        resolve(r)
      })
    })
  }

  async close(): Promise<void> {}
}
