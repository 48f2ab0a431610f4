// Follows one new connection through a node's iptables rules: nat PREROUTING (or OUTPUT for host traffic) to the DNAT,
// then the filter verdict and the nat POSTROUTING masquerade decision. `-m statistic` rules fork the trace, so the
// result is a distribution over endpoints. Semantics follow kube-proxy's test tracer (pkg/proxy/iptables/
// proxier_test.go tracePacket) but walk the real built-in chains and carry the packet mark instead of assuming.
// The trace is split by concern: types.ts (public types), origin.ts (destination and --from), walk.ts (chains and
// phases), matches.ts (rule matching), compare.ts (comparison), rules.ts (what the walk reads: a dump, or the
// expected ruleset's model through expected.ts); address maths is in core/net/addr.ts.
export * from './types.js'
export * from './origin.js'
export {traceIptables} from './walk.js'
export * from './compare.js'
export * from './rules.js'
export {expectedTraceRules} from './expected.js'
