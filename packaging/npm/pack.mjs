#!/usr/bin/env node
// Builds the npm tarballs from a goreleaser dist/ (make npm-pack):
//
//   dist/npm/tmux-mcp-<version>.tgz                 the launcher (packaging/npm/tmux-mcp)
//   dist/npm/tmux-mcp-<os>-<cpu>-<version>.tgz      one per platform, the binary inside
//
// The launcher lists the platform packages as optional dependencies of
// the same version, each restricted by os and cpu, so npm installs only
// the one that fits. It also writes dist/registry/server.json, the
// registry entry (server.json at the root) at this version.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { platforms, readDist } from "../dist.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const { dist, version, binaries } = readDist(process.argv[2] || join(root, "dist"));
const out = join(dist, "npm");
const stage = join(out, "stage");
rmSync(out, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

const launcher = JSON.parse(readFileSync(join(here, "tmux-mcp", "package.json"), "utf8"));
const writeJSON = (path, v) => writeFileSync(path, JSON.stringify(v, null, 2) + "\n");

const dirs = [];
const optional = {};
for (const p of platforms) {
  const name = `tmux-mcp-${p.os}-${p.cpu}`;
  const dir = join(stage, name);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(binaries.get(`${p.goos}/${p.goarch}`), join(dir, "bin", "tmux-mcp"));
  chmodSync(join(dir, "bin", "tmux-mcp"), 0o755);
  writeJSON(join(dir, "package.json"), {
    name,
    version,
    description: `The tmux-mcp binary for ${p.os === "darwin" ? "macOS" : "Linux"} ${p.cpu}; install tmux-mcp, which picks it`,
    homepage: launcher.homepage,
    repository: launcher.repository,
    os: [p.os],
    cpu: [p.cpu],
    files: ["bin/tmux-mcp"],
    preferUnplugged: true,
  });
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe tmux-mcp ${version} binary for ${p.os}/${p.cpu}. Install [tmux-mcp](https://www.npmjs.com/package/tmux-mcp) instead: it picks this package on this platform.\n`);
  optional[name] = version;
  dirs.push(dir);
}

const main = join(stage, "tmux-mcp");
cpSync(join(here, "tmux-mcp"), main, { recursive: true });
chmodSync(join(main, "bin", "tmux-mcp.js"), 0o755);
writeJSON(join(main, "package.json"), { ...launcher, version, optionalDependencies: optional });
copyFileSync(join(root, "README.md"), join(main, "README.md"));
dirs.push(main);

execFileSync("npm", ["pack", "--silent", "--pack-destination", out, ...dirs], { stdio: ["ignore", "inherit", "inherit"] });

const server = JSON.parse(readFileSync(join(root, "server.json"), "utf8"));
server.version = version;
for (const pkg of server.packages) pkg.version = version;
mkdirSync(join(dist, "registry"), { recursive: true });
writeJSON(join(dist, "registry", "server.json"), server);
