// Backups a repair keeps before it changes something (the kube-proxy ConfigMap): files next to the audit log.
import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'

/** Writes a backup file (0600, never overwriting) into `backups/` next to the audit log; resolves with its path. */
export function backupSaver(auditLocation: string): (name: string, content: string) => Promise<string> {
  return async (name, content) => {
    const path = join(dirname(auditLocation), 'backups', name)
    await mkdir(dirname(path), {recursive: true, mode: 0o700})
    await writeFile(path, content, {mode: 0o600, flag: 'wx'})
    return path
  }
}
