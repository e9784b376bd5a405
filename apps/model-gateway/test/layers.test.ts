import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The app reads top-down (issue 27, "Keep the app readable as it grows"): surfaces on top, the request
 * pipeline under them, the shared gateway services at the bottom. Each folder of src/ sits in one layer;
 * a file may import its own folder, any folder of a lower layer, and a folder of its own layer as long as
 * no two folders import each other. The README's "Layers" section lists the same table.
 */
const LAYERS: Array<{ name: string; folders: string[] }> = [
  // The files at src/ itself that wire the app together (app.ts, runtime.ts, main.ts, worker.ts, openapi.ts).
  { name: 'composition', folders: ['(root)'] },
  { name: 'surfaces', folders: ['management', 'batches', 'fusion', 'media', 'responses', 'web-search'] },
  { name: 'request pipeline', folders: ['model'] },
  { name: 'pipeline stages', folders: ['routing'] },
  { name: 'shared services', folders: ['keys', 'catalog', 'vendors', 'guardrails', 'spend', 'usage'] },
  // Plumbing every layer may use; config.ts, db.ts and telemetry.ts at src/ belong here.
  { name: 'foundation', folders: ['http', 'generated', '(foundation)'] },
];
const FOUNDATION_FILES = new Set(['config.ts', 'db.ts', 'telemetry.ts']);

const SRC = path.join(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The folder (layer unit) of a file under src/. */
function folderOf(file: string): string {
  const relative = path.relative(SRC, file);
  const [first, ...rest] = relative.split(path.sep);
  if (rest.length > 0) return first!;
  return FOUNDATION_FILES.has(first!.replace(/\.test\.ts$/, '.ts')) ? '(foundation)' : '(root)';
}

/** Every relative module a file imports or re-exports (static imports, `export … from`, `import()` and `require`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const patterns = [/\bfrom\s+'(\.{1,2}\/[^']+)'/g, /\bimport\s+'(\.{1,2}\/[^']+)'/g, /\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g, /\brequire\(\s*'(\.{1,2}\/[^']+)'\s*\)/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

const layerOf = new Map(LAYERS.flatMap((layer, index) => layer.folders.map((folder) => [folder, index] as const)));

/** Folder-to-folder imports, each with the files that make it. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const specifier of importsOf(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(SRC + path.sep)) continue;
      const to = folderOf(target.endsWith('.ts') ? target : `${target}.ts`);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${path.relative(SRC, file)} imports ${specifier}`]);
    }
  }
  return graph;
}

describe('the folders of src/ import in one direction', () => {
  const graph = folderGraph();

  test('every folder of src/ has a layer', () => {
    const folders = new Set(sourceFiles(SRC).map(folderOf));
    for (const entry of readdirSync(SRC, { withFileTypes: true })) if (entry.isDirectory()) folders.add(entry.name);
    expect([...folders].filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  test('no folder imports a folder of a higher layer', () => {
    const upward: string[] = [];
    for (const [from, edges] of graph) {
      for (const [to, sites] of edges) {
        if (layerOf.get(to)! < layerOf.get(from)!) upward.push(...sites.map((site) => `${from} (${LAYERS[layerOf.get(from)!]!.name}) -> ${to} (${LAYERS[layerOf.get(to)!]!.name}): ${site}`));
      }
    }
    expect(upward).toEqual([]);
  });

  test('no two folders of one layer import each other, directly or through others of that layer', () => {
    const cycles: string[] = [];
    for (const layer of LAYERS) {
      const inLayer = new Set(layer.folders);
      const reach = (start: string, goal: string, seen = new Set<string>()): boolean => {
        for (const next of graph.get(start)?.keys() ?? []) {
          if (!inLayer.has(next) || seen.has(next)) continue;
          if (next === goal) return true;
          seen.add(next);
          if (reach(next, goal, seen)) return true;
        }
        return false;
      };
      for (const folder of layer.folders) if (reach(folder, folder)) cycles.push(`${folder} (${layer.name}) imports itself through ${[...(graph.get(folder)?.keys() ?? [])].filter((f) => inLayer.has(f)).join(', ')}`);
    }
    expect(cycles).toEqual([]);
  });

  test('the check sees an upward import (a probe of the reader itself)', () => {
    // model/model-routes.ts is known to import the routing stage: the graph must have that edge, or the reader is blind.
    expect(graph.get('model')?.has('routing')).toBe(true);
  });
});
