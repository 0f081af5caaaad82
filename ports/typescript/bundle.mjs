// Bundles the service straight from its TypeScript sources (src/) into
// dist/: one file and its lazily loaded chunks instead of some three
// hundred modules of the SDK and its dependencies, which cuts the CPU of a
// start by about three. esbuild only strips the types: `npm run build`
// type checks with tsc first (and compiles build/, the unit tests), while a
// mutant's build (target.yaml, `mutants`) runs this file alone, in about a
// second. Paths are this file's folder's, whatever the current folder.
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

rmSync(`${here}dist`, { recursive: true, force: true }); // no stale chunks

await build({
  absWorkingDir: here,
  entryPoints: ["src/main.ts"],
  outdir: "dist",
  bundle: true,
  splitting: true, // the store commands load the small entry chunk only
  format: "esm",
  platform: "node",
  target: "node20",
  tsconfig: "tsconfig.json",
  logLevel: "warning",
  // CommonJS dependencies (Ajv) call require: give the bundle one.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
});
