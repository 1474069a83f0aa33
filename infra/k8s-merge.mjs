// Kubernetes' strategic merge patch, as far as infra/k8s's overlays need it: maps merge key by key,
// `null` deletes a key, and a list merges item by item on its merge key where the API declares one
// (containers and env by `name`, container ports by `containerPort`, Service ports by `port`, ...);
// every other list is replaced whole (an Ingress's `rules`, `args`, `command`). Directives
// (`$patch`, `$retainKeys`, ...) are refused: kustomize would honour them and this would not.
import { RenderError } from './k8s-render-error.mjs';

/** patchMergeKey of the list fields the API declares one for, by field name. */
const MERGE_KEYS = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  tolerations: 'key',
  topologySpreadConstraints: 'topologyKey',
};

/** `ports` is a container's (containerPort) or a Service's (port): the items tell which. */
function mergeKeyOf(field, items) {
  if (field === 'ports')
    return items.some((item) => 'containerPort' in item) ? 'containerPort' : 'port';
  return MERGE_KEYS[field];
}

const isMap = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function mergeList(field, base, patch) {
  const key = mergeKeyOf(field, [...base, ...patch]);
  if (!key || !base.every(isMap) || !patch.every(isMap)) return structuredClone(patch);
  const merged = base.map((item) => structuredClone(item));
  for (const item of patch) {
    const at = merged.findIndex((existing) => existing[key] === item[key]);
    if (at === -1) merged.push(strategicMerge({}, item));
    else merged[at] = strategicMerge(merged[at], item);
  }
  return merged;
}

/** `base` with `patch` merged in (neither is changed). */
export function strategicMerge(base, patch) {
  const out = structuredClone(base);
  for (const [field, value] of Object.entries(patch)) {
    if (field.startsWith('$')) {
      throw new RenderError(`strategic merge directive ${field} is not supported`);
    }
    if (value === null) delete out[field];
    else if (isMap(value) && isMap(out[field])) out[field] = strategicMerge(out[field], value);
    else if (Array.isArray(value) && Array.isArray(out[field])) {
      out[field] = mergeList(field, out[field], value);
    } else out[field] = structuredClone(value);
  }
  return out;
}
