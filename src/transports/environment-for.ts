// Which Environment a command that reads either files or a node gets: with no NODE argument, the files-only one
// (transports/offline.ts), which loads neither the SSH nor the Kubernetes client; with a NODE, connect.ts's.
import type {Environment} from '../ports/environment.js'
import type {ConnectFlags} from './connect.js'

export async function environmentFor(node: string | undefined, flags: ConnectFlags): Promise<Environment> {
  if (node === undefined) return (await import('./offline.js')).offlineEnvironment()
  return (await import('./connect.js')).environment(flags)
}
