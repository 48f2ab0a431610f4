// moved to core/net/inet.ts; re-exported for callers outside core/iptables
export * from '../net/inet.js'
// moved to core/net/ip.ts (the one IpFamily); re-exported for callers outside core/iptables
export type {IpFamily} from '../net/ip.js'
