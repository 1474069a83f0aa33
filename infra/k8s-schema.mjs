// Each rendered object against the Kubernetes API's schemas, in two passes over kubernetes-models
// (generated from the API's OpenAPI description):
// - its validator (required fields, types, enums, formats), the model's own `.validate()`;
// - its TypeScript types for fields the API does not have: the validator lets any unknown key
//   through (the schemas are open), so a misspelt `readinesProbe` would pass and do nothing, while
//   `kubectl apply` refuses it. Each object is type-checked as an object literal of its kind's
//   interface, whose excess-property check names the stray field.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** kubernetes-models' module of a kind: `apps/v1` + `Deployment`, core `v1` + `Service`. */
const modelModule = (object) => `kubernetes-models/${object.apiVersion}/${object.kind}`;

const idOf = (object) => `${object.kind}/${object.metadata?.name}`;

async function validatorProblems(objects) {
  const problems = [];
  for (const object of objects) {
    let Model;
    try {
      Model = (await import(modelModule(object)))[object.kind];
    } catch {
      problems.push(`${idOf(object)}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      const errors = error.errors ?? [{ instancePath: '', message: error.message }];
      for (const { instancePath, message } of errors) {
        problems.push(`${idOf(object)}: ${instancePath || '/'} ${message}`);
      }
    }
  }
  return problems;
}

/** One program, one variable per object, so a diagnostic's line tells whose it is. */
function unknownFieldProblems(objects) {
  const lines = [];
  const owners = [];
  objects.forEach((object, index) => {
    lines.push(`import type { I${object.kind} as T${index} } from '${modelModule(object)}';`);
  });
  objects.forEach((object, index) => {
    owners[lines.length] = object;
    lines.push(`export const o${index}: T${index} = ${JSON.stringify(object)};`);
  });
  const file = path.join(root, 'infra', '.k8s-objects.ts');
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const source = ts.createSourceFile(file, lines.join('\n'), ts.ScriptTarget.ES2022, true);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (name, ...rest) =>
    name === file ? source : getSourceFile.call(host, name, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  const program = ts.createProgram([file], options, host);
  // Kinds kubernetes-models lacks were reported by the validator pass already.
  return ts
    .getPreEmitDiagnostics(program, source)
    .filter((diagnostic) => diagnostic.file === source && diagnostic.start !== undefined)
    .map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      return owners[line] ? `${idOf(owners[line])}: ${message}` : undefined;
    })
    .filter(Boolean);
}

/** What is wrong with the objects against the Kubernetes schemas, one line each. */
export async function schemaProblems(objects) {
  const problems = await validatorProblems(objects);
  // The type pass would repeat every validator finding less readably: only once those are fixed.
  return problems.length ? problems : unknownFieldProblems(objects);
}
