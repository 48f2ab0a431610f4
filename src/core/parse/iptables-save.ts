// moved to core/iptables/save.ts (the iptables rule language and save format live in one folder); re-exported for callers outside core/iptables
export * from '../iptables/save.js'
