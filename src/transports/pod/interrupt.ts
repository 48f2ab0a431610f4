// Process-wide registry of cleanups that must run even when the user presses Ctrl-C: debug pods are privileged
// root shells on nodes, so an interrupted run deletes them before it dies. Signal handlers are installed only
// while something is registered, so the default SIGINT/SIGTERM behaviour is untouched otherwise.

/** A cleanup; it should not throw, but a rejection is ignored. */
export type Cleanup = () => Promise<void>

const SIGNALS = ['SIGINT', 'SIGTERM'] as const
type HandledSignal = (typeof SIGNALS)[number]
/** How long cleanups may take after a signal before the process dies anyway. */
const CLEANUP_DEADLINE_MS = 15_000

const pending = new Map<symbol, {label: string; run: Cleanup}>()
let installed = false
let interrupted: HandledSignal | undefined

/** Thrown by registerInterruptCleanup once a signal arrived: nothing new may be created while the process dies. */
export class InterruptedError extends Error {}

/**
 * Registers `run` to be awaited if SIGINT/SIGTERM arrives. Returns the unregister function (idempotent), which the
 * owner calls once it has cleaned up by itself. `label` names the resource in the message printed on interrupt.
 * Register before creating the resource; after a signal this throws InterruptedError instead.
 */
export function registerInterruptCleanup(label: string, run: Cleanup): () => void {
  if (interrupted !== undefined) throw new InterruptedError(`interrupted (${interrupted}): not creating ${label}`)
  const key = Symbol(label)
  pending.set(key, {label, run})
  install()
  return () => {
    pending.delete(key)
    if (pending.size === 0 && interrupted === undefined) uninstall()
  }
}

/** Labels of the cleanups currently registered (for tests and diagnostics). */
export function pendingInterruptCleanups(): string[] {
  return [...pending.values()].map((p) => p.label)
}

function install(): void {
  if (installed) return
  installed = true
  for (const s of SIGNALS) process.on(s, onSignal)
}

function uninstall(): void {
  if (!installed) return
  installed = false
  for (const s of SIGNALS) process.off(s, onSignal)
}

function onSignal(signal: HandledSignal): void {
  if (interrupted !== undefined) {
    // A second Ctrl-C while cleaning up: the user insists; leave now (what was not deleted stays for `cleanup`).
    process.stderr.write('\ninterrupted again: exiting without waiting for cleanup (run `kubectl node-doctor cleanup` later)\n')
    process.exit(128 + signalNumber(signal))
  }
  interrupted = signal
  const all = [...pending.values()]
  pending.clear()
  process.stderr.write(`\n${signal === 'SIGINT' ? 'interrupted' : 'terminated'}: cleaning up ${all.map((p) => p.label).join(', ')} (press Ctrl-C again to skip)\n`)
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, CLEANUP_DEADLINE_MS).unref())
  void Promise.race([Promise.allSettled(all.map((p) => p.run())), deadline]).then(() => {
    uninstall()
    // Die of the same signal, so the parent (shell, kubectl) sees an interrupted process, as without us; the exit
    // code covers the case where some other listener keeps the signal from killing us.
    process.exitCode = 128 + signalNumber(signal)
    process.kill(process.pid, signal)
  })
}

function signalNumber(signal: HandledSignal): number {
  return signal === 'SIGINT' ? 2 : 15
}
