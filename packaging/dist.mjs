// Reads what `goreleaser release --snapshot` (or a real release) left in
// dist/: the version and the binary of each platform the npm packages and
// the MCP bundles carry. Shared by npm/pack.mjs and mcpb/pack.mjs.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

// The platforms tmux-mcp ships for, as goreleaser and Node name them.
export const platforms = [
  { goos: "linux", goarch: "amd64", os: "linux", cpu: "x64" },
  { goos: "linux", goarch: "arm64", os: "linux", cpu: "arm64" },
  { goos: "darwin", goarch: "amd64", os: "darwin", cpu: "x64" },
  { goos: "darwin", goarch: "arm64", os: "darwin", cpu: "arm64" },
];

// readDist returns { version, commit, binaries } where binaries maps
// "goos/goarch" to the absolute path of that platform's tmux-mcp.
export function readDist(dist) {
  dist = resolve(dist);
  const meta = JSON.parse(readFileSync(join(dist, "metadata.json"), "utf8"));
  const artifacts = JSON.parse(readFileSync(join(dist, "artifacts.json"), "utf8"));
  const binaries = new Map();
  for (const a of artifacts) {
    if (a.type === "Binary" && a.name === "tmux-mcp") {
      binaries.set(`${a.goos}/${a.goarch}`, resolve(a.path));
    }
  }
  for (const p of platforms) {
    if (!binaries.has(`${p.goos}/${p.goarch}`)) {
      throw new Error(`${dist}: no tmux-mcp binary for ${p.goos}/${p.goarch}; run make release-snapshot`);
    }
  }
  return { dist, version: meta.version, commit: meta.commit, binaries };
}
