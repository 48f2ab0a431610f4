// Local transport: runs the plan's commands on this machine (node-doctor running on the node itself,
// or inside the in-cluster agent). Same contract as SSH: non-zero exits are data.
import {spawn} from 'node:child_process'
import type {ExecResult, NodeTransport} from '../../ports/node-transport.js'

const DEFAULT_MAX_BYTES = 512 * 1024 * 1024

export class LocalTransport implements NodeTransport {
  readonly kind = 'local' as const

  constructor(
    readonly node: string,
    private readonly shell = '/bin/sh',
  ) {}

  exec(command: string, options: {timeoutMs: number; maxBytes?: number}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.shell, ['-c', command], {stdio: ['ignore', 'pipe', 'pipe']})
      const out: Buffer[] = []
      const err: Buffer[] = []
      let size = 0
      let timedOut = false
      const max = options.maxBytes ?? DEFAULT_MAX_BYTES
      child.stdout.on('data', (b: Buffer) => {
        size += b.length
        if (size > max) child.kill('SIGKILL')
        else out.push(b)
      })
      child.stderr.on('data', (b: Buffer) => err.push(b))
      const timer = options.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), options.timeoutMs) : undefined
      child.on('error', reject)
      child.on('close', (code) => {
        if (timer) clearTimeout(timer)
        const r: ExecResult = {exitCode: code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8')}
        if (timedOut) r.timedOut = true
        if (size > max) r.stderr += `\noutput exceeded ${max} bytes and was cut`
        resolve(r)
      })
    })
  }

  async close(): Promise<void> {}
}
