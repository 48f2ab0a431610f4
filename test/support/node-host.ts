// What a live node's shell sees besides its network namespace: files at their real paths and running processes.
// Every SSH session of the node's sshd runs (sshd ForceCommand) in fresh mount and PID namespaces where the host's
// /etc, /var/lib and /usr are overlays adding the node's files, /proc shows only that namespace, and the node's
// processes run under their names and command lines (an idle program copied under each name, started with
// `exec -a argv0`), so discovery (pgrep, /proc/PID/cmdline) finds exactly them: not the host's processes, nor the
// fake nodes of other tests running at the same time. The host's files are never written.
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'

export interface HostProcess {
  /** /proc/PID/comm: the copied program's file name. */
  name: string
  /** argv[0] in /proc/PID/cmdline. */
  argv0: string
  /** Its arguments (no spaces or quotes inside one). */
  args: string[]
}

export interface NodeHost {
  /** Path relative to / (under etc/, var/lib/ or usr/) → content. */
  files: Record<string, string>
  processes: HostProcess[]
}

const OVERLAID = ['etc', 'var/lib', 'usr']

/** A program that idles whatever its arguments, compiled once per test process. */
let idle: string | undefined
function idleProgram(): string {
  if (idle) return idle
  const dir = mkdtempSync(join(tmpdir(), 'nd-idle-'))
  process.once('exit', () => rmSync(dir, {recursive: true, force: true}))
  writeFileSync(join(dir, 'idle.c'), '#include <unistd.h>\nint main(void) {\n  for (;;) pause();\n}\n')
  const cc = spawnSync('cc', ['-O', '-o', join(dir, 'idle'), join(dir, 'idle.c')], {encoding: 'utf8'})
  if (cc.status !== 0) throw new Error(`a live node's processes need a C compiler (cc): ${cc.stderr}`)
  return (idle = join(dir, 'idle'))
}

/** Whether node hosts can be made here (unshare, bash and cc installed). */
export function nodeHostSkipReason(): string | undefined {
  for (const tool of ['unshare', 'bash', 'cc']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} not installed`
  return undefined
}

/** Lays the host out under `dir` and returns the sshd_config lines that run every session inside it. */
export function nodeHostSshdConfig(dir: string, host: NodeHost): string {
  for (const [path, text] of Object.entries(host.files)) {
    if (!OVERLAID.some((top) => path.startsWith(`${top}/`))) throw new Error(`${path} is not under ${OVERLAID.join(', ')}`)
    mkdirSync(dirname(join(dir, 'up', path)), {recursive: true})
    writeFileSync(join(dir, 'up', path), text)
  }
  mkdirSync(join(dir, 'bin'), {recursive: true})
  for (const top of OVERLAID) for (const layer of ['up', 'work']) mkdirSync(join(dir, layer, top), {recursive: true})
  for (const p of host.processes) copyFileSync(idleProgram(), join(dir, 'bin', p.name))
  const lines = [
    ...OVERLAID.map((top) => `mount -t overlay overlay -o lowerdir=/${top},upperdir=${dir}/up/${top},workdir=${dir}/work/${top} /${top}`),
    ...host.processes.map((p) => `bash -c 'exec -a ${p.argv0} ${dir}/bin/${p.name} ${p.args.join(' ')}' </dev/null >/dev/null 2>&1 &`),
    ...host.processes.map((p) => `for i in $(seq 100); do grep -qx ${p.name} /proc/[0-9]*/comm 2>/dev/null && break; sleep 0.02; done`),
    // Not exec: the session's command must not be PID 1 of the namespace (the SSH transport reports its process group
    // to kill it later; that kill, a session of its own, runs in a fresh namespace too and reaches nothing of the host).
    '/bin/sh -c "$SSH_ORIGINAL_COMMAND"',
  ]
  writeFileSync(join(dir, 'session.sh'), `${lines.join('\n')}\n`)
  return `ForceCommand exec unshare -m -p -f --mount-proc --propagation private /bin/sh ${dir}/session.sh\n`
}
