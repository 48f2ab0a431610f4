// Shared machinery for Kubernetes component-config files (KubeletConfiguration, KubeProxyConfiguration):
// YAML/JSON loading with line numbers, a field schema that mirrors how the Go components decode
// (sigs.k8s.io/yaml: YAML 1.1 → JSON → case-sensitive json.Unmarshal), Go durations and resource quantities,
// per-field origins, and defaulting. Pure: text in, data out.
// Split by concern: the data types are in core/model/config-issue.ts, Go durations in go-duration.ts, the rest in
// component-config/ (schema, quantity, json-pointer, yaml, decode, defaults, configmap); this module re-exports them.
export * from '../model/config-issue.js'
export * from './go-duration.js'
export * from './component-config/schema.js'
export * from './component-config/quantity.js'
export * from './component-config/json-pointer.js'
export * from './component-config/yaml.js'
export * from './component-config/decode.js'
export * from './component-config/defaults.js'
export * from './component-config/configmap.js'
