// Spawns the built executable exactly as a user (or kubectl) would, and returns what it printed.
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {REPO_ROOT} from './golden.js'

export const CLI = join(REPO_ROOT, 'bin', 'kubectl-node_doctor')

export interface CliResult {
  exitCode: number
  stdout: string
  stderr: string
}

export function runCli(
  args: string[],
  options: {env?: Record<string, string | undefined>; input?: string; cwd?: string; timeoutMs?: number; command?: string} = {},
): Promise<CliResult> {
  if (options.command === undefined && !existsSync(join(REPO_ROOT, 'dist', 'commands'))) {
    // e2e tests run the built CLI: without a build they fail (never skip), saying what to do.
    return Promise.reject(new Error(`the CLI is not built (${join(REPO_ROOT, 'dist')} is missing): run \`npm run build\` first (npm test does)`))
  }
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries({...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...options.env})) {
      if (v !== undefined) env[k] = v
    }
    const child = spawn(options.command ?? CLI, args, {env, cwd: options.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({exitCode: code ?? (signal ? 128 : 1), stdout, stderr})
    })
    child.stdin.end(options.input ?? '')
  })
}
