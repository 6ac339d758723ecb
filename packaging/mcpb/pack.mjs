#!/usr/bin/env node
// Builds the MCP bundles from a goreleaser dist/ (make mcpb): one per
// platform, dist/mcpb/tmux-mcp_<version>_<goos>_<goarch>.mcpb, each the
// manifest beside it (packaging/mcpb/manifest.json) at this version and
// limited to its OS, with that platform's binary in server/. A manifest
// names platforms (darwin, linux) but no CPU, so one bundle per CPU.
//
// Usage: pack.mjs MCPB_CLI [DIST]
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { platforms, readDist } from "../dist.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const mcpb = process.argv[2];
if (!mcpb) {
  throw new Error("usage: pack.mjs MCPB_CLI [DIST]");
}
const { dist, version, binaries } = readDist(process.argv[3] || join(root, "dist"));
const out = join(dist, "mcpb");
rmSync(out, { recursive: true, force: true });

const manifest = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));
for (const p of platforms) {
  const dir = join(out, "stage", `${p.goos}_${p.goarch}`);
  mkdirSync(join(dir, "server"), { recursive: true });
  copyFileSync(binaries.get(`${p.goos}/${p.goarch}`), join(dir, "server", "tmux-mcp"));
  chmodSync(join(dir, "server", "tmux-mcp"), 0o755);
  const m = { ...manifest, version, compatibility: { ...manifest.compatibility, platforms: [p.goos] } };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m, null, 2) + "\n");
  const bundle = join(out, `tmux-mcp_${version}_${p.goos}_${p.goarch}.mcpb`);
  execFileSync(mcpb, ["validate", join(dir, "manifest.json")], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(mcpb, ["pack", dir, bundle], { stdio: ["ignore", "ignore", "inherit"] });
  console.log(bundle);
}
