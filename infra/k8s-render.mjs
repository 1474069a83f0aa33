// The part of kustomize that infra/k8s uses, so `pnpm check:k8s` can render an overlay where
// kustomize (or kubectl) is not installed: `resources` (files and folders with a kustomization),
// `patches` (strategic merge, or JSON 6902 with a `target`), `images` and `namespace`, applied in
// kustomize's order. Any other kustomization field is refused rather than ignored, so a render
// never silently differs from `kubectl kustomize` (the test compares the two where kubectl is).
import fs from 'node:fs';
import path from 'node:path';
import jsonPatch from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';
import { strategicMerge } from './k8s-merge.mjs';
import { RenderError } from './k8s-render-error.mjs';

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images', 'namespace']);

/** Kinds with no namespace: `namespace:` leaves them alone, as kustomize does. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'PersistentVolume',
  'PriorityClass',
  'StorageClass',
]);

/** Every YAML document of a file, empty ones dropped; a parse error names the file. */
export function readYamlDocuments(file) {
  const documents = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  const values = [];
  for (const document of documents) {
    if (document.errors.length) {
      throw new RenderError(`${file}: not valid YAML: ${document.errors[0].message}`);
    }
    const value = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

function readKustomization(dir) {
  const file = path.join(dir, 'kustomization.yaml');
  if (!fs.existsSync(file)) throw new RenderError(`${dir}: no kustomization.yaml`);
  const [kustomization = {}] = readYamlDocuments(file);
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length) {
    throw new RenderError(
      `${file}: ${unsupported.join(', ')} not supported by infra/k8s-render.mjs (only ${[...SUPPORTED].join(', ')})`,
    );
  }
  return { file, kustomization };
}

const idOf = (object) => `${object.kind}/${object.metadata?.name}`;

/** Which objects a patch applies to: its `target`, or the kind and name the patch itself names. */
function matches(object, target) {
  return (
    (!target.kind || object.kind === target.kind) &&
    (!target.name || object.metadata?.name === target.name) &&
    (!target.group || object.apiVersion.split('/').slice(0, -1).join('/') === target.group) &&
    (!target.version || object.apiVersion.split('/').at(-1) === target.version)
  );
}

function applyPatch(objects, entry, dir, file) {
  if (!entry.path) throw new RenderError(`${file}: a patch needs a path (inline patches unused)`);
  const [patch] = readYamlDocuments(path.join(dir, entry.path));
  const isJson6902 = Array.isArray(patch);
  if (isJson6902 && !entry.target) {
    throw new RenderError(`${file}: JSON 6902 patch ${entry.path} needs a target`);
  }
  const target = entry.target ?? { kind: patch.kind, name: patch.metadata?.name };
  const hits = objects.filter((object) => matches(object, target));
  if (hits.length === 0) {
    throw new RenderError(
      `${file}: patch ${entry.path} matches nothing (${JSON.stringify(target)})`,
    );
  }
  return objects.map((object) => {
    if (!hits.includes(object)) return object;
    if (!isJson6902) return strategicMerge(object, patch);
    try {
      return jsonPatch.applyPatch(structuredClone(object), patch, true, false).newDocument;
    } catch (error) {
      throw new RenderError(`${file}: patch ${entry.path} on ${idOf(object)}: ${error.message}`);
    }
  });
}

/** `name[:tag][@digest]` split where kustomize splits it (a registry port is not a tag). */
function splitImage(image) {
  const [withTag, digest] = image.split('@');
  const slash = withTag.lastIndexOf('/');
  const colon = withTag.lastIndexOf(':');
  const name = colon > slash ? withTag.slice(0, colon) : withTag;
  return { name, tag: colon > slash ? withTag.slice(colon + 1) : undefined, digest };
}

function setImages(node, images) {
  if (Array.isArray(node)) return node.forEach((item) => setImages(item, images));
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const container of value) {
        const current = splitImage(String(container.image ?? ''));
        const rule = images.find((image) => image.name === current.name);
        if (!rule) continue;
        const name = rule.newName ?? current.name;
        if (rule.digest) container.image = `${name}@${rule.digest}`;
        else if (rule.newTag !== undefined) container.image = `${name}:${rule.newTag}`;
        else
          container.image = `${name}${current.tag ? `:${current.tag}` : ''}${current.digest ? `@${current.digest}` : ''}`;
      }
    } else {
      setImages(value, images);
    }
  }
}

/** The objects `kubectl kustomize <dir>` would print, in the order they were gathered. */
export function renderKustomization(dir) {
  const { file, kustomization } = readKustomization(dir);
  let objects = [];
  for (const resource of kustomization.resources ?? []) {
    const where = path.resolve(dir, resource);
    const found = fs.statSync(where, { throwIfNoEntry: false });
    if (!found) throw new RenderError(`${file}: resource ${resource} does not exist`);
    objects.push(...(found.isDirectory() ? renderKustomization(where) : readYamlDocuments(where)));
  }
  const seen = new Set();
  for (const object of objects) {
    if (seen.has(idOf(object))) throw new RenderError(`${file}: ${idOf(object)} is defined twice`);
    seen.add(idOf(object));
  }
  for (const entry of kustomization.patches ?? []) objects = applyPatch(objects, entry, dir, file);
  if (kustomization.namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(object.kind)) {
        object.metadata = { ...object.metadata, namespace: kustomization.namespace };
      }
    }
  }
  if (kustomization.images) setImages(objects, kustomization.images);
  return objects;
}
