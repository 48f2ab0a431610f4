// moved to core/net/ip.ts; re-exported for callers outside core/proxier
export * from '../net/ip.js'
// moved to core/net/ip.ts (one family type, IpFamily); the old name re-exported for callers outside core/proxier
export type {IpFamily as IPFamily} from '../net/ip.js'
